package lua

import (
	"math"
	"runtime"
	"strconv"
	"strings"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// Redis 7.0.15's version, as redis.REDIS_VERSION(_NUM) report it.
const (
	redisVersion    = "7.0.15"
	redisVersionNum = 0x07000f
)

// Texts of the errors the sandbox raises, word for word from Redis 7.0.
const (
	errReadonly      = "Attempt to modify a readonly table"
	errNoGlobal      = "Script attempted to access nonexistent global variable '"
	errWrongArgsType = "wrong number or type of arguments"
)

// setup builds Redis's environment: the base functions Redis keeps (no
// dofile, loadfile, print, getfenv/setfenv, module/require), the string,
// table, math, coroutine, bit, cjson, struct and cmsgpack libraries, the
// redis table, and read-only protection of all of them.
func (vm *VM) setup() {
	L := vm.L
	for _, lib := range []struct {
		name string
		fn   glua.LGFunction
	}{
		{"", glua.OpenBase}, {glua.TabLibName, glua.OpenTable}, {glua.StringLibName, glua.OpenString},
		{glua.MathLibName, glua.OpenMath}, {glua.CoroutineLibName, glua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(glua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	vm.globals = g
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "getfenv", "setfenv", "module", "require", "newproxy", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, glua.LNil)
	}
	// Loaded-module bookkeeping would be another way to reach the libraries.
	L.SetField(L.Get(glua.RegistryIndex), "_LOADED", glua.LNil)

	g.RawSetString("pcall", L.NewFunction(vm.pcall))
	g.RawSetString("tostring", L.NewFunction(baseToString))
	g.RawSetString("rawset", L.NewFunction(vm.rawset))
	g.RawSetString("rawget", L.NewFunction(vm.rawget))
	g.RawSetString("next", L.NewFunction(vm.next))
	g.RawSetString("pairs", L.NewFunction(vm.pairs))
	g.RawSetString("setmetatable", L.NewFunction(vm.setmetatable))
	g.RawSetString("error", L.NewFunction(vm.luaError))
	g.RawSetString("tonumber", L.NewFunction(toNumberFn))
	g.RawSetString("loadstring", L.NewFunction(vm.loadString))
	g.RawSetString("collectgarbage", L.NewFunction(collectGarbage))
	tab := g.RawGetString("table").(*glua.LTable)
	tab.RawSetString("foreach", L.NewFunction(tableForeach))
	tab.RawSetString("foreachi", L.NewFunction(tableForeachi))
	tab.RawSetString("setn", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	g.RawSetString("gcinfo", L.NewFunction(gcinfo))

	g.RawGetString("string").(*glua.LTable).RawSetString("format", L.NewFunction(strFormat))
	math := g.RawGetString("math").(*glua.LTable)
	math.RawSetString("random", L.NewFunction(vm.mathRandom))
	math.RawSetString("randomseed", L.NewFunction(vm.mathRandomSeed))

	g.RawSetString("bit", openBit(L))
	g.RawSetString("cjson", vm.openCjson(L, &glua.LUserData{Value: jsonNull{}}))
	g.RawSetString("struct", vm.openStruct(L))
	g.RawSetString("cmsgpack", vm.openCmsgpack(L))
	g.RawSetString("redis", vm.redisTable())
	vm.handler = L.NewFunction(vm.errorHandler)
	g.RawSetString("__redis__err__handler", vm.handler)

	// Read-only protection. Redis marks tables read-only inside its patched
	// Lua; here every protected table hides behind an empty proxy whose
	// metatable reads through to it and refuses writes.
	readonly := L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("%s", errReadonly)
		return 0
	})
	for _, name := range []string{"string", "math", "table", "coroutine", "bit", "cjson", "struct", "cmsgpack", "redis"} {
		g.RawSetString(name, vm.protect(g.RawGetString(name).(*glua.LTable), readonly))
	}
	// gopher-lua makes the string library its own metatable; Lua's is a
	// separate {__index = string}. Build that, and let getmetatable("") see
	// only a read-only stand-in, so no script can reach the real library.
	strProxy := g.RawGetString("string").(*glua.LTable)
	strlib := vm.proxies[strProxy]
	strlib.RawSetString("__index", glua.LNil)
	smt := L.NewTable()
	smt.RawSetString("__index", strlib)
	shown := L.NewTable()
	shown.RawSetString("__index", strProxy)
	smt.RawSetString("__metatable", vm.protect(shown, readonly))
	L.SetMetatable(glua.LString(""), smt)

	gmt := L.NewTable()
	gmt.RawSetString("__index", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("%s%s'", errNoGlobal, L.Get(2).String())
		return 0
	}))
	gmt.RawSetString("__newindex", readonly)
	g.Metatable = gmt
	pg := vm.protect(g, readonly)
	g.RawSetString("_G", pg)
	L.Env = pg
}

