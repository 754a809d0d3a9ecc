package conformance

import "testing"

// evs is one EVAL step per body.
func evs(bodies ...string) []Cmd {
	cmds := make([]Cmd, len(bodies))
	for i, b := range bodies {
		cmds[i] = ev(b)
	}
	return cmds
}

// fresh wraps steps that change cjson's settings between two SCRIPT FLUSH,
// so they start from the defaults and leave them behind for later cases
// (settings persist in the interpreter, on Redis as on limitkv).
func fresh(cmds ...Cmd) []Cmd {
	out := append([]Cmd{C("SCRIPT", "FLUSH")}, cmds...)
	return append(out, C("SCRIPT", "FLUSH"))
}

func TestCjsonEncode(t *testing.T) {
	runCases(t, []Case{
		{Name: "scalars", Cmds: evs(
			"return cjson.encode(nil)", "return cjson.encode(true)", "return cjson.encode(false)", "return cjson.encode(cjson.null)",
			"return cjson.encode('')", "return cjson.encode('abc')", "return cjson.encode(12)")},
		{Name: "numbers", Cmds: evs(
			"return cjson.encode(1.5)", "return cjson.encode(-0)", "return cjson.encode(-0.0)", "return cjson.encode(0.1)",
			"return cjson.encode(1/3)", "return cjson.encode(-2/3)", "return cjson.encode(99999999999999)", "return cjson.encode(100000000000000)",
			"return cjson.encode(123456789012345)", "return cjson.encode(123456789012345678)", "return cjson.encode(2^53)", "return cjson.encode(2^63)",
			"return cjson.encode(1e300)", "return cjson.encode(-1e-300)", "return cjson.encode(1e-5)", "return cjson.encode(0.0001)",
			"return cjson.encode(5e-324)", "return cjson.encode(1.7976931348623157e308)", "return cjson.encode(0.5)", "return cjson.encode(2.5e15)",
			"return cjson.encode('1.5')")},
		{Name: "invalid numbers", Cmds: evs(
			"return cjson.encode(0/0)", "return cjson.encode(1/0)", "return cjson.encode(-1/0)", "return cjson.encode({1, 1/0})",
			"return cjson.encode({a=0/0})", "return cjson.encode({[1/0]=1})")},
		{Name: "string escapes", Cmds: evs(
			`return cjson.encode('\0\1\2\3\4\5\6\7\8\9\10\11\12\13\14\15\16\17\18\19\20\21\22\23\24\25\26\27\28\29\30\31')`,
			`return cjson.encode(' "/\\\127')`, `return cjson.encode('\128\191\192\255')`, `return cjson.encode('é€😀')`,
			`return cjson.encode('a/b\\c"d')`, `return cjson.encode({['k/"']='v\n'})`)},
		{Name: "arrays", Cmds: evs(
			"return cjson.encode({1,2,3})", "return cjson.encode({1,'a',true,false,cjson.null})", "return cjson.encode({{},{{}},{1,{2}}})",
			"return cjson.encode({[1]=1,[3]=3})", "return cjson.encode({nil,nil,3})", "return cjson.encode({[2]='x'})",
			"local t = {1,2,3} t[2] = nil return cjson.encode(t)", "return cjson.encode(KEYS)")},
		{Name: "sparse arrays", Cmds: evs(
			"return cjson.encode({[10]=1})", "return cjson.encode({[11]=1})", "return cjson.encode({[20]=1})",
			"return cjson.encode({[1]=1,[2]=2,[3]=3,[4]=4,[5]=5,[6]=6,[12]=12})", "return cjson.encode({[1]=1,[2]=2,[5]=5,[12]=1})",
			"return cjson.encode({[1]=1,[2]=2,[3]=3,[4]=4,[5]=5,[6]=6,[13]=13})", "return cjson.encode({[100]=1})",
			"return cjson.encode({[2^31-1]=1})", "return cjson.encode({[2^31]=1})", "return cjson.encode({[2^40+5]=1})")},
		{Name: "objects", Cmds: evs(
			"return cjson.encode({})", "return cjson.encode({a=1})", "return cjson.encode({a={b={c='d'}}})", "return cjson.encode({[0]=1})",
			"return cjson.encode({[-1]=1})", "return cjson.encode({[1.5]=1})", "return cjson.encode({[1e20]=1})", "return cjson.encode({[2^53]=1})",
			"return cjson.encode({['']=''})", "return cjson.encode({x={}})",
			// Several keys: the order is the table's, which differs, so compare decoded.
			"local t = cjson.decode(cjson.encode({a=1, b={2,3}, c='x', [7]=true})) return {t.a, t.b[2], t.c, t['7']}")},
		{Name: "bad keys", Cmds: evs(
			"return cjson.encode({[true]=1})", "return cjson.encode({[false]=1})", "return cjson.encode({[{}]=1})",
			"return cjson.encode({[cjson.null]=1})", "return cjson.encode({[type]=1})")},
		{Name: "unsupported types", Cmds: evs(
			"return cjson.encode(type)", "return cjson.encode(function() end)", "return cjson.encode({function() end})",
			"return cjson.encode({a=type})", "return cjson.encode(coroutine.create(function() end))", "return cjson.encode(redis)")},
		{Name: "depth", Cmds: evs(
			"local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)",
			"local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return cjson.encode(t)",
			"local t = {} local c = t for i = 1, 1000 do c.a = {} c = c.a end return cjson.encode(t)",
			"local t = {} t[1] = t return cjson.encode(t)", "local t = {} t.x = {t} return cjson.encode(t)")},
		{Name: "arguments", Cmds: evs(
			"return cjson.encode()", "return cjson.encode(1, 2)", "return cjson.encode(nil, nil)",
			"local e = cjson.encode return e()", "local ok, e = pcall(cjson.encode) return e",
			"local ok, e = pcall(cjson.encode, type) return {tostring(ok), e}")},
		{Name: "result conversion", Cmds: evs(
			"return cjson.null", "return {1, cjson.null, 2}", "return {cjson.null}", "return type(cjson.null)", "return tostring(cjson.null)",
			"return cjson.null == cjson.null", "return cjson.new().null == cjson.null", "return redis.call('set', 'k', cjson.null)")},
		{Name: "iteration order",
			Cmds: evs("return cjson.encode({a=1, b=2, c=3})", "return cjson.encode({[1]=1, a=2})", "return cjson.encode({[2^32+3]=1, [1]=1})")},
	})
}

