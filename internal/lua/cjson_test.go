package lua

import (
	"math"
	"strings"
	"testing"
)

func errOf(msg string) string { return "-ERR user_script:1: " + msg + " script: " }

// TestCjson checks cjson against replies taken from Redis 7.0.15. An
// expectation ending in " script: " is an error prefix (the SHA follows).
func TestCjson(t *testing.T) {
	tests := []struct{ body, want string }{
		// Encoding scalars.
		{"return cjson.encode(nil)", bulkOf("null")},
		{"return cjson.encode(true) .. cjson.encode(false)", bulkOf("truefalse")},
		{"return cjson.encode(cjson.null)", bulkOf("null")},
		{"return cjson.encode(1.5)", bulkOf("1.5")},
		{"return cjson.encode(-0)", bulkOf("-0")},
		{"return cjson.encode(1/3)", bulkOf("0.33333333333333")},
		{"return cjson.encode(100000000000000)", bulkOf("1e+14")},
		{"return cjson.encode(123456789012345678)", bulkOf("1.2345678901235e+17")},
		{"return cjson.encode(1e-5)", bulkOf("1e-05")},
		{"return cjson.encode(0/0)", errOf("Cannot serialise number: must not be NaN or Inf")},
		{"return cjson.encode(-1/0)", errOf("Cannot serialise number: must not be NaN or Inf")},
		{`return cjson.encode('\0\1\8\9\10\11\12\13\14\31 "/\\\127\128\255')`,
			bulkOf(`"\u0000\u0001\b\t\n\u000b\f\r\u000e\u001f \"\/\\\u007f` + "\x80\xff" + `"`)},

		// Encoding tables.
		{"return cjson.encode({})", bulkOf("{}")},
		{"return cjson.encode({1,'a',{},{true}})", bulkOf(`[1,"a",{},[true]]`)},
		{"return cjson.encode({a={b=cjson.null}})", bulkOf(`{"a":{"b":null}}`)},
		{"return cjson.encode({[1]=1,[3]=3})", bulkOf("[1,null,3]")},
		{"return cjson.encode({[10]=1})", bulkOf("[null,null,null,null,null,null,null,null,null,1]")},
		{"return cjson.encode({[11]=1})", errOf("Cannot serialise table: excessively sparse array")},
		{"return cjson.encode({[0]=1})", bulkOf(`{"0":1}`)},
		{"return cjson.encode({[1.5]=1})", bulkOf(`{"1.5":1}`)},
		{"return cjson.encode({[2^31]=1})", bulkOf(`{"2147483648":1}`)},
		{"return cjson.encode({[1/0]=1})", errOf("Cannot serialise number: must not be NaN or Inf")},
		{"return cjson.encode({[true]=1})", errOf("Cannot serialise boolean: table key must be a number or string")},
		{"return cjson.encode({[cjson.null]=1})", errOf("Cannot serialise userdata: table key must be a number or string")},
		{"return cjson.encode({function() end})", errOf("Cannot serialise function: type not supported")},
		{"return cjson.encode(coroutine.create(type))", errOf("Cannot serialise thread: type not supported")},
		{"return cjson.encode(redis)", errOf("Cannot serialise function: type not supported")},
		{"local t = {} t[1] = t return cjson.encode(t)", errOf("Cannot serialise, excessive nesting (1001)")},
		{"return cjson.encode()", errOf("bad argument #1 to 'encode' (expected 1 argument)")},
		{"return cjson.encode(1, 2)", errOf("bad argument #1 to 'encode' (expected 1 argument)")},

		// Decoding.
		{"return cjson.decode('[1,\"a\",true,false]')", "*4\r\n:1\r\n$1\r\na\r\n:1\r\n$-1\r\n"},
		{"return cjson.decode('{\"a\":{\"b\":[2]}}').a.b[1]", ":2\r\n"},
		{"return cjson.decode(' 12 ')", ":12\r\n"},
		{"return cjson.decode(12)", ":12\r\n"},
		{"return tostring(cjson.decode('1.5e1'))", bulkOf("15")},
		{"return cjson.decode('0x10')", ":16\r\n"},
		{"return tostring(cjson.decode('-nan'))", bulkOf("-nan")},
		{"return tostring(cjson.decode('Infinity'))", bulkOf("inf")},
		{"return cjson.decode('null') == cjson.null", ":1\r\n"},
		{"return cjson.decode('[null]')[1] == cjson.new().null", ":1\r\n"},
		{"return {type(cjson.null), tostring(cjson.null)}", "*2\r\n" + bulkOf("userdata") + bulkOf("userdata: (nil)")},
		{`return cjson.decode('"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\\\\""')`, bulkOf("\xc3\xa9\xf0\x9f\x98\x80/\b\f\n\r\t\\\"")},
		{"return cjson.decode('[1]\\0x')", "*1\r\n:1\r\n"},
		{"return cjson.decode('')", errOf("Expected value but found T_END at character 1")},
		{"return cjson.decode('1\\0')", errOf("JSON parser does not support UTF-16 or UTF-32")},
		{"return cjson.decode('x')", errOf("Expected value but found invalid token at character 1")},
		{"return cjson.decode('[1 2]')", errOf("Expected comma or array end but found T_NUMBER at character 4")},
		{"return cjson.decode('{\"a\" 1}')", errOf("Expected colon but found T_NUMBER at character 6")},
		{"return cjson.decode('{1:2}')", errOf("Expected object key string but found T_NUMBER at character 2")},
		{"return cjson.decode('{\"a\":1 \"b\"}')", errOf("Expected comma or object end but found T_STRING at character 8")},
		{"return cjson.decode('{}x')", errOf("Expected the end but found invalid token at character 3")},
		{"return cjson.decode('\"abc')", errOf("Expected value but found unexpected end of string at character 5")},
		{`return cjson.decode('"a\\qb"')`, errOf("Expected value but found invalid escape code at character 3")},
		{`return cjson.decode('"\\ud800\\u0041"')`, errOf("Expected value but found invalid unicode escape code at character 2")},
		{"return cjson.decode('-')", errOf("Expected value but found invalid number at character 1")},
		{"return cjson.decode(string.rep('[', 1001))", errOf("Found too many nested data structures (1001) at character 1001")},
		{"return cjson.decode({})", errOf("bad argument #1 to 'decode' (string expected, got table)")},
		{"local ok, e = pcall(cjson.decode) return e", bulkOf("bad argument #1 to '?' (expected 1 argument)")},
		{"local ok, e = pcall(cjson.decode, '[') return e", bulkOf("Expected value but found T_END at character 2")},

		// Configuration.
		{"return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}", "*3\r\n:1000\r\n:1000\r\n:14\r\n"},
		{"local a, b, c = cjson.encode_sparse_array() return {tostring(a), b, c}", "*3\r\n" + bulkOf("false") + ":2\r\n:10\r\n"},
		{"return {tostring(cjson.encode_keep_buffer()), tostring(cjson.encode_invalid_numbers()), tostring(cjson.decode_invalid_numbers())}",
			"*3\r\n" + bulkOf("true") + bulkOf("false") + bulkOf("true")},
		{"return cjson.encode_max_depth(0)", errOf("bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)")},
		{"return cjson.encode_max_depth(1, 2)", errOf("bad argument #2 to 'encode_max_depth' (found too many arguments)")},
		{"return cjson.encode_number_precision('x')", errOf("bad argument #1 to 'encode_number_precision' (number expected, got string)")},
		{"return cjson.encode_invalid_numbers(1)", errOf("bad argument #1 to 'encode_invalid_numbers' (invalid option '1')")},
		{"return cjson.encode_sparse_array(true, 1, -1)", errOf("bad argument #1 to 'encode_sparse_array' (expected integer between 0 and 2147483647)")},
		{"local c = cjson.new() c.encode_invalid_numbers('null') return c.encode({1/0})", bulkOf("[null]")},
		{"local c = cjson.new() c.encode_invalid_numbers(true) return c.encode({1/0, -1/0, 0/0})", bulkOf("[inf,-inf,nan]")},
		{"local c = cjson.new() c.encode_number_precision(3) return c.encode(3.14159)", bulkOf("3.14")},
		{"local c = cjson.new() c.encode_sparse_array(true) return c.encode({[20]=1})", bulkOf(`{"20":1}`)},
		{"local c = cjson.new() c.decode_invalid_numbers(false) return c.decode('0x10')", errOf("Expected value but found invalid number at character 1")},
		{"local c = cjson.new() c.decode_max_depth(2) return c.decode('[[[1]]]')", errOf("Found too many nested data structures (3) at character 3")},
		{"local c = cjson.new() c.encode_max_depth(1e5) local t = {} t[1] = t return c.encode(t)", errOf("Cannot serialise, excessive nesting (7998)")},
		{"local c = cjson.new() c.decode_max_depth(1e5) return c.decode(string.rep('{\"a\":', 5000))", errOf("Found too many nested data structures (4000) at character 19996")},
		{"cjson.x = 1", errOf("Attempt to modify a readonly table")},
	}
	vm := New()
	defer vm.Close()
	for _, tt := range tests {
		got := run(t, vm, tt.body, nil, nil)
		if strings.HasSuffix(tt.want, " script: ") {
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s\n got %q\nwant %q...", tt.body, got, tt.want)
			}
		} else if got != tt.want {
			t.Errorf("%s\n got %q\nwant %q", tt.body, got, tt.want)
		}
	}
}

