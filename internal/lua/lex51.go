package lua

import (
	"strconv"
	"strings"
)

// The lexer of the Lua 5.1 syntax check (llex.c): tokens, numerals,
// strings and long brackets, and the errors it raises itself.

// Tokens: single characters are themselves; the others start past 255.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var tokenNames51 = [...]string{"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
	"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=", "<number>", "<name>", "<string>", "<eof>"}

var reserved51 = func() map[string]int {
	m := make(map[string]int)
	for i := tkAnd; i <= tkWhile; i++ {
		m[tokenNames51[i-tkAnd]] = i
	}
	return m
}()

// token2str is luaX_token2str.
func token2str(t int) string {
	if t < 257 {
		if t < 32 || t == 127 {
			return "char(" + strconv.Itoa(t) + ")"
		}
		return string(rune(t))
	}
	return tokenNames51[t-tkAnd]
}

// syntaxErr51 carries a finished message up through the parser.
type syntaxErr51 struct{ msg string }

type lexer51 struct {
	chunk string // the chunk's name in messages
	src   string
	pos   int
	line  int
	buf   []byte // the current token's text, as Lua's save buffer holds it
}

type token51 struct {
	t    int
	text string // the text txtToken shows for names, strings and numbers
}

func (lx *lexer51) cur() int {
	if lx.pos >= len(lx.src) {
		return -1
	}
	return int(lx.src[lx.pos])
}

func (lx *lexer51) next()      { lx.pos++ }
func (lx *lexer51) save(c int) { lx.buf = append(lx.buf, byte(c)) }
func (lx *lexer51) saveNext()  { lx.save(lx.cur()); lx.next() }
func isNewline51(c int) bool   { return c == '\n' || c == '\r' }
func isDigit51(c int) bool     { return c >= '0' && c <= '9' }
func isAlpha51(c int) bool     { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isAlnum51(c int) bool     { return isAlpha51(c) || isDigit51(c) }
func isHex51(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
func isSpace51(c int) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }
func (lx *lexer51) checkNext(set string) bool {
	if c := lx.cur(); c >= 0 && strings.IndexByte(set, byte(c)) >= 0 {
		lx.saveNext()
		return true
	}
	return false
}

// incLine is inclinenumber: \n, \r, \n\r and \r\n are one line break.
func (lx *lexer51) incLine() {
	old := lx.cur()
	lx.next()
	if c := lx.cur(); isNewline51(c) && c != old {
		lx.next()
	}
	lx.line++
}

// lexError is luaX_lexerror: the message, then what the current token is.
func (lx *lexer51) lexError(msg string, t int) {
	msg = lx.chunk + ":" + strconv.Itoa(lx.line) + ": " + msg
	if t != 0 {
		near := token2str(t)
		if t == tkName || t == tkString || t == tkNumber {
			near = string(lx.buf)
		}
		msg += " near '" + near + "'"
	}
	panic(syntaxErr51{msg})
}

// skipSep reads [==[ or ]==]: the count of '=' if the bracket closes, else
// -count-1.
func (lx *lexer51) skipSep() int {
	count := 0
	s := lx.cur()
	lx.saveNext()
	for lx.cur() == '=' {
		lx.saveNext()
		count++
	}
	if lx.cur() == s {
		return count
	}
	return -count - 1
}

func (lx *lexer51) readLongString(isString bool, sep int) {
	lx.saveNext() // the second '['
	if isNewline51(lx.cur()) {
		lx.incLine()
	}
	for {
		switch c := lx.cur(); {
		case c < 0:
			if isString {
				lx.lexError("unfinished long string", tkEOS)
			}
			lx.lexError("unfinished long comment", tkEOS)
		case c == '[':
			// Redis builds Lua 5.1 without LUA_COMPAT_LSTR: a nested
			// [[ is plain text.
			if lx.skipSep() == sep {
				lx.saveNext()
			}
		case c == ']':
			if lx.skipSep() == sep {
				lx.saveNext()
				return
			}
		case isNewline51(c):
			lx.save('\n')
			lx.incLine()
		default:
			lx.saveNext()
		}
	}
}

func (lx *lexer51) readString(del int) {
	lx.saveNext()
	for lx.cur() != del {
		switch c := lx.cur(); {
		case c < 0:
			lx.lexError("unfinished string", tkEOS)
		case isNewline51(c):
			lx.lexError("unfinished string", tkString)
		case c == '\\':
			lx.next()
			switch e := lx.cur(); {
			case e == 'a' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't' || e == 'v':
				lx.save(e)
				lx.next()
			case isNewline51(e):
				lx.save('\n')
				lx.incLine()
			case e < 0:
				// the loop reports it
			case isDigit51(e):
				v := 0
				for i := 0; i < 3 && isDigit51(lx.cur()); i++ {
					v = 10*v + lx.cur() - '0'
					lx.next()
				}
				if v > 255 {
					lx.lexError("escape sequence too large", tkString)
				}
				lx.save(v)
			default:
				lx.saveNext()
			}
		default:
			lx.saveNext()
		}
	}
	lx.saveNext()
}

func (lx *lexer51) readNumeral() {
	for isDigit51(lx.cur()) || lx.cur() == '.' {
		lx.saveNext()
	}
	if lx.checkNext("Ee") {
		lx.checkNext("+-")
	}
	for isAlnum51(lx.cur()) {
		lx.saveNext()
	}
	if !str2d51(string(lx.buf)) {
		lx.lexError("malformed number", tkNumber)
	}
}

// str2d51 is luaO_str2d's acceptance: strtod, or a 0x hex integer, with
// nothing but spaces after.
func str2d51(s string) bool {
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		// glibc's strtod reads hex floats too: 0x1.8p3.
		i, digits := 2, 0
		for i < len(s) && (isHex51(s[i]) || s[i] == '.') {
			if s[i] != '.' {
				digits++
			}
			i++
		}
		if i < len(s) && (s[i] == 'p' || s[i] == 'P') {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit51(int(s[j])) {
				for j < len(s) && isDigit51(int(s[j])) {
					j++
				}
				i = j
			}
		}
		return digits > 0 && i == len(s) && strings.Count(s, ".") <= 1
	}
	// What strtod accepts from a numeral (digits, dots, exponent, letters).
	i, digits := 0, 0
	for i < len(s) && isDigit51(int(s[i])) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit51(int(s[i])) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit51(int(s[j])) {
			for j < len(s) && isDigit51(int(s[j])) {
				j++
			}
			i = j
		}
	}
	if i == len(s) {
		return true
	}
	// strtod also reads "inf", "nan" and hex floats, which a numeral cannot
	// start with (it starts with a digit), except "0x" handled above.
	return false
}

