package conformance

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The struct and cmsgpack libraries, against Redis's (deps/lua/src/
// lua_struct.c and lua_cmsgpack.c).
func TestScriptingStructCmsgpack(t *testing.T) {
	cases := scriptGroups([][]string{
		{"return struct.pack('>i', 1)", "return struct.pack('<hHbBlLT', -2, 65535, -1, 255, -5, 7, 9)", "return struct.pack('>hHlLT', -2, 65535, -5, 7, 9)", "return struct.pack('d', 1.5)", "return struct.pack('>d', 1.5)", "return struct.pack('f', 0.1)", "return struct.pack('>f', 0.1)", "return {struct.unpack('>i', struct.pack('>i', -77))}"},
		{"return {struct.unpack('d', struct.pack('d', 3.25))}", "return struct.size('!4bi')", "return struct.pack('!4bi', 1, 2)", "return struct.pack('s', 'ab')", "return {struct.unpack('s', 'ab\\0cd')}", "return struct.pack('c3', 'abcdef')", "return struct.pack('c0', 'abcdef')", "return {struct.unpack('bc0', '\\3abcdef')}"},
		{"return struct.pack('c5', 'ab')", "return struct.pack('z', 1)", "return struct.pack('i40', 1)", "return struct.pack('!3i', 1)", "return struct.size('s')", "return struct.size('c0')", "return struct.unpack('i', 'ab')", "return struct.unpack('i', 'abcd', 0)"},
		{"return {struct.unpack('i', 'abcdabcd', 5)}", "return struct.pack('i')", "return struct.pack('ii', 1)", "return struct.pack()", "return struct.pack('i', 'x')", "return struct.pack('i', {})", "return struct.pack('s')", "return struct.unpack('c0', 'abc')"},
		{"return struct.unpack('s', 'abc')", "return {struct.unpack('i16', struct.pack('i16', -3))}", "return struct.pack('I', -1)", "return struct.pack('i99999999999', 1)", "return {struct.unpack('>I3', 'abc')}", "return struct.pack('xxb', 1)", "return struct.pack(' < > b', 1)", "return struct.pack('L', 1e30)"},
		{"return struct.pack('l', 2^63)", "return struct.pack('l', -2^63)", "return struct.pack('L', 0/0)", "return {struct.unpack('L', '\\255\\255\\255\\255\\255\\255\\255\\255')}", "return {struct.unpack('l', '\\255\\255\\255\\255\\255\\255\\255\\127')}", "return {struct.unpack('f', struct.pack('f', 1/3))}", "return tostring(struct.unpack('d', struct.pack('d', 1/3)))", "return tostring(struct.unpack('f', struct.pack('f', 1/3)))"},
		{"return struct.pack('!d', 1)", "return struct.pack('!bd', 1, 2)", "return struct.pack('!2bhbi', 1,2,3,4)", "return {struct.unpack('!4bi', struct.pack('!4bi', 1, 2))}", "return {struct.unpack('!8bd', struct.pack('!8bd', 1, 2))}", "return struct.size('!8bdbT')", "return struct.pack(12, 1)", "return struct.unpack('b')"},
		{"return struct.unpack('b', 'x', 'y')", "return {struct.unpack('b', 'xy', '2')}", "return struct.pack('b\\0b', 1, 2)", "return struct.pack('c', 'ab')", "return struct.pack('s', 12)", "return struct.size('q')", "return struct.size('>')", "return struct.size('i3!4I')"},
		{"return struct.size('!z')", "return {struct.unpack('I0', 'ab')}", "return struct.pack('d', 0/0)", "return struct.pack('>I5', 4294967296)", "return {struct.unpack('>i5', '\\255\\0\\0\\0\\1')}", "return {struct.unpack('<i5', '\\1\\0\\0\\0\\255')}", "return {struct.unpack('bxb', '\\1\\2\\3')}", "return {struct.unpack('b', 'xy', 3)}"},
		{"return {struct.unpack('b', 'xy', 2.9)}", "return {pcall(struct.pack, 'z')}", "return {pcall(struct.size, 's')}"},
		{"return cmsgpack.pack(1, -1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, 2^53, -2^53)", "return cmsgpack.pack(1.5, 0.1, 1/0, -1/0, 0/0, 2^63, -2^63, 1e300, -0.0)", "return cmsgpack.pack('', 'abc', string.rep('x', 31), string.rep('x', 32))", "return #cmsgpack.pack(string.rep('x', 255), string.rep('x', 256), string.rep('x', 65535), string.rep('x', 65536))", "return cmsgpack.pack(string.rep('x', 256)):sub(1, 4)", "return cmsgpack.pack(string.rep('x', 65536)):sub(1, 6)", "return cmsgpack.pack(true, false, nil, {}, {1,2,3}, {a=1}, {1,nil,3}, {[2]=1}, {[1.5]=1}, {[-1]=1}, {[0]=1})", "return cmsgpack.pack({{{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}}})"},
		{"local t = {} for i=1,20 do t[i]=i end return cmsgpack.pack(t)", "local t = {} for i=1,70000 do t[i]=1 end return cmsgpack.pack(t):sub(1, 6)", "local t = {} for i=1,20 do t['k'..i]=i end return cmsgpack.pack(t):sub(1, 3)", "local t = {} for i=1,70000 do t['k'..i]=i end return cmsgpack.pack(t):sub(1, 5)", "return cmsgpack.pack()", "return cmsgpack.pack(function() end, coroutine.create(function() end))", "return #cmsgpack.pack(redis)", "return cmsgpack.pack({[true]=1})"},
		{"return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {1,2,{3}}, true, false, 1.5))}", "return cmsgpack.unpack(cmsgpack.pack(nil))", "return {cmsgpack.unpack(cmsgpack.pack({a=1}))}", "local t = cmsgpack.unpack(cmsgpack.pack({a=1,b={c='d'}})) return {t.a, t.b.c}", "return cmsgpack.unpack('\\193')", "return cmsgpack.unpack('\\205\\1')", "return cmsgpack.unpack('')", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}"},
		{"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 1)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 3)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 4)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), -1)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 2)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0)}"},
		{"return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0, 1)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), -1)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3))}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 'x')}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), '2')}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 'x')}", "return {cmsgpack.unpack()}", "return {cmsgpack.unpack({})}"},
		{"return {cmsgpack.unpack(12)}", "return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')}", "return {cmsgpack.unpack('\\207\\127\\255\\255\\255\\255\\255\\255\\255')}", "return {cmsgpack.unpack('\\211\\128\\0\\0\\0\\0\\0\\0\\0')}", "return {cmsgpack.unpack('\\202\\63\\192\\0\\0')}", "return {cmsgpack.unpack('\\204\\200\\208\\200\\205\\255\\255\\209\\255\\128\\206\\255\\255\\255\\255\\210\\128\\0\\0\\0')}", "return {cmsgpack.unpack('\\224\\255\\31\\127')}", "return tostring(cmsgpack.unpack(cmsgpack.pack(0.1)))"},
		{"return {cmsgpack.unpack('\\130\\192\\1')}", "return {cmsgpack.unpack('\\129\\203\\127\\248\\0\\0\\0\\0\\0\\0\\1')}", "return {cmsgpack.unpack('\\145\\192')}", "local t = cmsgpack.unpack('\\147\\1\\192\\3') return {t[1], t[2], t[3]}", "return cmsgpack._VERSION .. cmsgpack._NAME .. cmsgpack._COPYRIGHT .. cmsgpack._DESCRIPTION", "local s = string.rep(cmsgpack.pack(1), 7998) return select('#', cmsgpack.unpack(s))", "local s = string.rep(cmsgpack.pack(1), 7999) return select('#', cmsgpack.unpack(s))", "local s = string.rep(cmsgpack.pack(1), 8000) return select('#', cmsgpack.unpack(s))"},
		{"return {cmsgpack.unpack('\\219\\0\\0\\0\\5abc')}", "return {cmsgpack.unpack('\\219\\0\\0\\0\\3abc')}", "return {cmsgpack.unpack('\\221\\0\\0\\0\\1\\5')}", "return {cmsgpack.unpack('\\223\\0\\0\\0\\1\\5\\6')}", "return {cmsgpack.unpack('\\218\\0\\2ab')}", "return {cmsgpack.unpack('\\217\\2ab')}", "return {cmsgpack.unpack('\\217\\2a')}", "return {cmsgpack.unpack('\\220\\0\\1\\1')}"},
		{"return {cmsgpack.unpack('\\222\\0\\1\\1\\2')}", "return {cmsgpack.unpack('\\162a')}", "return {cmsgpack.unpack('\\146\\1')}", "return {cmsgpack.unpack('\\196\\1')}", "return cmsgpack.pack({1, 2, n=3}):sub(1,1)", "return {pcall(cmsgpack.pack)}", "return {pcall(cmsgpack.unpack, '\\193')}", "cmsgpack.x = 1"},
	})
	cases = append(cases,
		Case{Name: "cmsgpack map round trip", Cmds: []Cmd{
			ev("local t = cmsgpack.unpack(cmsgpack.pack({a=1, b={c='d', e={1, 2.5, 'x'}}, [3]=true})) return {t.a, t.b.c, t.b.e[1], tostring(t.b.e[2]), t.b.e[3], t[3]}"),
			ev("local n = 0 for k, v in pairs(cmsgpack.unpack(cmsgpack.pack({x=1, y=2, z=3}))) do n = n + v end return n"),
			ev("return #cmsgpack.pack({x=1, y=2, z=3})"),
		}},
		Case{Name: "in functions", Cmds: []Cmd{fflush,
			fload(lib("libs", "redis.register_function('p', function(k, a) return {struct.pack('>I2', 258), cmsgpack.pack({1, 'a'}), cmsgpack.unpack(a[1])} end)")),
			C("FCALL", "p", "0", "\x93\x01\x02\x03"), fflush}},
	)
	runCases(t, cases)
}