// protect returns a read-only proxy of t.
func (vm *VM) protect(t *glua.LTable, readonly *glua.LFunction) *glua.LTable {
	p := vm.L.NewTable()
	mt := vm.L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", readonly)
	mt.RawSetString("__metatable", glua.LFalse)
	p.Metatable = mt
	vm.proxies[p] = t
	return p
}

// backing returns the table a proxy stands for, or nil for an ordinary table.
func (vm *VM) backing(v glua.LValue) *glua.LTable {
	if t, ok := v.(*glua.LTable); ok {
		if real, ok := vm.proxies[t]; ok {
			return real
		}
		for _, real := range vm.proxies {
			if real == t {
				return real
			}
		}
	}
	return nil
}

func (vm *VM) rawset(L *glua.LState) int {
	t := L.CheckTable(1)
	L.CheckAny(2)
	L.CheckAny(3)
	if vm.backing(t) != nil {
		L.Error(glua.LString(errReadonly), 0)
	}
	t.RawSet(L.Get(2), L.Get(3))
	L.SetTop(1)
	return 1
}

func (vm *VM) rawget(L *glua.LState) int {
	t := L.CheckTable(1)
	L.CheckAny(2)
	if real, ok := vm.proxies[t]; ok {
		t = real
	}
	L.Push(t.RawGet(L.Get(2)))
	return 1
}

func (vm *VM) setmetatable(L *glua.LState) int {
	t := L.CheckTable(1)
	L.CheckTypes(2, glua.LTNil, glua.LTTable)
	if vm.backing(t) != nil {
		L.Error(glua.LString(errReadonly), 0)
	}
	if mt, ok := t.Metatable.(*glua.LTable); ok && mt.RawGetString("__metatable") != glua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = L.Get(2)
	L.SetTop(1)
	return 1
}

