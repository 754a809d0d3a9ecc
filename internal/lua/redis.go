package lua

import (
	"math"
	"strconv"
	"strings"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"

	"github.com/limitkv/limitkv/internal/resp"
)

// redisTable builds the redis global of Redis 7.0's EVAL.
func (vm *VM) redisTable() *glua.LTable {
	L := vm.L
	t := L.NewTable()
	fns := map[string]glua.LGFunction{
		"call":               func(L *glua.LState) int { return vm.redisCall(L, true) },
		"pcall":              func(L *glua.LState) int { return vm.redisCall(L, false) },
		"log":                vm.log,
		"setresp":            vm.setresp,
		"sha1hex":            sha1hex,
		"error_reply":        errorReply,
		"status_reply":       statusReply,
		"set_repl":           vm.setRepl,
		"replicate_commands": func(L *glua.LState) int { L.Push(glua.LTrue); return 1 },
		"breakpoint":         func(L *glua.LState) int { L.Push(glua.LFalse); return 1 },
		"debug":              func(L *glua.LState) int { return 0 },
		"acl_check_cmd":      vm.aclCheckCmd,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]float64{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		t.RawSetString(name, glua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", glua.LString(redisVersion))
	return t
}

// errorTable is Redis's luaPushErrorBuff: "-CODE msg" keeps its code, any
// other text gets "ERR"; CR and LF are trimmed from both ends of the message.
func errorTable(L *glua.LState, s string) *glua.LTable {
	code, msg := "ERR", s
	if strings.HasPrefix(s, "-") {
		if sp := strings.IndexByte(s, ' '); sp >= 0 {
			code, msg = s[1:sp], s[sp+1:]
		} else {
			msg = s[1:]
		}
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("err", glua.LString(code+" "+strings.Trim(msg, "\r\n")))
	return t
}

// redisCall is redis.call (raise) and redis.pcall.
func (vm *VM) redisCall(L *glua.LState, raise bool) int {
	fail := func(t *glua.LTable) int {
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	if !vm.running {
		L.Error(errorTable(L, "redis.call/pcall can only be called inside a script invocation"), 0)
	}
	argc := L.GetTop()
	if argc == 0 {
		return fail(errorTable(L, "Please specify at least one argument for this redis lib call"))
	}
	vm.arena, vm.offs = vm.arena[:0], vm.offs[:0]
	for i := 1; i <= argc; i++ {
		switch v := L.Get(i).(type) {
		case glua.LString:
			vm.arena = append(vm.arena, v...)
		case glua.LNumber:
			vm.arena = formatArg(vm.arena, float64(v))
		default:
			return fail(errorTable(L, "Lua redis lib command arguments must be strings or integers"))
		}
		vm.offs = append(vm.offs, len(vm.arena))
	}
	vm.args = vm.args[:0]
	start := 0
	for _, end := range vm.offs {
		vm.args = append(vm.args, vm.arena[start:end:end])
		start = end
	}
	reply, refused := vm.host.Call(vm.args, vm.resp3)
	if refused != "" {
		return fail(errorTable(L, refused))
	}
	v, _ := vm.parseReply(reply)
	if raise && len(reply) > 0 && reply[0] == '-' {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// parseReply converts one RESP2 reply to Lua as Redis does: integer ->
// number, bulk -> string, null -> false, array -> table, status -> {ok=...},
// error -> {err=...}. It returns the value and the bytes after it.
func (vm *VM) parseReply(b []byte) (glua.LValue, []byte) {
	if len(b) < 3 {
		return glua.LFalse, nil
	}
	line, rest := splitLine(b[1:])
	switch b[0] {
	case '+':
		t := vm.L.CreateTable(0, 1)
		t.RawSetString("ok", glua.LString(line))
		return t, rest
	case '-':
		return errorTable(vm.L, "-"+string(line)), rest
	case ':':
		return glua.LNumber(parseInt(line)), rest
	case '$':
		n := parseInt(line)
		if n < 0 {
			return glua.LFalse, rest
		}
		return glua.LString(rest[:n]), rest[n+2:]
	// RESP3, after redis.setresp(3), as Redis's redisProtocolToLuaType.
	case '_':
		return glua.LNil, rest
	case '#':
		return glua.LBool(len(line) > 0 && line[0] == 't'), rest
	case ',':
		t := vm.L.CreateTable(0, 1)
		f, _ := strconv.ParseFloat(string(line), 64) // "inf", "-inf", "nan" included
		t.RawSetString("double", glua.LNumber(f))
		return t, rest
	case '(':
		t := vm.L.CreateTable(0, 1)
		t.RawSetString("big_number", glua.LString(line))
		return t, rest
	case '=':
		n := parseInt(line)
		body := rest[:n]
		inner := vm.L.CreateTable(0, 2)
		inner.RawSetString("string", glua.LString(body[min(4, len(body)):]))
		inner.RawSetString("format", glua.LString(body[:min(3, len(body))]))
		t := vm.L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", inner)
		return t, rest[n+2:]
	case '%', '~':
		n := parseInt(line)
		m := vm.L.CreateTable(0, int(n))
		for range n {
			var k, v glua.LValue
			k, rest = vm.parseReply(rest)
			if b[0] == '%' {
				v, rest = vm.parseReply(rest)
			} else {
				v = glua.LTrue
			}
			m.RawSet(k, v)
		}
		t := vm.L.CreateTable(0, 1)
		if b[0] == '%' {
			t.RawSetString("map", m)
		} else {
			t.RawSetString("set", m)
		}
		return t, rest
	case '|':
		// Attributes are read and dropped; the reply follows them.
		n := parseInt(line)
		for range 2 * n {
			_, rest = vm.parseReply(rest)
		}
		return vm.parseReply(rest)
	case '*':
		n := parseInt(line)
		if n < 0 {
			return glua.LFalse, rest
		}
		t := vm.L.CreateTable(int(n), 0)
		for range n {
			var v glua.LValue
			v, rest = vm.parseReply(rest)
			t.Append(v)
		}
		return t, rest
	}
	return glua.LFalse, nil
}

func splitLine(b []byte) (line, rest []byte) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:]
		}
	}
	return b, nil
}

func parseInt(b []byte) int64 {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// maxReplyDepth bounds the nesting of a returned table (a table containing
// itself would otherwise recurse forever).
const maxReplyDepth = 1000

// writeReply converts the script's return value to a reply as Redis does
// for a script in RESP2 mode: the writer's protocol (the client's) decides
// how nulls, doubles, maps, sets and big numbers are written.
func (vm *VM) writeReply(w *resp.Writer, v glua.LValue, depth int) {
	switch v := v.(type) {
	case glua.LString:
		w.BulkString(string(v))
	case glua.LBool:
		switch {
		case vm.resp3:
			w.Bool(bool(v)) // RESP3 boolean, or :1/:0 to a RESP2 client
		case bool(v):
			w.Int(1)
		default:
			w.Null()
		}
	case glua.LNumber:
		w.Int(toInteger(float64(v)))
	case *glua.LTable:
		if depth >= maxReplyDepth {
			w.Error("ERR reached lua stack limit")
			return
		}
		vm.writeTable(w, v, depth)
	default:
		w.Null()
	}
}

func (vm *VM) writeTable(w *resp.Writer, t *glua.LTable, depth int) {
	if s, ok := t.RawGetString("err").(glua.LString); ok {
		w.Error(string(s))
		return
	}
	if s, ok := t.RawGetString("ok").(glua.LString); ok {
		w.Simple(string(s))
		return
	}
	if d, ok := t.RawGetString("double").(glua.LNumber); ok {
		w.DoubleBytes([]byte(formatDouble(float64(d))))
		return
	}
	if s, ok := t.RawGetString("big_number").(glua.LString); ok {
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if v, ok := t.RawGetString("verbatim_string").(*glua.LTable); ok {
		f, fok := v.RawGetString("format").(glua.LString)
		s, sok := v.RawGetString("string").(glua.LString)
		if fok && sok {
			w.Verbatim(string(f), string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*glua.LTable); ok {
		off := w.ArrayPlaceholder()
		n := 0
		m.ForEach(func(k, v glua.LValue) {
			vm.writeReply(w, k, depth+1)
			vm.writeReply(w, v, depth+1)
			n++
		})
		w.PatchMap(off, n)
		return
	}
	if s, ok := t.RawGetString("set").(*glua.LTable); ok {
		off := w.ArrayPlaceholder()
		n := 0
		s.ForEach(func(k, _ glua.LValue) {
			vm.writeReply(w, k, depth+1)
			n++
		})
		w.PatchSet(off, n)
		return
	}
	n := 0
	for t.RawGetInt(n+1) != glua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		vm.writeReply(w, t.RawGetInt(i), depth+1)
	}
}

// toInteger is C's (long long) cast on x86-64: out of range, infinite and
// NaN values become the most negative integer.
func toInteger(f float64) int64 {
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		return int64(f)
	}
	return math.MinInt64
}

// formatDouble is Redis's addReplyDouble in RESP2 ("%.17g", inf, -inf).
func formatDouble(f float64) string {
	if math.IsInf(f, 1) {
		return "inf"
	}
	if math.IsInf(f, -1) {
		return "-inf"
	}
	return string(formatArg(nil, f))
}

func errorReply(L *glua.LState) int {
	s, ok := L.Get(1).(glua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, errWrongArgsType))
		return 1
	}
	msg := string(s)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(errorTable(L, msg))
	return 1
}

func statusReply(L *glua.LState) int {
	s, ok := L.Get(1).(glua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, errWrongArgsType))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

func sha1hex(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "wrong number of arguments"), 0)
	}
	var s string
	switch v := L.Get(1).(type) {
	case glua.LString:
		s = string(v)
	case glua.LNumber:
		s = formatNumber(float64(v))
	}
	L.Push(glua.LString(SHA1Hex([]byte(s))))
	return 1
}