// lex is llex: the next token.
func (lx *lexer51) lex() token51 {
	lx.buf = lx.buf[:0]
	for {
		c := lx.cur()
		switch {
		case c < 0:
			return token51{t: tkEOS}
		case isNewline51(c):
			lx.incLine()
		case isSpace51(c):
			lx.next()
		case c == '-':
			lx.next()
			if lx.cur() != '-' {
				return token51{t: '-'}
			}
			lx.next()
			if lx.cur() == '[' {
				sep := lx.skipSep()
				lx.buf = lx.buf[:0]
				if sep >= 0 {
					lx.readLongString(false, sep)
					lx.buf = lx.buf[:0]
					continue
				}
			}
			for c := lx.cur(); c >= 0 && !isNewline51(c); c = lx.cur() {
				lx.next()
			}
		case c == '[':
			sep := lx.skipSep()
			if sep >= 0 {
				lx.readLongString(true, sep)
				return token51{t: tkString, text: string(lx.buf)}
			} else if sep != -1 {
				lx.lexError("invalid long string delimiter", tkString)
			}
			return token51{t: '['}
		case c == '=' || c == '<' || c == '>' || c == '~':
			lx.next()
			if lx.cur() != '=' {
				return token51{t: c}
			}
			lx.next()
			return token51{t: map[int]int{'=': tkEq, '<': tkLe, '>': tkGe, '~': tkNe}[c]}
		case c == '"' || c == '\'':
			lx.readString(c)
			return token51{t: tkString, text: string(lx.buf)}
		case c == '.':
			lx.saveNext()
			if lx.checkNext(".") {
				if lx.checkNext(".") {
					return token51{t: tkDots}
				}
				return token51{t: tkConcat}
			}
			if !isDigit51(lx.cur()) {
				return token51{t: '.'}
			}
			lx.readNumeral()
			return token51{t: tkNumber, text: string(lx.buf)}
		case isDigit51(c):
			lx.readNumeral()
			return token51{t: tkNumber, text: string(lx.buf)}
		case isAlpha51(c):
			for isAlnum51(lx.cur()) {
				lx.saveNext()
			}
			if r, ok := reserved51[string(lx.buf)]; ok {
				return token51{t: r}
			}
			return token51{t: tkName, text: string(lx.buf)}
		default:
			lx.next()
			return token51{t: c}
		}
	}
}
