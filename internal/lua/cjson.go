package lua

import (
	"math"
	"strconv"
	"strings"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// jsonNull marks the userdata standing for JSON null. Redis's cjson uses a
// NULL lightuserdata, and every NULL lightuserdata is equal to every other,
// so one value per VM (shared by all cjson.new() tables) keeps
// "x == cjson.null" true for every decoded null.
type jsonNull struct{}

func isJSONNull(v glua.LValue) bool {
	ud, ok := v.(*glua.LUserData)
	if !ok {
		return false
	}
	_, ok = ud.Value.(jsonNull)
	return ok
}

// lua-cjson's defaults as Redis 7.0 builds it.
const (
	cjsonVersion = "2.1.0"
	// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: lua-cjson asks lua_checkstack
	// for room at every nesting level, so once a script raises the depth
	// limits, this is where encoding and decoding stop instead.
	luaMaxCStack = 8000
)

// cjsonConfig is lua-cjson's json_config_t: each cjson table (the global
// and every cjson.new()) has its own, and settings persist from script to
// script until SCRIPT FLUSH builds a new interpreter.
type cjsonConfig struct {
	sparseConvert  int
	sparseRatio    int32
	sparseSafe     int32
	encodeMaxDepth int32
	decodeMaxDepth int32
	encodeInvalid  int // 0 refuse, 1 "inf"/"nan", 2 null
	precision      int32
	keepBuffer     int
	decodeInvalid  int
	buf            []byte
	null           *glua.LUserData
}

func newCjsonConfig(null *glua.LUserData) *cjsonConfig {
	return &cjsonConfig{
		null:        null,
		sparseRatio: 2, sparseSafe: 10,
		encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		precision: 14, keepBuffer: 1, decodeInvalid: 1,
	}
}

// openCjson builds a cjson table with a fresh configuration; null is the
// VM's JSON null.
func (vm *VM) openCjson(L *glua.LState, null *glua.LUserData) *glua.LTable {
	cfg := newCjsonConfig(null)
	t := L.NewTable()
	fns := map[string]glua.LGFunction{
		"encode": func(L *glua.LState) int { return vm.jsonEncode(L, cfg) },
		"decode": func(L *glua.LState) int { return vm.jsonDecode(L, cfg) },
		"encode_sparse_array": func(L *glua.LState) int {
			cjsonArgs(L, 3)
			enumOption(L, 1, &cfg.sparseConvert, boolOptions, 1)
			intOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
			intOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
			return 3
		},
		"encode_max_depth": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			return intOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32)
		},
		"decode_max_depth": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			return intOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32)
		},
		"encode_number_precision": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			return intOption(L, 1, &cfg.precision, 1, 14)
		},
		"encode_keep_buffer": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			enumOption(L, 1, &cfg.keepBuffer, boolOptions, 1)
			if cfg.keepBuffer == 0 {
				cfg.buf = nil
			}
			return 1
		},
		"encode_invalid_numbers": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			return enumOption(L, 1, &cfg.encodeInvalid, []string{"off", "on", "null"}, 1)
		},
		"decode_invalid_numbers": func(L *glua.LState) int {
			cjsonArgs(L, 1)
			return enumOption(L, 1, &cfg.decodeInvalid, boolOptions, 1)
		},
		"new": func(L *glua.LState) int {
			L.Push(vm.openCjson(L, null))
			return 1
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	t.RawSetString("null", null)
	t.RawSetString("_NAME", glua.LString("cjson"))
	t.RawSetString("_VERSION", glua.LString(cjsonVersion))
	return t
}

// cjsonFail raises msg as luaL_error does: prefixed with the position of
// the calling Lua line, or with nothing when the caller is not Lua code
// (pcall(cjson.encode, ...)).
func (vm *VM) cjsonFail(L *glua.LState, msg string) {
	L.Error(glua.LString(vm.where(L, 1)+msg), 0)
}

// cjsonArgError is luaL_argerror: unlike gopher-lua's ArgError, a function
// called from Go code (pcall(cjson.decode)) is named '?' and gets no
// position.
func cjsonArgError(L *glua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, glua.LNil); err == nil && dbg.Name != "" && dbg.Name != "(anonymous)" && !strings.HasPrefix(dbg.Name, "<") {
			name = dbg.Name
		}
	}
	var where string
	if dbg, ok := L.GetStack(1); ok {
		if _, err := L.GetInfo("Sl", dbg, glua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			where = dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
		}
	}
	L.Error(glua.LString(where+"bad argument #"+strconv.Itoa(n)+" to '"+name+"' ("+msg+")"), 0)
}