// Numbers as Lua 5.1 converts and computes them on glibc: luaO_str2d
// (strtod: hex floats, inf, nan, overflow to inf; then strtoul for 0x),
// tonumber with a base (strtoul), math.huge, and luai_nummod's
// a - floor(a/b)*b with C's NaN signs.
func TestScriptingNumbers51(t *testing.T) {
	cases := scriptGroups([][]string{
		{"return tostring(0x1p4)", "return tostring(0x1e4)", "return tostring(0x1.8p1)", "return tostring(0x)", "return tostring(1e400)", "return tostring(5e-400)", "return tostring(0xffffffffffffffffff)", "return tostring(0x10 + 1)"},
		{"return tostring(tonumber('0x1p4'))", "return tostring(tonumber('0x1.8p1'))", "return tostring(tonumber('0x1P-2'))", "return tostring(tonumber('0x.8'))", "return tostring(tonumber('0x1.'))", "return tostring(tonumber('0x.p1'))", "return tostring(tonumber('0x'))", "return tostring(tonumber('  0x  '))"},
		{"return tostring(tonumber(' 0x10 '))", "return tostring(tonumber(' -0x10 '))", "return tostring(tonumber('017'))", "return tostring(tonumber('0b101'))", "return tostring(tonumber('1_000'))", "return tostring(tonumber('1e'))", "return tostring(tonumber('1e+'))", "return tostring(tonumber('.e1'))"},
		{"return tostring(tonumber('5.'))", "return tostring(tonumber('1 2'))", "return tostring(tonumber(''))", "return tostring(tonumber('inf'))", "return tostring(tonumber('infinity'))", "return tostring(tonumber('-nan'))", "return tostring(tonumber('nan(123)'))", "return tostring(tonumber('-0'))"},
		{"return tostring(tonumber('ff', 16))", "return tostring(tonumber('0x1f', 16))", "return tostring(tonumber('-ff', 16))", "return tostring(tonumber('z', 36))", "return tostring(tonumber('1', 1))", "return tostring(tonumber('0xg', 16))", "return tostring(tonumber('99999999999999999999', 16))", "return tostring(tonumber(' 10 ', 2))"},
		{"return tostring(tonumber(12, 16))", "return tostring('0x10' + 1)", "return tostring(' 5 ' * 2)", "return bit.tobit('0x10')", "return tostring(math.huge)", "return tostring(-math.huge)", "return tostring(math.huge - math.huge)", "return math.floor(math.huge)"},
		{"return tostring(5 % math.huge)", "return tostring(math.huge % 2)", "return tostring(7 % 0)", "return tostring(5.3 % 2)", "return tostring(-5.3 % 2)", "return tostring(5.3 % -2)", "return tostring(1/3 % 1e-10)", "return tostring(-2^63 % 7)"},
		{"return tostring(math.fmod(1, 0))", "return tostring(math.fmod(-7, 3))", "return tostring(math.fmod(7, math.huge))", "return tostring(math.fmod(0/0, 1))", "return tostring(0/0)", "return tostring(-(0/0))", "return tostring(2^1024)", "return string.format('%f', 0/0)"},
	})
	runCases(t, cases)
}