// next and pairs see through proxies, so pairs(_G) lists the globals as in
// Redis.
func (vm *VM) next(L *glua.LState) int {
	t := L.CheckTable(1)
	if real, ok := vm.proxies[t]; ok {
		t = real
	}
	k, v, ok := t.NextKey(L.Get(2))
	if !ok {
		L.Error(glua.LString("invalid key to 'next'"), 0) // luaG_runerror in a C function: no position
	}
	if k == glua.LNil {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (vm *VM) pairs(L *glua.LState) int {
	t := L.CheckTable(1)
	L.Push(L.NewFunction(vm.next))
	L.Push(t)
	L.Push(glua.LNil)
	return 3
}

// pcall is Redis's: when the error is an {err=...} table (redis.call's
// errors), the caller gets the message, as in Redis before 7.0.
func (vm *VM) pcall(L *glua.LState) int {
	L.CheckAny(1)
	fn := L.Get(1)
	if fn.Type() != glua.LTFunction && L.GetMetaField(fn, "__call").Type() != glua.LTFunction {
		L.Push(glua.LFalse)
		L.Push(glua.LString("attempt to call a " + fn.Type().String() + " value"))
		return 2
	}
	err := L.PCall(L.GetTop()-1, glua.MultRet, nil)
	if err == nil {
		L.Insert(glua.LTrue, 1)
		return L.GetTop()
	}
	L.Push(glua.LFalse)
	var obj glua.LValue = glua.LString(err.Error())
	if ae, ok := err.(*glua.ApiError); ok {
		obj = ae.Object
	}
	switch o := obj.(type) {
	case *glua.LTable:
		if msg, ok := o.RawGetString("err").(glua.LString); ok {
			obj = msg
		}
	}
	L.Push(obj)
	return 2
}

func baseToString(L *glua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(glua.LNumber); ok {
		L.Push(glua.LString(formatNumber(float64(n))))
		return 1
	}
	if isJSONNull(v) {
		// cjson.null is a NULL lightuserdata in Redis.
		L.Push(glua.LString("userdata: (nil)"))
		return 1
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// collectGarbage answers without running Go's collector: a script must not
// be able to stop the world.
func collectGarbage(L *glua.LState) int {
	switch L.OptString(1, "collect") {
	case "count":
		L.Push(glua.LNumber(float64(heapKB())))
	default:
		L.Push(glua.LNumber(0))
	}
	return 1
}

func gcinfo(L *glua.LState) int {
	L.Push(glua.LNumber(heapKB()))
	return 1
}

func heapKB() int64 {
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	return int64(st.HeapAlloc / 1024)
}

// rand48 is Redis's redisLrand48 (the libc lrand48 LCG), so math.random
// produces the same sequences on every platform, as Redis's does.
func (vm *VM) srand48(seed int32) {
	vm.rand = uint64(uint32(seed))<<16 | 0x330e
}

func (vm *VM) lrand48() int32 {
	vm.rand = (vm.rand*0x5deece66d + 0xb) & (1<<48 - 1)
	return int32(vm.rand >> 17)
}

func (vm *VM) mathRandom(L *glua.LState) int {
	const max = 0x7fffffff
	r := float64(vm.lrand48()%max) / max
	switch L.GetTop() {
	case 0:
		L.Push(glua.LNumber(r))
	case 1:
		u := L.CheckInt(1)
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(glua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := L.CheckInt(1), L.CheckInt(2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(glua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (vm *VM) mathRandomSeed(L *glua.LState) int {
	vm.srand48(int32(L.CheckInt(1)))
	return 0
}

// luaError is Lua 5.1's error: any value (nil too), and a position prefix
// for strings and numbers at level > 0.
func (vm *VM) luaError(L *glua.LState) int {
	obj := L.Get(1)
	level := L.OptInt(2, 1)
	switch obj.(type) {
	case glua.LString, glua.LNumber:
		if level > 0 {
			if where := vm.where(L, level); where != "" {
				obj = glua.LString(where + luaToString(obj))
			}
		}
	}
	L.Error(obj, 0)
	return 0
}

// where is luaL_where: "source:line: " of the function at level, or "".
func (vm *VM) where(L *glua.LState, level int) string {
	if L.TailCallLevel(level) {
		return "" // Lua 5.1 has a line for no call a tail call replaced
	}
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, glua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// toNumberFn is Lua 5.1's tonumber.
func toNumberFn(L *glua.LState) int {
	v := L.CheckAny(1)
	base := L.OptInt(2, 10)
	if base == 10 {
		if f, ok := toNumber(v); ok {
			L.Push(glua.LNumber(f))
		} else {
			L.Push(glua.LNil)
		}
		return 1
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := glua.ToNumberBase(luaToString(v), base); ok {
		L.Push(glua.LNumber(n))
	} else {
		L.Push(glua.LNil)
	}
	return 1
}

// loadString is loadstring with Lua 5.1's chunk name ([string "..."]) and
// syntax errors, compiled into the sandbox.
func (vm *VM) loadString(L *glua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	id := chunkID(name, luaIDSize)
	if msg := checkSyntax51(src, chunkID(name, maxSrc)); msg != "" {
		L.Push(glua.LNil)
		L.Push(glua.LString(msg))
		return 2
	}
	fn, err := L.Load(strings.NewReader(src), id)
	// Error replies name the chunk by its source (debug.getinfo's
	// source), which for a string chunk is the name given, not its id.
	if vm.sources == nil {
		vm.sources = make(map[string]string)
	}
	vm.sources[id] = name
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString(strings.TrimSpace(err.Error())))
		return 2
	}
	L.Push(fn)
	return 1
}

// Lua 5.1's sizes for chunk ids: LUA_IDSIZE for runtime errors, llex.c's
// MAXSRC for syntax errors.
const (
	luaIDSize = 60
	maxSrc    = 80
)

// chunkID is luaO_chunkid for a string chunk: [string "first line..."],
// in a buffer of size bytes.
func chunkID(src string, size int) string {
	if strings.HasPrefix(src, "=") || strings.HasPrefix(src, "@") {
		return src[1:]
	}
	room := size - len(` [string "..."] `) - 1
	n := strings.IndexAny(src, "\r\n")
	if n < 0 {
		n = len(src)
	}
	if n > room {
		n = room
	}
	if n < len(src) {
		return `[string "` + src[:n] + `..."]`
	}
	return `[string "` + src + `"]`
}

func tableForeach(L *glua.LState) int {
	t := L.CheckTable(1)
	f := L.CheckFunction(2)
	for k, v := t.Next(glua.LNil); k != glua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != glua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func tableForeachi(L *glua.LState) int {
	t := L.CheckTable(1)
	f := L.CheckFunction(2)
	n := t.Len()
	for i := 1; i <= n; i++ {
		L.Push(f)
		L.Push(glua.LNumber(i))
		L.Push(t.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != glua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}