func cjsonTypeError(L *glua.LState, n int, want string) {
	cjsonArgError(L, n, want+" expected, got "+L.Get(n).Type().String())
}

var boolOptions = []string{"off", "on"}

// cjsonArgs is json_arg_init: missing arguments are padded with nil, so
// the results pushed after them never read as arguments.
func cjsonArgs(L *glua.LState, n int) {
	if L.GetTop() > n {
		cjsonArgError(L, n+1, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(glua.LNil)
	}
}

// intOption is json_integer_option. The value goes through lua_tointeger
// into a C int, so it is truncated, and the range error always names
// argument 1, as lua-cjson's does.
func intOption(L *glua.LState, i int, setting *int32, min, max int32) int {
	if v := L.Get(i); v != glua.LNil {
		f, ok := toNumber(v)
		if !ok {
			cjsonTypeError(L, i, "number")
		}
		n := cInt(f)
		if n < min || n > max {
			cjsonArgError(L, 1, "expected integer between "+strconv.Itoa(int(min))+" and "+strconv.Itoa(int(max)))
		}
		*setting = n
	}
	L.Push(glua.LNumber(*setting))
	return 1
}

// cInt is (int)(lua_Integer)f on x86-64: out-of-range doubles become
// INT64_MIN, whose low 32 bits are 0.
func cInt(f float64) int32 {
	var n int64 = math.MinInt64
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		n = int64(f)
	}
	return int32(n)
}

// enumOption is json_enum_option: a boolean (when boolTrue is set) or one
// of options by name; it answers a boolean for off/on, the name otherwise.
func enumOption(L *glua.LState, i int, setting *int, options []string, boolTrue int) int {
	switch v := L.Get(i).(type) {
	case *glua.LNilType:
	case glua.LBool:
		*setting = 0
		if v {
			*setting = boolTrue
		}
	default:
		var name string
		switch v := v.(type) {
		case glua.LString:
			name = string(v)
		case glua.LNumber:
			name = formatNumber(float64(v))
		default:
			cjsonTypeError(L, i, "string")
		}
		found := false
		for j, o := range options {
			if o == name {
				*setting, found = j, true
				break
			}
		}
		if !found {
			cjsonArgError(L, i, "invalid option '"+name+"'")
		}
	}
	if *setting == 0 || *setting == boolTrue {
		L.Push(glua.LBool(*setting != 0))
	} else {
		L.Push(glua.LString(options[*setting]))
	}
	return 1
}

// ===== Encoding =====

// jsonEscapes is lua-cjson's char2escape: control characters and DEL as
// \u00XX (but \b \t \n \f \r), and '"', '\\' and '/' backslashed.
var jsonEscapes = func() [256]string {
	var t [256]string
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&15])
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'], t[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return t
}()

type jsonEncoder struct {
	vm  *VM
	L   *glua.LState
	cfg *cjsonConfig
	buf []byte
}

func (vm *VM) jsonEncode(L *glua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		cjsonArgError(L, 1, "expected 1 argument")
	}
	e := &jsonEncoder{vm: vm, L: L, cfg: cfg}
	if cfg.keepBuffer != 0 {
		e.buf = cfg.buf[:0]
	}
	// The argument itself takes one Lua stack slot in lua-cjson.
	e.value(L.Get(1), 0, 1)
	L.Push(glua.LString(e.buf))
	if cfg.keepBuffer != 0 && cap(e.buf) <= 1<<20 {
		// Big buffers are not worth pinning between scripts.
		cfg.buf = e.buf
	}
	return 1
}

func (e *jsonEncoder) fail(v glua.LValue, reason string) {
	e.vm.cjsonFail(e.L, "Cannot serialise "+v.Type().String()+": "+reason)
}

// value is json_append_data. slots counts the Lua stack slots lua-cjson
// would be using at this point (for its lua_checkstack limit).
func (e *jsonEncoder) value(v glua.LValue, depth, slots int) {
	switch v := v.(type) {
	case glua.LString:
		e.str(string(v))
	case glua.LNumber:
		e.number(v)
	case glua.LBool:
		if v {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *glua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *glua.LTable:
		depth++
		if int64(depth) > int64(e.cfg.encodeMaxDepth) || slots+3 > luaMaxCStack {
			e.vm.cjsonFail(e.L, "Cannot serialise, excessive nesting ("+strconv.Itoa(depth)+")")
		}
		if real, ok := e.vm.proxies[v]; ok {
			// A read-only library table: Redis would walk the table itself.
			v = real
		}
		if n := e.arrayLength(v); n > 0 {
			e.array(v, n, depth, slots)
		} else {
			e.object(v, depth, slots)
		}
	default:
		if isJSONNull(v) {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.fail(v, "type not supported")
	}
}

func (e *jsonEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			e.buf = append(e.buf, esc...)
		} else {
			e.buf = append(e.buf, s[i])
		}
	}
	e.buf = append(e.buf, '"')
}

