package lua

const defaultArrayCap = 32
const defaultHashCap = 32

type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{pre51: [2]int32{int32(acap), int32(hcap)}}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	if hcap != 0 {
		tb.strdict = make(map[string]LValue, hcap)
	}
	return tb
}

// Len returns length of this LTable without using __len: the border Lua
// 5.1's luaH_getn finds.
func (tb *LTable) Len() int { return tb.getn51() }

// Append appends a given LValue to this LTable: t[#t+1] = value.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	tb.RawSetInt(tb.Len()+1, value)
}

// Insert inserts a given LValue at position `i` in this table, moving up
// the elements from i to the border, as Lua 5.1's table.insert.
func (tb *LTable) Insert(i int, value LValue) {
	e := tb.Len() + 1
	if i > e {
		e = i
	}
	for j := e; j > i; j-- {
		tb.RawSetInt(j, tb.RawGetInt(j-1))
	}
	tb.RawSetInt(i, value)
}

// MaxN returns the largest positive integer key (table.maxn for integer
// keys).
func (tb *LTable) MaxN() int {
	max := 0
	tb.ForEach(func(k, _ LValue) {
		if n, ok := k.(LNumber); ok && float64(n) > float64(max) && isInteger(n) {
			max = int(n)
		}
	})
	return max
}

// Remove removes from this table the element at a given position (the
// border for a position out of 1..border, as Lua 5.1's table.remove
// without one), moving down the elements after it.
func (tb *LTable) Remove(pos int) LValue {
	e := tb.Len()
	if pos < 0 {
		pos = e
	}
	if !(1 <= pos && pos <= e) {
		return LNil
	}
	oldval := tb.RawGetInt(pos)
	for ; pos < e; pos++ {
		tb.RawSetInt(pos, tb.RawGetInt(pos+1))
	}
	tb.RawSetInt(e, LNil)
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	tb.note51(key)
	tb.rawSet(key, value)
}

func (tb *LTable) rawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				tb.array = make([]LValue, 0, defaultArrayCap)
			}
			index := int(v) - 1
			alen := len(tb.array)
			switch {
			case index == alen:
				tb.array = append(tb.array, value)
			case index > alen:
				for i := 0; i < (index - alen); i++ {
					tb.array = append(tb.array, LNil)
				}
				tb.array = append(tb.array, value)
			case index < alen:
				tb.array[index] = value
			}
			return
		}
	case LString:
		tb.rawSetString(string(v), value)
		return
	}

	tb.rawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	tb.note51(LNumber(key))
	if key < 1 || key >= MaxArrayIndex {
		tb.rawSetH(LNumber(key), value)
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, 32)
	}
	index := key - 1
	alen := len(tb.array)
	switch {
	case index == alen:
		tb.array = append(tb.array, value)
	case index > alen:
		for i := 0; i < (index - alen); i++ {
			tb.array = append(tb.array, LNil)
		}
		tb.array = append(tb.array, value)
	case index < alen:
		tb.array[index] = value
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) {
	tb.note51(LString(key))
	tb.rawSetString(key, value)
}

func (tb *LTable) rawSetString(key string, value LValue) {
	if tb.strdict == nil {
		tb.strdict = make(map[string]LValue, defaultHashCap)
	}
	// The order of keys is the Lua 5.1 layout's (order51.go).
	if value == LNil {
		delete(tb.strdict, key)
	} else {
		tb.strdict[key] = value
	}
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	tb.note51(key)
	tb.rawSetH(key, value)
}

func (tb *LTable) rawSetH(key LValue, value LValue) {
	if s, ok := key.(LString); ok {
		tb.rawSetString(string(s), value)
		return
	}
	if tb.dict == nil {
		tb.dict = make(map[LValue]LValue, len(tb.strdict))
	}
	if value == LNil {
		delete(tb.dict, key)
	} else {
		tb.dict[key] = value
	}
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				return LNil
			}
			index := int(v) - 1
			if index >= len(tb.array) {
				return LNil
			}
			return tb.array[index]
		}
	case LString:
		if tb.strdict == nil {
			return LNil
		}
		if ret, ok := tb.strdict[string(v)]; ok {
			return ret
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	if tb.array == nil {
		return LNil
	}
	index := int(key) - 1
	if index >= len(tb.array) || index < 0 {
		return LNil
	}
	return tb.array[index]
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		if tb.strdict == nil {
			return LNil
		}
		if v, vok := tb.strdict[string(s)]; vok {
			return v
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if tb.strdict == nil {
		return LNil
	}
	if v, vok := tb.strdict[string(key)]; vok {
		return v
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to
// a given function, in Lua 5.1's order (next).
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	var k LValue = LNil
	for {
		var v LValue
		k, v, _ = tb.next51(k)
		if k == LNil {
			return
		}
		cb(k, v)
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ),
// in Lua 5.1's order. A key not in the table ends the traversal.
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	k, v, _ := tb.next51(key)
	return k, v
}

// NextKey is Next that also reports whether key was in the table (Lua
// 5.1's next raises "invalid key to 'next'" when it is not).
func (tb *LTable) NextKey(key LValue) (LValue, LValue, bool) { return tb.next51(key) }
