package zset

import (
	"errors"
	"math"

	"github.com/limitkv/limitkv/internal/num"
)

// Errors of the range parsers; the command layer replies them as Redis does.
var (
	// ErrNotFloat is "ERR min or max is not a float".
	ErrNotFloat = errors.New("min or max is not a float")
	// ErrNotLexItem is "ERR min or max not valid string range item".
	ErrNotLexItem = errors.New("min or max not valid string range item")
)

// ScoreRange is a ZRANGEBYSCORE interval: Min <= score <= Max, with either
// end open when MinEx/MaxEx.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// AllScores is the range "-inf +inf".
var AllScores = ScoreRange{Min: math.Inf(-1), Max: math.Inf(1)}

// ParseScoreRange is Redis's zslParseRange: each bound is an optional '('
// (open end) followed by what bare strtod accepts up to the end or the
// first NUL byte. So, as in Redis 7.0, "" and "(" mean 0, leading
// whitespace is skipped (" 1"), and overflow/underflow give ±inf/0
// ("1e400"); "((1", "1 ", "nan" and "(nan" are errors.
func ParseScoreRange(min, max []byte) (ScoreRange, error) {
	var r ScoreRange
	var ok bool
	if r.Min, r.MinEx, ok = parseScoreBound(min); !ok {
		return ScoreRange{}, ErrNotFloat
	}
	if r.Max, r.MaxEx, ok = parseScoreBound(max); !ok {
		return ScoreRange{}, ErrNotFloat
	}
	return r, nil
}

func parseScoreBound(b []byte) (float64, bool, bool) {
	ex := len(b) > 0 && b[0] == '('
	if ex {
		b = b[1:]
	}
	f, ok := num.ParseStrtod(b)
	return f, ex, ok
}

// Empty reports whether no score can be in the range (Redis's first test
// in zslIsInRange: min > max, or min == max with an open end).
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// Contains reports whether score lies in the range.
func (r ScoreRange) Contains(score float64) bool {
	return r.gteMin(score) && r.lteMax(score)
}

func (r ScoreRange) gteMin(score float64) bool {
	if r.MinEx {
		return score > r.Min
	}
	return score >= r.Min
}

func (r ScoreRange) lteMax(score float64) bool {
	if r.MaxEx {
		return score < r.Max
	}
	return score <= r.Max
}

// LexKind tells what a LexBound is.
type LexKind uint8

const (
	// LexValue is a string bound, "[x" (inclusive) or "(x" (exclusive).
	LexValue LexKind = iota
	// LexMinusInf is "-": below every string.
	LexMinusInf
	// LexPlusInf is "+": above every string.
	LexPlusInf
)

// LexBound is one end of a LexRange.
type LexBound struct {
	Kind  LexKind
	Value string // for LexValue
	Ex    bool   // exclusive; always true for "-" and "+", as in Redis
}

// LexRange is a ZRANGEBYLEX interval. As in Redis, lex ranges are only
// meaningful when all members have the same score; otherwise the result is
// unspecified (but well defined: see Set.RangeByLex).
type LexRange struct {
	Min, Max LexBound
}

// AllLex is the range "- +".
var AllLex = LexRange{Min: LexBound{Kind: LexMinusInf, Ex: true}, Max: LexBound{Kind: LexPlusInf, Ex: true}}

// ParseLexRange is Redis's zslParseLexRange: each bound is "-", "+",
// "[value" or "(value" (value may be empty: "[" is the empty string).
// Like Redis (which checks the byte after the sign as a C string), "+" and
// "-" may be followed by a NUL byte and anything after it.
func ParseLexRange(min, max []byte) (LexRange, error) {
	var r LexRange
	var ok bool
	if r.Min, ok = parseLexBound(min); !ok {
		return LexRange{}, ErrNotLexItem
	}
	if r.Max, ok = parseLexBound(max); !ok {
		return LexRange{}, ErrNotLexItem
	}
	return r, nil
}

func parseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '+':
		if len(b) > 1 && b[1] != 0 {
			return LexBound{}, false
		}
		return LexBound{Kind: LexPlusInf, Ex: true}, true
	case '-':
		if len(b) > 1 && b[1] != 0 {
			return LexBound{}, false
		}
		return LexBound{Kind: LexMinusInf, Ex: true}, true
	case '(':
		return LexBound{Value: string(b[1:]), Ex: true}, true
	case '[':
		return LexBound{Value: string(b[1:])}, true
	}
	return LexBound{}, false
}

// cmpBounds is Redis's sdscmplex on two bounds.
func cmpBounds(a, b LexBound) int {
	switch {
	case a.Kind == b.Kind && a.Kind != LexValue:
		return 0
	case a.Kind == LexMinusInf || b.Kind == LexPlusInf:
		return -1
	case a.Kind == LexPlusInf || b.Kind == LexMinusInf:
		return 1
	case a.Value < b.Value:
		return -1
	case a.Value > b.Value:
		return 1
	}
	return 0
}

// Empty reports whether no string can be in the range (Redis's first test
// in zslIsInLexRange).
func (r LexRange) Empty() bool {
	c := cmpBounds(r.Min, r.Max)
	return c > 0 || (c == 0 && (r.Min.Ex || r.Max.Ex))
}

// Contains reports whether member lies in the range.
func (r LexRange) Contains(member string) bool {
	return r.gteMin(member) && r.lteMax(member)
}

func (r LexRange) gteMin(m string) bool {
	switch r.Min.Kind {
	case LexMinusInf:
		return true
	case LexPlusInf:
		return false
	}
	if r.Min.Ex {
		return m > r.Min.Value
	}
	return m >= r.Min.Value
}

func (r LexRange) lteMax(m string) bool {
	switch r.Max.Kind {
	case LexPlusInf:
		return true
	case LexMinusInf:
		return false
	}
	if r.Max.Ex {
		return m < r.Max.Value
	}
	return m <= r.Max.Value
}