// number is json_append_number: C's "%.<precision>g".
func (e *jsonEncoder) number(n glua.LNumber) {
	f := float64(n)
	bad := math.IsInf(f, 0) || math.IsNaN(f)
	switch {
	case !bad:
		e.buf = strconv.AppendFloat(e.buf, f, 'g', int(e.cfg.precision), 64)
	case e.cfg.encodeInvalid == 0:
		e.fail(n, "must not be NaN or Inf")
	case e.cfg.encodeInvalid == 2:
		e.buf = append(e.buf, "null"...)
	case math.IsNaN(f):
		e.buf = append(e.buf, "nan"...)
	case f > 0:
		e.buf = append(e.buf, "inf"...)
	default:
		e.buf = append(e.buf, "-inf"...)
	}
}

// arrayLength is lua_array_length: the largest key when every key is a
// positive integer, else -1 (an object). The maximum lives in a C int, and
// a key beyond its range converts to INT_MIN, which is kept as the C code
// keeps it (so such a table becomes an object, or not, by key order).
func (e *jsonEncoder) arrayLength(t *glua.LTable) int32 {
	var max, items int32
	for k, _ := t.Next(glua.LNil); k != glua.LNil; k, _ = t.Next(k) {
		if n, ok := k.(glua.LNumber); ok && n != 0 {
			f := float64(n)
			if math.Floor(f) == f && f >= 1 {
				if f > float64(max) {
					max = math.MinInt32
					if f < 2147483648.0 {
						max = int32(f)
					}
				}
				items++
				continue
			}
		}
		return -1
	}
	cfg := e.cfg
	if cfg.sparseRatio > 0 && max > items*cfg.sparseRatio && max > cfg.sparseSafe {
		if cfg.sparseConvert == 0 {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return max
}

func (e *jsonEncoder) array(t *glua.LTable, n int32, depth, slots int) {
	e.buf = append(e.buf, '[')
	for i := 1; i <= int(n); i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		e.value(t.RawGetInt(i), depth, slots+1)
	}
	e.buf = append(e.buf, ']')
}

func (e *jsonEncoder) object(t *glua.LTable, depth, slots int) {
	e.buf = append(e.buf, '{')
	first := true
	for k, v := t.Next(glua.LNil); k != glua.LNil; k, v = t.Next(k) {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		switch k := k.(type) {
		case glua.LNumber:
			e.buf = append(e.buf, '"')
			e.number(k)
			e.buf = append(e.buf, '"', ':')
		case glua.LString:
			e.str(string(k))
			e.buf = append(e.buf, ':')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(v, depth, slots+2)
	}
	e.buf = append(e.buf, '}')
}

// ===== Decoding =====

type jsonTokenType uint8

const (
	tObjBegin jsonTokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_BOOLEAN",
	"T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// jsonCh2Token is lua-cjson's ch2token table.
var jsonCh2Token = func() [256]jsonTokenType {
	var t [256]jsonTokenType
	for i := range t {
		t[i] = tError
	}
	t['{'], t['}'], t['['], t[']'], t[','], t[':'] = tObjBegin, tObjEnd, tArrBegin, tArrEnd, tComma, tColon
	t[0] = tEnd
	t[' '], t['\t'], t['\n'], t['\r'] = tWhitespace, tWhitespace, tWhitespace, tWhitespace
	for _, c := range "fiInNt\"+-0123456789" {
		t[c] = tUnknown
	}
	return t
}()

var jsonEscape2Char = func() [256]byte {
	var t [256]byte
	t['"'], t['\\'], t['/'] = '"', '\\', '/'
	t['b'], t['t'], t['n'], t['f'], t['r'], t['u'] = '\b', '\t', '\n', '\f', '\r', 'u'
	return t
}()

type jsonToken struct {
	typ   jsonTokenType
	index int
	str   string // tString: the value; tError: the reason
	num   float64
	bool  bool
}

// jsonDecoder walks the input as lua-cjson walks its NUL-terminated copy:
// a NUL byte ends the text wherever it is.
type jsonDecoder struct {
	vm    *VM
	L     *glua.LState
	cfg   *cjsonConfig
	s     string
	p     int
	depth int
	tmp   []byte
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.s) {
		return d.s[i]
	}
	return 0
}

func (vm *VM) jsonDecode(L *glua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		cjsonArgError(L, 1, "expected 1 argument")
	}
	var s string
	switch v := L.Get(1).(type) {
	case glua.LString:
		s = string(v)
	case glua.LNumber:
		s = formatNumber(float64(v))
	default:
		cjsonTypeError(L, 1, "string")
	}
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		vm.cjsonFail(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := &jsonDecoder{vm: vm, L: L, cfg: cfg, s: s}
	var tok jsonToken
	d.next(&tok)
	v := d.value(&tok, 1)
	d.next(&tok)
	if tok.typ != tEnd {
		d.fail("the end", &tok)
	}
	L.Push(v)
	return 1
}

func (d *jsonDecoder) fail(expected string, tok *jsonToken) {
	found := tok.str
	if tok.typ != tError {
		found = jsonTokenNames[tok.typ]
	}
	d.vm.cjsonFail(d.L, "Expected "+expected+" but found "+found+" at character "+strconv.Itoa(tok.index+1))
}

func (d *jsonDecoder) tokenError(tok *jsonToken, reason string) {
	tok.typ, tok.index, tok.str = tError, d.p, reason
}

// descend is json_decode_descend; slots is the Lua stack in use and need
// what the new level asks lua_checkstack for.
func (d *jsonDecoder) descend(slots, need int) {
	d.depth++
	if int64(d.depth) <= int64(d.cfg.decodeMaxDepth) && slots+need <= luaMaxCStack {
		return
	}
	d.vm.cjsonFail(d.L, "Found too many nested data structures ("+strconv.Itoa(d.depth)+") at character "+strconv.Itoa(d.p))
}

// value is json_process_value; slots counts the Lua stack slots in use.
func (d *jsonDecoder) value(tok *jsonToken, slots int) glua.LValue {
	switch tok.typ {
	case tString:
		return glua.LString(tok.str)
	case tNumber:
		return glua.LNumber(tok.num)
	case tBoolean:
		return glua.LBool(tok.bool)
	case tNull:
		return d.cfg.null
	case tObjBegin:
		return d.object(slots)
	case tArrBegin:
		return d.array(slots)
	}
	d.fail("value", tok)
	return nil
}

func (d *jsonDecoder) object(slots int) glua.LValue {
	d.descend(slots, 3)
	t := d.L.NewTable()
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tObjEnd {
		d.depth--
		return t
	}
	for {
		if tok.typ != tString {
			d.fail("object key string", &tok)
		}
		key := glua.LString(tok.str)
		d.next(&tok)
		if tok.typ != tColon {
			d.fail("colon", &tok)
		}
		d.next(&tok)
		t.RawSet(key, d.value(&tok, slots+2))
		d.next(&tok)
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or object end", &tok)
		}
		d.next(&tok)
	}
}

func (d *jsonDecoder) array(slots int) glua.LValue {
	d.descend(slots, 2)
	t := d.L.NewTable()
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tArrEnd {
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(&tok, slots+1))
		d.next(&tok)
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or array end", &tok)
		}
		d.next(&tok)
	}
}