// Tables as Lua 5.1 lays them out (ltable.c): the order pairs, next,
// cjson.encode and cmsgpack.pack see, the border # finds in a table with
// holes, table.insert/remove/maxn over it, next's error, and table.sort's
// quicksort (where ties end, its error for an inconsistent order).
func TestScriptingTables51(t *testing.T) {
	cases := scriptGroups([][]string{
		{"return cjson.encode({a=1,b=2,c=3,d=4,e=5})", "return cjson.encode({alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6, eta=7, theta=8, iota=9})", "local t = {} for i=1,20 do t['k'..i]=i end return cjson.encode(t)", "local t = {} t.x=1 t.y=2 t.z=3 t[1]=1 t[2]=2 t[10]=10 local r={} for k,v in pairs(t) do r[#r+1]=tostring(k) end return r", "local t = {1,2,nil,4} return #t", "local t = {1,nil,3} return #t", "local t = {} t[1]=1 t[2]=2 t[4]=4 return #t", "local t = {nil,nil,3} return #t"},
		{"local t = {1,2,3,nil,5,nil} return #t", "local t = {} for i=1,10 do t[i]=i end t[5]=nil return #t", "local t = {} for i=1,10 do t[i]=i end t[10]=nil t[9]=nil return #t", "return cjson.encode(cjson.decode('{\"b\":1,\"a\":2,\"c\":{\"y\":1,\"x\":2},\"d\":[1,2,3]}'))", "local t = {a=1, 1, 2, b=2, 3} local r = {} for k, v in pairs(t) do r[#r+1] = tostring(k) end return r", "local t = {} t[1.5]=1 t[-1]=2 t[0]=3 t[true]=4 t[false]=5 t['x']=6 local r = {} for k, v in pairs(t) do r[#r+1] = tostring(k) end return r", "local t = {} for i = 1, 100 do t['key' .. i] = i end for i = 1, 100, 3 do t['key' .. i] = nil end local r = {} for k, v in pairs(t) do r[#r+1] = k end return r", "local t = {} for i = 1, 50 do t[i * 7] = i end local r = {} for k, v in pairs(t) do r[#r+1] = k end return r"},
		{"local t = {10, 20, 30} table.insert(t, 2, 15) table.insert(t, 40) return t", "local t = {10, 20, 30} return {table.remove(t), table.remove(t, 1), t[1]}", "return select('#', table.remove({}))", "return table.maxn({1, 2, [10] = 3, [5.5] = 1})", "local t = {n = 1, 'a', 'b'} return cjson.encode(t)", "return cmsgpack.pack({a=1, b=2, c=3, d=4})", "local t = {} t.a = 1 t.b = 2 t.a = nil t.c = 3 local r = {} for k in pairs(t) do r[#r+1] = k end return r", "local t = {x=1,y=2} local r = {} for k, v in pairs(t) do r[#r+1] = k t[k] = nil end return r"},
		{"return next({}, 'nope')", "local a = redis.call('ping') local t = {} for i=1,9 do t[string.char(96+i)] = i end return cjson.encode(t)", "local t = {} for i = 1, 33 do t[i] = i end for i = 1, 33 do t['s' .. i] = i end local n = 0 local r = {} for k, v in pairs(t) do n = n + 1 if n > 33 then r[#r+1] = k end end return r", "local t = {{a=1}, {b=2}} return cjson.encode(t)", "local t = setmetatable({}, {__index = function() return 1 end}) t.q = 1 t.r = 2 local r = {} for k in pairs(t) do r[#r+1] = k end return r"},
		{"local t = {5, 3, 8, 1, 9, 2, 7} table.sort(t) return t", "local t = {5, 3, 8, 1, 9, 2, 7} table.sort(t, function(a, b) return a > b end) return t", "local t = {} for i = 1, 30 do t[i] = {k = i % 4, id = i} end table.sort(t, function(a, b) return a.k < b.k end) local r = {} for i, v in ipairs(t) do r[i] = v.id end return r", "local t = {3, 1, 2} table.sort(t, function(a, b) return true end) return t", "local t = {} for i = 1, 20 do t[i] = i end table.sort(t, function(a, b) return true end) return t", "local t = {'b', 'a', 'c'} table.sort(t) return t"},
		{"local t = {1, 'a'} table.sort(t) return t", "local t = {1, nil, 3} table.sort(t) return t", "local t = {} for i = 1, 100 do t[i] = (i * 37) % 101 end table.sort(t) return t", "table.sort({}, 1)", "local t = {3, 2, 1} table.sort(t, nil) return t", "local t = {} for i = 1, 50 do t[i] = {v = (i * 13) % 7, id = i} end table.sort(t, function(a, b) return a.v <= b.v end) local r = {} for i, v in ipairs(t) do r[i] = v.id end return r"},
	})
	// Random writes and deletes of string, integer and float keys (a fixed
	// seed, so both servers run the same scripts), then the order pairs
	// walks and the border #: every rehash, collision and dead entry path.
	rng := rand.New(rand.NewPCG(51, 51))
	var cmds []Cmd
	for range 40 {
		var b strings.Builder
		b.WriteString("local t = {} ")
		for range 10 + rng.IntN(120) {
			var key string
			switch rng.IntN(4) {
			case 0:
				key = strconv.Itoa(1 + rng.IntN(40))
			case 1:
				key = strconv.Quote("k" + strconv.Itoa(rng.IntN(60)))
			case 2:
				key = strconv.Itoa(rng.IntN(2000)-1000) + ".5"
			default:
				key = strconv.Quote(strings.Repeat("x", rng.IntN(40)) + strconv.Itoa(rng.IntN(9)))
			}
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&b, "t[%s] = nil ", key)
			} else {
				fmt.Fprintf(&b, "t[%s] = 1 ", key)
			}
		}
		b.WriteString("local r = {#t} for k in pairs(t) do r[#r+1] = tostring(k) end return r")
		cmds = append(cmds, ev(b.String()))
	}
	cases = append(cases, Case{Name: "random writes", Cmds: cmds})
	runCases(t, cases)
}

