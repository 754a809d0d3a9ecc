package lua

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// strFormat is Lua 5.1's string.format (lstrlib.c str_format): C printf
// conversions on numbers cast as Lua 5.1 casts them, %q, and Lua's
// argument errors. gopher-lua's handed its arguments to Go's fmt.Sprintf
// as they were ("%!d(MISSING)", "%!u(int64=4)", tables formatted by %s).
func strFormat(L *glua.LState) int {
	frm := L.CheckString(1)
	top := L.GetTop()
	arg := 1
	var b strings.Builder
	for i := 0; i < len(frm); i++ {
		c := frm[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i < len(frm) && frm[i] == '%' {
			b.WriteByte('%')
			continue
		}
		arg++
		if arg > top {
			L.ArgError(arg, "no value")
		}
		// scanformat: flags, up to two digits of width and of precision.
		start := i
		for i < len(frm) && strings.IndexByte("-+ #0", frm[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := frm[start:i]
		w := i
		for n := 0; n < 2 && i < len(frm) && isDigit51(int(frm[i])); n++ {
			i++
		}
		width := frm[w:i]
		prec, hasPrec := "", false
		if i < len(frm) && frm[i] == '.' {
			i++
			p := i
			for n := 0; n < 2 && i < len(frm) && isDigit51(int(frm[i])); n++ {
				i++
			}
			prec, hasPrec = frm[p:i], true
		}
		if i < len(frm) && isDigit51(int(frm[i])) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i >= len(frm) {
			L.RaiseError("%s", "invalid option '%' to 'format'")
		}
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		switch conv := frm[i]; conv {
		case 'c':
			n := int64(L.CheckNumber(arg))
			b.WriteString(pad(string([]byte{byte(n)}), flags, width))
		case 'd', 'i':
			n := numberArg(L, arg)
			b.WriteString(cformat(spec+"d", int64(n), flags))
		case 'o', 'u', 'x', 'X':
			n := numberArg(L, arg)
			u := uint64(int64(n))
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			b.WriteString(cformat(spec+verb, u, flags))
		case 'e', 'E', 'f', 'g', 'G':
			f := float64(numberArg(L, arg))
			if math.IsInf(f, 0) || math.IsNaN(f) {
				s := "inf"
				if math.IsNaN(f) {
					s = "nan"
				}
				if math.Signbit(f) {
					s = "-" + s
				} else if strings.Contains(flags, "+") {
					s = "+" + s
				}
				if conv == 'E' || conv == 'G' {
					s = strings.ToUpper(s)
				}
				b.WriteString(pad(s, strings.ReplaceAll(flags, "0", ""), width))
				break
			}
			if !hasPrec {
				spec += ".6"
			}
			b.WriteString(cformat(spec+string(conv), f, flags))
		case 'q':
			addQuoted(&b, L.CheckString(arg))
		case 's':
			s := stringArg(L, arg)
			if !hasPrec && len(s) >= 100 {
				b.WriteString(s) // Lua keeps a long string whole, unformatted
			} else {
				if hasPrec {
					n, _ := strconv.Atoi(prec)
					if n < len(s) {
						s = s[:n]
					}
				}
				b.WriteString(pad(s, flags, width))
			}
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(glua.LString(b.String()))
	return 1
}

// numberArg is luaL_checknumber: numbers and numeric strings.
func numberArg(L *glua.LState, n int) glua.LNumber {
	v := L.Get(n)
	if f, ok := glua.LVAsNumberOk(v); ok {
		return f
	}
	L.TypeError(n, glua.LTNumber)
	return 0
}

// stringArg is luaL_checklstring: strings, and numbers as tostring
// writes them.
func stringArg(L *glua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case glua.LString:
		return string(v)
	case glua.LNumber:
		return formatNumber(float64(v))
	}
	L.TypeError(n, glua.LTString)
	return ""
}

// cformat is snprintf for one integer or float conversion: Go's fmt
// follows C's flags, width and precision for these verbs.
func cformat(spec string, v any, _ string) string { return fmt.Sprintf(spec, v) }

// pad applies a width and the '-' flag to an already formatted value, as
// %s and %c do in C.
func pad(s, flags, width string) string {
	w, _ := strconv.Atoi(width)
	if len(s) >= w {
		return s
	}
	fill := strings.Repeat(" ", w-len(s))
	if strings.Contains(flags, "-") {
		return s + fill
	}
	return fill + s
}

// addQuoted is lstrlib.c's addquoted for %q.
func addQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