// next is json_next_token.
func (d *jsonDecoder) next(tok *jsonToken) {
	var ch byte
	for {
		ch = d.at(d.p)
		tok.typ = jsonCh2Token[ch]
		if tok.typ != tWhitespace {
			break
		}
		d.p++
	}
	tok.index = d.p
	switch tok.typ {
	case tError:
		d.tokenError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		d.p++
		return
	}
	switch {
	case ch == '"':
		d.stringToken(tok)
	case ch == '-' || ('0' <= ch && ch <= '9'):
		if d.cfg.decodeInvalid == 0 && d.invalidNumber() {
			d.tokenError(tok, "invalid number")
			return
		}
		d.numberToken(tok)
	case strings.HasPrefix(d.s[d.p:], "true"):
		tok.typ, tok.bool = tBoolean, true
		d.p += 4
	case strings.HasPrefix(d.s[d.p:], "false"):
		tok.typ, tok.bool = tBoolean, false
		d.p += 5
	case strings.HasPrefix(d.s[d.p:], "null"):
		tok.typ = tNull
		d.p += 4
	case d.cfg.decodeInvalid != 0 && d.invalidNumber():
		d.numberToken(tok)
	default:
		d.tokenError(tok, "invalid token")
	}
}

// invalidNumber is json_is_invalid_number: what strtod takes but strict
// JSON does not (a leading '+', hex, leading zeros, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.p
	switch d.at(p) {
	case '+':
		return true
	case '-':
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || ('0' <= c2 && c2 <= '9')
	} else if c <= '9' {
		return false
	}
	return hasPrefixFold(d.s[min(p, len(d.s)):], "inf") || hasPrefixFold(d.s[min(p, len(d.s)):], "nan")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func (d *jsonDecoder) numberToken(tok *jsonToken) {
	f, n := strtod(d.s[d.p:])
	if n == 0 {
		d.tokenError(tok, "invalid number")
		return
	}
	tok.typ, tok.num = tNumber, f
	d.p += n
}