func TestCjsonDecode(t *testing.T) {
	runCases(t, []Case{
		{Name: "scalars", Cmds: evs(
			"return cjson.decode('true')", "return cjson.decode('false')", "return type(cjson.decode('false'))", "return cjson.decode('null')",
			"return cjson.decode('null') == cjson.null", "return rawequal(cjson.decode('[null]')[1], cjson.null)", "return cjson.decode('\"abc\"')",
			"return cjson.decode(' \\t\\r\\n 1 \\n')", "return cjson.decode(12)", "return cjson.decode(1.5)", "return cjson.decode('[]')",
			"return cjson.decode('{}')", "return type(cjson.decode('{}'))")},
		{Name: "numbers", Cmds: evs(
			"return cjson.decode('0')", "return cjson.decode('-12')", "return cjson.decode('1.5')", "return tostring(cjson.decode('1.5'))",
			"return tostring(cjson.decode('-0'))", "return tostring(cjson.decode('1e3'))", "return tostring(cjson.decode('1.5E+2'))",
			"return tostring(cjson.decode('25e-1'))", "return tostring(cjson.decode('12345678901234567890'))", "return tostring(cjson.decode('0.1'))",
			"return tostring(cjson.decode('1e400'))", "return tostring(cjson.decode('-1e400'))", "return tostring(cjson.decode('1e-400'))",
			"return cjson.decode('9007199254740993')", "return cjson.decode('1.')", "return tostring(cjson.decode('1.e5'))",
			"return tostring(cjson.decode('-.5'))")},
		{Name: "non-json numbers", Cmds: evs(
			"return cjson.decode('0x10')", "return cjson.decode('-0x10')", "return cjson.decode('0X1f')", "return tostring(cjson.decode('0x1.8p1'))",
			"return cjson.decode('+1')", "return cjson.decode('01')", "return cjson.decode('-007')", "return tostring(cjson.decode('inf'))",
			"return tostring(cjson.decode('-inf'))", "return tostring(cjson.decode('+Infinity'))", "return tostring(cjson.decode('nan'))",
			"return tostring(cjson.decode('-nan'))", "return tostring(cjson.decode('NaN'))", "return tostring(cjson.decode('nan(123)'))",
			"return cjson.decode('inf')", "return cjson.decode('[nan]')", "return cjson.decode('infinit')", "return cjson.decode('nanx')")},
		{Name: "bad numbers", Cmds: evs(
			"return cjson.decode('-')", "return cjson.decode('-x')", "return cjson.decode('.5')", "return cjson.decode('0x')",
			"return cjson.decode('1e')", "return cjson.decode('1e+')", "return cjson.decode('1.2.3')", "return cjson.decode('- 1')",
			"return cjson.decode('[1,-]')")},
		{Name: "strings", Cmds: evs(
			`return cjson.decode[["\"\\\/\b\f\n\r\t"]]`, `return cjson.decode[["\u0041\u00e9\u20AC\uFFFF"]]`, `return cjson.decode[["\u0000"]]`,
			`return cjson.decode[["\ud83d\ude00"]]`, `return cjson.decode[["\uDBFF\uDFFF"]]`, `return cjson.decode[["\uD800\uDC00x"]]`,
			`return cjson.decode('"\1\31\127\128\255"')`, `return cjson.decode('"a\tb"')`, `return cjson.decode[[""]]`, `return #cjson.decode[["\u0000\u0000"]]`)},
		{Name: "string errors", Cmds: evs(
			`return cjson.decode[["abc]]`, `return cjson.decode[["a\qb"]]`, `return cjson.decode[["\x41"]]`, `return cjson.decode[["\u12"]]`,
			`return cjson.decode[["\u12G4"]]`, `return cjson.decode[["\ud800"]]`, `return cjson.decode[["\ud800x"]]`, `return cjson.decode[["\ud800\u0041"]]`,
			`return cjson.decode[["\udc00"]]`, `return cjson.decode[["\udc00\ud800"]]`, `return cjson.decode[["\ud800\ud800"]]`, `return cjson.decode[["a\]]`,
			`return cjson.decode('"a\0b"')`, `return cjson.decode[=[["a", "b\z"]]=]`)},
		{Name: "arrays and objects", Cmds: evs(
			"return cjson.decode('[1,\"a\",true,false,null,[2,[3]],{}]')", "return cjson.decode('[1,\"a\",true,false,null]')[5] == cjson.null",
			"return cjson.decode('{\"a\":{\"b\":[1,2,{\"c\":\"d\"}]}}').a.b[3].c", "return cjson.decode('{\"a\":1,\"a\":2}').a",
			"return cjson.decode('{\"1\":\"x\"}')['1']", "return cjson.decode('{\"1\":\"x\"}')[1]", "return #cjson.decode('[1,2,3]')",
			"local t = cjson.decode('{\"b\":1,\"a\":2,\"c\":3}') local k = {} for x in pairs(t) do k[#k+1] = x end table.sort(k) return k",
			"return cjson.decode(' [ 1 , 2 ] ')", "return cjson.decode('{ \"a\" : 1 }').a", "return cjson.decode('[[],[[]],{}]')")},
		{Name: "syntax errors", Cmds: evs(
			"return cjson.decode('')", "return cjson.decode(' ')", "return cjson.decode('x')", "return cjson.decode('tru')", "return cjson.decode('nul')",
			"return cjson.decode('True')", "return cjson.decode('[1,2')", "return cjson.decode('[1 2]')", "return cjson.decode('[1,]')", "return cjson.decode('[,1]')",
			"return cjson.decode(']')", "return cjson.decode('{\"a\" 1}')", "return cjson.decode('{1:2}')", "return cjson.decode('{\"a\":1 \"b\":2}')",
			"return cjson.decode('{\"a\":1,}')", "return cjson.decode('{\"a\"}')", "return cjson.decode('{\"a\":}')", "return cjson.decode('{')",
			"return cjson.decode('[')", "return cjson.decode('{\"a\":1]')", "return cjson.decode('[1}')", "return cjson.decode(':')",
			"return cjson.decode(\"'a'\")", "return cjson.decode('[1] x')", "return cjson.decode('1 2')", "return cjson.decode('{}{}')",
			"return cjson.decode('[1]]')", "return cjson.decode('\\v1')", "return cjson.decode('/*c*/1')")},
		{Name: "nul bytes", Cmds: evs(
			"return cjson.decode('[1]\\0x')", "return cjson.decode('\\0')", "return cjson.decode('1\\0')", "return cjson.decode('\\0\\0')",
			"return cjson.decode('[1,\\0]')", "return cjson.decode(' 1\\0')")},
		{Name: "depth", Cmds: evs(
			"return #cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000))", "return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
			"return cjson.decode(string.rep('{\"a\":', 1001))", "return cjson.decode(string.rep('[{\"a\":', 600))", "return cjson.decode(string.rep('[', 5000))")},
		{Name: "arguments", Cmds: evs(
			"return cjson.decode()", "return cjson.decode('1', '2')", "return cjson.decode(nil)", "return cjson.decode({})", "return cjson.decode(true)",
			"return cjson.decode(cjson.null)", "local ok, e = pcall(cjson.decode) return e", "local ok, e = pcall(cjson.decode, '[') return {tostring(ok), e}",
			"local d = cjson.decode return d()")},
		{Name: "round trip", Cmds: evs(
			"return cjson.encode(cjson.decode('[1,\"a\\\\/b\",[true,false,null],{\"k\":[]},1.25,-3]'))",
			"return cjson.encode(cjson.decode('\"\\\\u00e9\\\\ud83d\\\\ude00\"'))", "return cjson.encode(cjson.decode('{\"a\":{\"b\":{}}}'))",
			"return cjson.decode(cjson.encode({1,2,{3}}))[3][1]")},
	})
}