func (vm *VM) log(L *glua.LState) int {
	argc := L.GetTop()
	if argc < 2 {
		L.Error(errorTable(L, "redis.log() requires two arguments or more."), 0)
	}
	lvl, ok := toNumber(L.Get(1))
	if !ok {
		L.Error(errorTable(L, "First argument must be a number (log level)."), 0)
	}
	level := int(lvl)
	if level < 0 || level > 3 {
		L.Error(errorTable(L, "Invalid debug level."), 0)
	}
	var b strings.Builder
	for i := 2; i <= argc; i++ {
		var s string
		switch v := L.Get(i).(type) {
		case glua.LString:
			s = string(v)
		case glua.LNumber:
			s = formatNumber(float64(v))
		default:
			continue
		}
		if i != 2 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	if vm.host != nil {
		vm.host.Log(level, b.String())
	}
	return 0
}

// setresp chooses the protocol redis.call's commands answer the script in.
func (vm *VM) setresp(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "redis.setresp() requires one argument."), 0)
	}
	n, _ := toNumber(L.Get(1))
	switch int(n) {
	case 2, 3:
		vm.resp3 = int(n) == 3
		return 0
	}
	L.Error(errorTable(L, "RESP version must be 2 or 3."), 0)
	return 0
}

func (vm *VM) setRepl(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "redis.set_repl() requires two arguments."), 0)
	}
	n, _ := toNumber(L.Get(1))
	if int(n)&^3 != 0 {
		L.Error(errorTable(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."), 0)
	}
	if h, ok := vm.host.(ReplHost); ok {
		h.SetRepl(int(n))
	}
	return 0
}

// aclCheckCmd answers true for any command: limitkv has only the default
// user, who may run everything.
func (vm *VM) aclCheckCmd(L *glua.LState) int {
	if !vm.running {
		L.Error(errorTable(L, "redis.acl_check_cmd can only be called inside a script invocation"), 0)
	}
	argc := L.GetTop()
	if argc == 0 {
		L.Error(errorTable(L, "Please specify at least one argument for this redis lib call"), 0)
	}
	args := make([][]byte, 0, argc)
	for i := 1; i <= argc; i++ {
		switch v := L.Get(i).(type) {
		case glua.LString:
			args = append(args, []byte(v))
		case glua.LNumber:
			args = append(args, formatArg(nil, float64(v)))
		default:
			L.Error(errorTable(L, "Lua redis lib command arguments must be strings or integers"), 0)
		}
	}
	allowed, known := true, true
	if h, ok := vm.host.(ACLHost); ok {
		allowed, known = h.ACLCheck(args)
	}
	if !known {
		L.Error(errorTable(L, "Invalid command passed to redis.acl_check_cmd()"), 0)
	}
	L.Push(glua.LBool(allowed))
	return 1
}

// ACLHost is a Host that answers redis.acl_check_cmd: whether the script's
// user may run args, and whether the command exists at all.
type ACLHost interface {
	ACLCheck(args [][]byte) (allowed, known bool)
}

// toNumber is lua_tonumber: numbers and numeric strings.
func toNumber(v glua.LValue) (float64, bool) {
	switch v := v.(type) {
	case glua.LNumber:
		return float64(v), true
	case glua.LString:
		return parseLuaNumber(string(v))
	}
	return 0, false
}

// parseLuaNumber is Lua 5.1's string-to-number conversion (luaO_str2d on
// glibc), shared with the interpreter's coercions and lexer.
func parseLuaNumber(s string) (float64, bool) { return glua.Str2Number(s) }
