package lua

import ()

func OpenTable(L *LState) int {
	tabmod := L.RegisterModule(TabLibName, tableFuncs)
	L.Push(tabmod)
	return 1
}

var tableFuncs = map[string]LGFunction{
	"getn":   tableGetN,
	"concat": tableConcat,
	"insert": tableInsert,
	"maxn":   tableMaxN,
	"remove": tableRemove,
	"sort":   tableSort,
}

// tableSort is Lua 5.1's table.sort: its quicksort (ltablib.c auxsort),
// so that elements the order function calls equal end where Lua 5.1
// leaves them, and an inconsistent order function gets its error.
func tableSort(L *LState) int {
	tbl := L.CheckTable(1)
	n := tbl.Len()
	var fn *LFunction
	if L.GetTop() >= 2 && L.Get(2) != LNil {
		fn = L.CheckFunction(2)
	}
	less := func(a, b LValue) bool {
		if fn == nil {
			return lessThan(L, a, b)
		}
		L.Push(fn)
		L.Push(a)
		L.Push(b)
		L.Call(2, 1)
		return LVAsBool(L.reg.Pop())
	}
	auxSort51(L, tbl, 1, n, less)
	return 0
}

func auxSort51(L *LState, t *LTable, l, u int, less func(a, b LValue) bool) {
	get, set := t.RawGetInt, t.RawSetInt
	for l < u {
		if al, au := get(l), get(u); less(au, al) {
			set(l, au)
			set(u, al)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		if ai, al := get(i), get(l); less(ai, al) {
			set(i, al)
			set(l, ai)
		} else if au := get(u); less(au, ai) {
			set(i, au)
			set(u, ai)
		}
		if u-l == 2 {
			break
		}
		p := get(i)
		set(i, get(u-1))
		set(u-1, p)
		i, j := l, u-1
		for {
			var ai, aj LValue
			for {
				i++
				if ai = get(i); !less(ai, p) {
					break
				}
				if i > u {
					L.RaiseError("invalid order function for sorting")
				}
			}
			for {
				j--
				if aj = get(j); !less(p, aj) {
					break
				}
				if j < l {
					L.RaiseError("invalid order function for sorting")
				}
			}
			if j < i {
				break
			}
			set(i, aj)
			set(j, ai)
		}
		au1, ai := get(u-1), get(i)
		set(u-1, ai)
		set(i, au1)
		if i-l < u-i {
			j := l
			i, l = i-1, i+1
			auxSort51(L, t, j, i, less)
		} else {
			j := i + 1
			i, u = u, i-1
			auxSort51(L, t, j, i, less)
		}
	}
}

func tableGetN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).Len()))
	return 1
}

func tableMaxN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).MaxN()))
	return 1
}

func tableRemove(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len()
	pos := L.OptInt(2, e)
	if !(1 <= pos && pos <= e) {
		return 0 // nothing to remove: no value, as Lua 5.1
	}
	L.Push(tbl.Remove(pos))
	return 1
}

func tableConcat(L *LState) int {
	tbl := L.CheckTable(1)
	sep := LString(L.OptString(2, ""))
	i := L.OptInt(3, 1)
	j := L.OptInt(4, tbl.Len())
	if L.GetTop() == 3 {
		if i > tbl.Len() || i < 1 {
			L.Push(emptyLString)
			return 1
		}
	}
	i = intMax(intMin(i, tbl.Len()), 1)
	j = intMin(intMin(j, tbl.Len()), tbl.Len())
	if i > j {
		L.Push(emptyLString)
		return 1
	}
	//TODO should flushing?
	retbottom := L.GetTop()
	for ; i <= j; i++ {
		v := tbl.RawGetInt(i)
		if !LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
		L.Push(v)
		if i != j {
			L.Push(sep)
		}
	}
	L.Push(stringConcat(L, L.GetTop()-retbottom, L.reg.Top()-1))
	return 1
}

func tableInsert(L *LState) int {
	tbl := L.CheckTable(1)
	nargs := L.GetTop()
	if nargs == 1 {
		L.RaiseError("wrong number of arguments")
	}

	if L.GetTop() == 2 {
		tbl.Append(L.Get(2))
		return 0
	}
	tbl.Insert(int(L.CheckInt(2)), L.CheckAny(3))
	return 0
}

//