func TestCjsonConfig(t *testing.T) {
	runCases(t, []Case{
		{Name: "library", Cmds: evs(
			"local t = {} for k in pairs(cjson) do t[#t+1] = k end table.sort(t) return t", "return {cjson._NAME, cjson._VERSION}",
			"cjson.x = 1", "cjson.encode = nil", "rawset(cjson, 'x', 1)", "return cjson.new().x",
			"local c = cjson.new() c.x = 1 return c.x", "local t = {} for k in pairs(cjson.new()) do t[#t+1] = k end table.sort(t) return t",
			"return cjson.new(1, 2)._VERSION", "return cjson.new().new().encode({1})")},
		{Name: "defaults", Cmds: fresh(evs(
			"return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}",
			"local a, b, c = cjson.encode_sparse_array() return {tostring(a), b, c}",
			"return {tostring(cjson.encode_keep_buffer()), tostring(cjson.encode_invalid_numbers()), tostring(cjson.decode_invalid_numbers())}")...)},
		{Name: "encode_max_depth", Cmds: fresh(evs(
			"return cjson.encode_max_depth(2)", "return cjson.encode({{1}})", "return cjson.encode({{{1}}})", "return cjson.encode({a={b={}}})",
			"return cjson.encode_max_depth()", "return cjson.encode_max_depth(2.9)", "return cjson.encode_max_depth('3')", "return cjson.encode_max_depth(2^32+7)",
			"return cjson.encode_max_depth(0)", "return cjson.encode_max_depth(-1)", "return cjson.encode_max_depth(2^31)", "return cjson.encode_max_depth('x')",
			"return cjson.encode_max_depth({})", "return cjson.encode_max_depth(1, 2)", "return cjson.encode_max_depth(nil)",
			"cjson.encode_max_depth(100000) local t = {} t[1] = t return cjson.encode(t)",
			"local t = {} local c = t for i = 1, 5000 do c.a = {} c = c.a end return cjson.encode(t)",
			"local t = {} local c = t for i = 1, 9000 do c.a = {{}} c = c.a[1] end return cjson.encode(t)")...)},
		{Name: "decode_max_depth", Cmds: fresh(evs(
			"return cjson.decode_max_depth(2)", "return cjson.decode('[[1]]')[1][1]", "return cjson.decode('[[[1]]]')", "return cjson.decode('{\"a\":{\"b\":[1]}}')",
			"return cjson.decode_max_depth(0)", "return cjson.decode_max_depth(1, 2)", "return cjson.decode_max_depth(true)",
			"cjson.decode_max_depth(100000) return cjson.decode(string.rep('[', 10000))", "return cjson.decode(string.rep('{\"a\":', 5000))",
			"return cjson.decode(string.rep('{\"a\":[', 5000))", "return #cjson.decode(string.rep('[', 7998) .. string.rep(']', 7998))")...)},
		{Name: "encode_number_precision", Cmds: fresh(evs(
			"return cjson.encode_number_precision(3)", "return cjson.encode({3.14159, 1234567, 0.000123456, 100, 1e21, 15})",
			"return cjson.encode_number_precision(1)", "return cjson.encode({3.14159, 15, 0.5, 95})", "return cjson.encode({[1.25]=1})",
			"return cjson.encode_number_precision(15)", "return cjson.encode_number_precision(0)", "return cjson.encode_number_precision('1x')",
			"return cjson.encode_number_precision(14)", "return cjson.encode(1/3)")...)},
		{Name: "encode_invalid_numbers", Cmds: fresh(evs(
			"return cjson.encode_invalid_numbers(true)", "return cjson.encode({1/0, -1/0, 0/0, -(0/0)})", "return cjson.encode({[1/0]=1})",
			"return cjson.encode_invalid_numbers('null')", "return cjson.encode({1/0, -1/0, 0/0})", "return cjson.encode({[-1/0]=1})",
			"return cjson.encode_invalid_numbers()", "return cjson.encode_invalid_numbers('on')", "return cjson.encode_invalid_numbers('off')",
			"return cjson.encode(1/0)", "return cjson.encode_invalid_numbers(false)", "return cjson.encode_invalid_numbers('x')",
			"return cjson.encode_invalid_numbers(1)", "return cjson.encode_invalid_numbers({})", "return cjson.encode_invalid_numbers('ON')",
			"return cjson.encode_invalid_numbers(1, 2)")...)},
		{Name: "decode_invalid_numbers", Cmds: fresh(evs(
			"return cjson.decode_invalid_numbers(false)", "return cjson.decode('+1')", "return cjson.decode('01')", "return cjson.decode('0x10')",
			"return cjson.decode('-0x10')", "return cjson.decode('inf')", "return cjson.decode('-inf')", "return cjson.decode('nan')", "return cjson.decode('NaN')",
			"return cjson.decode('[0]')", "return cjson.decode('-0')", "return cjson.decode('0.5')", "return cjson.decode('-01')", "return cjson.decode('[1,+2]')",
			"return cjson.decode_invalid_numbers()", "return cjson.decode_invalid_numbers('on')", "return cjson.decode('0x10')",
			"return cjson.decode_invalid_numbers('null')", "return cjson.decode_invalid_numbers(0)")...)},
		{Name: "encode_sparse_array", Cmds: fresh(evs(
			"return {cjson.encode_sparse_array(true)}", "return cjson.encode({[20]=1})", "return cjson.encode({[1]=1, [2]=2})",
			"return {cjson.encode_sparse_array(false, 0)}", "return #cjson.encode({[200]=1})", "return {cjson.encode_sparse_array(false, 3, 1)}",
			"return cjson.encode({[3]=1})", "return cjson.encode({[4]=1})", "return cjson.encode({[4]=1, [1]=1})",
			"return {cjson.encode_sparse_array('on', 2, 10)}", "return {cjson.encode_sparse_array('off', 2.9, '10')}", "return {cjson.encode_sparse_array(nil, nil, 4)}",
			"return cjson.encode_sparse_array(1)", "return cjson.encode_sparse_array(true, -1)", "return {cjson.encode_sparse_array()}",
			"return cjson.encode_sparse_array(false, 1, -1)", "return cjson.encode_sparse_array(false, 'x')", "return cjson.encode_sparse_array(false, 1, 2, 3)",
			"return {cjson.encode_sparse_array()}")...)},
		{Name: "encode_keep_buffer", Cmds: fresh(evs(
			"return cjson.encode_keep_buffer(false)", "return cjson.encode({1, 'a'})", "return cjson.encode(0/0)", "return cjson.encode({1, 'b'})",
			"return cjson.encode_keep_buffer()", "return cjson.encode_keep_buffer('on')", "return cjson.encode({2})", "return cjson.encode_keep_buffer('x')",
			"return cjson.encode_keep_buffer(1)")...)},
		{Name: "settings persist", Cmds: fresh(append(evs(
			"return cjson.encode_max_depth(1)", "return cjson.encode({{}})", "return cjson.new().encode({{}})",
			"local c = cjson.new() c.encode_max_depth(5) return {c.encode_max_depth(), cjson.encode_max_depth()}"),
			C("SCRIPT", "FLUSH"), ev("return cjson.encode_max_depth()"), ev("return cjson.encode({{}})"))...)},
		{Name: "argument errors through pcall", Cmds: fresh(evs(
			"local ok, e = pcall(cjson.encode_max_depth, 'x') return e", "local ok, e = pcall(cjson.encode_invalid_numbers, 'x') return e",
			"local ok, e = pcall(cjson.decode_max_depth, 1, 2) return e")...)},
	})
}