// Lua 5.1's parser limits, worded as lparser.c words them: nesting
// (LUAI_MAXCCALLS), locals (LUAI_MAXVARS), upvalues (LUAI_MAXUPVALUES),
// assignment targets; and scripts at the limits, which must compile.
func TestScriptingLimits51(t *testing.T) {
	list := func(n int, f func(i int) string, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, sep)
	}
	name := func(p string) func(int) string { return func(i int) string { return p + strconv.Itoa(i) } }
	locals := func(n int) string { return "local " + list(n, name("v"), ", ") }
	stmts := func(n int, p string) string {
		return list(n, func(i int) string { return "local " + p + strconv.Itoa(i) }, " ")
	}
	upvalues := func(n int) string {
		return list(n, func(i int) string { return "local u" + strconv.Itoa(i) + " = " + strconv.Itoa(i) }, " ") +
			" local f = function() return " + list(n, name("u"), " + ") + " end return f()"
	}
	nest := func(n int, open, mid, close string) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	scripts := []string{
		locals(200) + " return 1", // gopher-lua's own register limit was 200
		locals(201) + " return 1",
		locals(200) + " = " + list(200, strconv.Itoa, ",") + " return v199",
		"local x = " + nest(198, "(", "1", ")") + " return x",
		"local x = " + nest(199, "(", "1", ")") + " return x",
		"return " + nest(300, "{", "", "}"),
		"local f = function() " + stmts(205, "a") + " end return 1",
		"return " + list(300, func(int) string { return "'a'" }, " .. "),
		"return " + list(300, func(int) string { return "1" }, " + "),
		"return " + list(300, func(int) string { return "1" }, " ^ "),
		"local s = 0 " + nest(210, "for i=1,2 do ", "s = s + 1 ", "end ") + " return s",
		"local s = 0 " + nest(60, "for k,v in pairs({}) do ", "s = s + 1 ", "end ") + " return s",
		upvalues(60),
		upvalues(61),
		"local t = {} " + list(210, name("t.a"), ", ") + " = 1 return 1",
		"return " + strings.Repeat("not ", 250) + "true",
		"return " + strings.Repeat("- ", 198) + "1",
		"local function f(...) " + stmts(199, "a") + " end return 1",
		"local function f(a, b) " + stmts(198, "a") + " end return 1",
		"local t = {} function t:m() " + stmts(199, "a") + " end return 1",
		"if true then " + stmts(150, "a") + " end " + stmts(150, "b") + " return 1",
		"repeat " + stmts(201, "a") + " until true return 1",
		"return select('#', " + list(240, strconv.Itoa, ", ") + ")",
	}
	var cmds []Cmd
	for _, body := range scripts {
		cmds = append(cmds, ev(body))
	}
	runCases(t, []Case{{Name: "limits", Cmds: cmds}})
}

// scriptGroups makes a case of each group of script bodies, each run with
// EVAL: "group a", "group b"...
func scriptGroups(groups [][]string) []Case {
	var cases []Case
	for i, group := range groups {
		var cmds []Cmd
		for _, body := range group {
			cmds = append(cmds, ev(body))
		}
		cases = append(cases, Case{Name: "group " + string(rune('a'+i)), Cmds: cmds})
	}
	return cases
}