// TestCjsonConfigPersists: like Redis, a setting made by one script holds
// for the next ones on the same interpreter.
func TestCjsonConfigPersists(t *testing.T) {
	vm := New()
	defer vm.Close()
	if got := run(t, vm, "return cjson.encode_max_depth(2.5)", nil, nil); got != ":2\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := run(t, vm, "return cjson.encode({{{}}})", nil, nil); !strings.HasPrefix(got, errOf("Cannot serialise, excessive nesting (3)")) {
		t.Fatalf("got %q", got)
	}
	// A failed call still keeps what it set before failing.
	run(t, vm, "cjson.encode_sparse_array(true, -1)", nil, nil)
	if got := run(t, vm, "return cjson.encode({[20]=1})", nil, nil); got != bulkOf(`{"20":1}`) {
		t.Fatalf("got %q", got)
	}
	fresh := New()
	defer fresh.Close()
	if got := run(t, fresh, "return cjson.encode_max_depth()", nil, nil); got != ":1000\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestCjsonStrtod(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		in   string
		want float64
		n    int
	}{
		{"12", 12, 2}, {"-1.5e3x", -1500, 6}, {"1e", 1, 1}, {"1e+", 1, 1}, {"1.", 1, 2}, {"-.5", -0.5, 3},
		{".e1", 0, 0}, {"-", 0, 0}, {"+7", 7, 2}, {"007", 7, 3},
		{"0x10", 16, 4}, {"0X1.8p1", 3, 7}, {"0x", 0, 1}, {"0xg", 0, 1}, {"0x.8", 0.5, 4}, {"0x1p", 1, 3},
		{"inf", inf, 3}, {"-Infinity", -inf, 9}, {"infinit", inf, 3},
		{"nan", nan, 3}, {"nan(12_a)", nan, 9}, {"nan(", nan, 3}, {"1e400", inf, 5}, {"1e-400", 0, 6},
	}
	for _, tt := range tests {
		got, n := strtod(tt.in)
		same := got == tt.want || (math.IsNaN(got) && math.IsNaN(tt.want))
		if n != tt.n || (n > 0 && !same) {
			t.Errorf("strtod(%q) = %v, %d; want %v, %d", tt.in, got, n, tt.want, tt.n)
		}
	}
}