func (d *jsonDecoder) stringToken(tok *jsonToken) {
	d.p++
	d.tmp = d.tmp[:0]
	for {
		ch := d.at(d.p)
		if ch == '"' {
			break
		}
		if ch == 0 {
			d.tokenError(tok, "unexpected end of string")
			return
		}
		if ch == '\\' {
			ch = jsonEscape2Char[d.at(d.p+1)]
			if ch == 'u' {
				if d.unicodeEscape() {
					continue
				}
				d.tokenError(tok, "invalid unicode escape code")
				return
			}
			if ch == 0 {
				d.tokenError(tok, "invalid escape code")
				return
			}
			d.p++
		}
		d.tmp = append(d.tmp, ch)
		d.p++
	}
	d.p++
	tok.typ, tok.str = tString, string(d.tmp)
}

// unicodeEscape is json_append_unicode_escape: \uXXXX, or a surrogate
// pair of them, appended as UTF-8.
func (d *jsonDecoder) unicodeEscape() bool {
	cp := d.hex4(d.p + 2)
	if cp < 0 {
		return false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 || d.at(d.p+6) != '\\' || d.at(d.p+7) != 'u' {
			return false
		}
		low := d.hex4(d.p + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		n = 12
	}
	switch {
	case cp <= 0x7F:
		d.tmp = append(d.tmp, byte(cp))
	case cp <= 0x7FF:
		d.tmp = append(d.tmp, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		d.tmp = append(d.tmp, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		d.tmp = append(d.tmp, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.p += n
	return true
}

func (d *jsonDecoder) hex4(p int) int {
	v := 0
	for i := range 4 {
		c := d.at(p + i)
		var x int
		switch {
		case '0' <= c && c <= '9':
			x = int(c - '0')
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			x = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | x
	}
	return v
}

// strtod is glibc's strtod in the C locale: it returns the value of the
// longest prefix of s that is a number (decimal, hexadecimal, inf,
// infinity, nan, nan(...)) and its length, 0 when there is none.
func strtod(s string) (float64, int) {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
	p := 0
	neg := false
	if c := at(0); c == '+' || c == '-' {
		neg, p = c == '-', 1
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := s[min(p, len(s)):]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return sign(math.Inf(1)), p + 8
	case hasPrefixFold(rest, "inf"):
		return sign(math.Inf(1)), p + 3
	case hasPrefixFold(rest, "nan"):
		n := p + 3
		if at(n) == '(' {
			q := n + 1
			for c := at(q); isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'z') || c == '_'; c = at(q) {
				q++
			}
			if at(q) == ')' {
				n = q + 1
			}
		}
		return math.Copysign(math.NaN(), sign(1)), n
	}
	if at(p) == '0' && at(p+1)|0x20 == 'x' && (isHex(at(p+2)) || (at(p+2) == '.' && isHex(at(p+3)))) {
		q := p + 2
		for isHex(at(q)) {
			q++
		}
		if at(q) == '.' {
			q++
			for isHex(at(q)) {
				q++
			}
		}
		exp := "p0"
		if at(q)|0x20 == 'p' {
			e := q + 1
			if at(e) == '+' || at(e) == '-' {
				e++
			}
			if isDigit(at(e)) {
				for isDigit(at(e)) {
					e++
				}
				exp, q = "", e
			}
		}
		f, _ := strconv.ParseFloat(s[p:q]+exp, 64)
		return sign(f), q
	}
	q := p
	digits := 0
	for isDigit(at(q)) {
		q, digits = q+1, digits+1
	}
	if at(q) == '.' {
		q++
		for isDigit(at(q)) {
			q, digits = q+1, digits+1
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if at(q)|0x20 == 'e' {
		e := q + 1
		if at(e) == '+' || at(e) == '-' {
			e++
		}
		if isDigit(at(e)) {
			for isDigit(at(e)) {
				e++
			}
			q = e
		}
	}
	// Out of range values come back as ±Inf or 0 with ErrRange, which is
	// what strtod returns too.
	f, _ := strconv.ParseFloat(s[p:q], 64)
	return sign(f), q
}
