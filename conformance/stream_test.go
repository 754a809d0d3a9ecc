package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// Conformance of the stream family: every command, option and error path,
// RESP2 and RESP3, with explicit IDs so both servers hold the same stream.
// Time-dependent numbers (idle times, delivery and seen times, clock IDs)
// are compared loosely by timeLoose. The randomized differential test is
// in stream_random_test.go.

// timeLoose compares two replies exactly except integers, which may differ
// by tol when either is an idle time (below tol) or a Unix time in ms, and
// IDs "ms-seq" whose ms is a Unix time.
func timeLoose(tol int64) comparer {
	var cmp func(a, b *Reply) error
	cmp = func(a, b *Reply) error {
		if a.Type != b.Type || len(a.Elems) != len(b.Elems) || a.Null != b.Null {
			return fmt.Errorf("shapes differ: %q vs %q", a.Raw, b.Raw)
		}
		if a.Type == ':' {
			if d := a.Int - b.Int; a.Int != b.Int && (d > tol || -d > tol) {
				return fmt.Errorf("%d and %d differ by more than %d", a.Int, b.Int, tol)
			}
			return nil
		}
		if a.Type == '$' && a.Str != b.Str {
			ma, mb := clockID.FindStringSubmatch(a.Str), clockID.FindStringSubmatch(b.Str)
			if ma == nil || mb == nil {
				return fmt.Errorf("%q and %q differ", a.Str, b.Str)
			}
			x, _ := strconv.ParseInt(ma[1], 10, 64)
			y, _ := strconv.ParseInt(mb[1], 10, 64)
			if d := x - y; d > 5000 || -d > 5000 {
				return fmt.Errorf("IDs %q and %q differ", a.Str, b.Str)
			}
			return nil
		}
		for i := range a.Elems {
			if err := cmp(a.Elems[i], b.Elems[i]); err != nil {
				return err
			}
		}
		if len(a.Elems) == 0 && string(a.Raw) != string(b.Raw) {
			return fmt.Errorf("%q and %q differ", a.Raw, b.Raw)
		}
		return nil
	}
	return cmp
}

var clockID = regexp.MustCompile(`^(1[0-9]{12})-([0-9]+)$`)

// L is a step whose reply holds times: compared with timeLoose.
func L(args ...string) Cmd {
	c := C(args...)
	c.where = caller()
	return c.Check("timeLoose", timeLoose(200))
}

func xadds(key string, from, to int, fields ...string) []Cmd {
	var out []Cmd
	for i := from; i <= to; i++ {
		args := append([]string{"XADD", key, strconv.Itoa(i) + "-1"}, fields...)
		if len(fields) == 0 {
			args = append(args, "f", strconv.Itoa(i))
		}
		c := C(args...)
		c.where = caller()
		out = append(out, c)
	}
	return out
}

func xcat(parts ...[]Cmd) []Cmd {
	var out []Cmd
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestStreamAdd(t *testing.T) {
	runCases(t, []Case{
		{Name: "ids", Cmds: []Cmd{C("XADD", "s", "1-1", "a", "1", "b", "2"), C("XADD", "s", "1-*", "a", "1"), C("XADD", "s", "2", "c", "3"),
			C("XADD", "s", "0-0", "a", "1"), C("XADD", "n", "0-0", "a", "1"), C("EXISTS", "n"), C("XADD", "s", "1-1", "a", "1"), C("XADD", "s", "2-*", "a", "1"),
			C("XADD", "s", "18446744073709551615-18446744073709551614", "a", "1"), C("XADD", "s", "18446744073709551615-*", "a", "1"),
			C("XADD", "s", "18446744073709551615-*", "a", "1"), C("XADD", "s", "*", "a", "1"), C("XADD", "s", "18446744073709551616", "a", "1"),
			C("XADD", "s", "-", "a", "1"), C("XADD", "s", "+", "a", "1"), C("XADD", "s", "1-x", "a", "1"), C("XADD", "s", "x", "a", "1"), C("XADD", "s", "*-1", "a", "1"),
			C("XADD", "s", "-1", "a", "1"), C("XADD", "s", "00001-0001", "a", "1"), C("XRANGE", "s", "-", "+"), C("XLEN", "s"), C("XLEN", "nokey")}},
		{Name: "seq star", Cmds: []Cmd{C("XADD", "s", "5-*", "a", "1"), C("XADD", "s", "5-*", "a", "1"), C("XADD", "s", "4-*", "a", "1"), C("XADD", "s", "6-*", "a", "1"),
			C("XADD", "z", "0-*", "a", "1"), C("XRANGE", "s", "-", "+"), C("XRANGE", "z", "-", "+")}},
		{Name: "auto id", Cmds: []Cmd{L("XADD", "s", "*", "a", "1"), L("XADD", "s", "*", "a", "2"), C("XLEN", "s"), C("XADD", "f", "99999999999999-0", "x", "y"),
			C("XADD", "f", "*", "x", "y"), C("XRANGE", "f", "-", "+")}},
		{Name: "arity and syntax", Cmds: []Cmd{C("XADD", "s", "1-1"), C("XADD", "s", "1-1", "a"), C("XADD", "s", "1-1", "a", "1", "b"), C("XADD", "s"),
			C("XADD", "s", "*"), C("XADD", "s", "MAXLEN", "1-1", "a"), C("XADD", "s", "MAXLEN"), C("XADD", "s", "MAXLEN", "x", "1-1", "a", "b"),
			C("XADD", "s", "MAXLEN", "-1", "1-1", "a", "b"), C("XADD", "s", "MINID", "x", "1-1", "a", "b"), C("XADD", "s", "MAXLEN", "1", "MINID", "1", "1-1", "a", "b"),
			C("XADD", "s", "LIMIT", "1", "1-1", "a", "b"), C("XADD", "s", "MAXLEN", "1", "LIMIT", "1", "1-1", "a", "b"), C("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "1-1", "a", "b"),
			C("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "x", "1-1", "a", "b"), C("XADD", "s", "LIMIT", "0", "1-1", "a", "b"), C("XADD", "s", "NOMKSTREAM", "1-1", "a", "b"),
			C("XADD", "s", "MAXLEN", "=", "1-1", "a", "b"), C("XADD", "s", "MAXLEN", "~", "2-1", "a", "b"), C("XADD", "s", "MINID", "+", "3-1", "a", "b"),
			C("XADD", "s", "maxlen", "1", "nomkstream", "limit", "0", "4-1", "a", "b"), C("XRANGE", "s", "-", "+")}},
		{Name: "nomkstream", Cmds: []Cmd{C("XADD", "s", "NOMKSTREAM", "1-1", "a", "b"), C("EXISTS", "s"), C("XADD", "s", "1-1", "a", "b"), C("XADD", "s", "NOMKSTREAM", "2-1", "a", "b"),
			C("XADD", "s", "NOMKSTREAM", "*", "a", "b").Ignore(), C("XLEN", "s")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "k", "v"), C("XADD", "k", "1-1", "a", "b"), C("XADD", "k", "0-0", "a", "b"), C("XLEN", "k"), C("XRANGE", "k", "-", "+"),
			C("XREVRANGE", "k", "+", "-"), C("XDEL", "k", "1-1"), C("XTRIM", "k", "MAXLEN", "1"), C("XSETID", "k", "1-1"), C("XGROUP", "CREATE", "k", "g", "0"),
			C("XACK", "k", "g", "1-1"), C("XPENDING", "k", "g"), C("XCLAIM", "k", "g", "c", "0", "1-1"), C("XAUTOCLAIM", "k", "g", "c", "0", "0"),
			C("XINFO", "STREAM", "k"), C("XREAD", "STREAMS", "k", "0"), C("XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"),
			C("XADD", "s", "1-1", "a", "b"), C("LPUSH", "s", "x"), C("GET", "s"), C("TYPE", "s"), C("OBJECT", "ENCODING", "s")}},
		{Name: "binary fields", Cmds: []Cmd{C("XADD", "s", "1-1", "", "", "\x00\xff", "\r\n", "12", "-3", "9223372036854775808", "1.5"),
			C("XADD", "s", "2-1", "", "", "\x00\xff", "x", "12", "y", "9223372036854775808", "z"), C("XADD", "s", "3-1", "other", "v"), C("XRANGE", "s", "-", "+"),
			C("DEBUG", "DIGEST-VALUE", "s")}},
	})
}

func TestStreamRange(t *testing.T) {
	base := xcat(xadds("s", 1, 5), []Cmd{C("XADD", "s", "5-2", "g", "h", "i", "j")})
	runCases(t, []Case{
		{Name: "xrange", Cmds: append(base, C("XRANGE", "s", "-", "+"), C("XRANGE", "s", "2", "4"), C("XRANGE", "s", "2-1", "4-0"), C("XRANGE", "s", "(2-1", "+"),
			C("XRANGE", "s", "-", "(5-2"), C("XRANGE", "s", "(1", "(5"), C("XRANGE", "s", "5", "5"), C("XRANGE", "s", "4", "2"), C("XRANGE", "s", "-", "+", "COUNT", "2"),
			C("XRANGE", "s", "-", "+", "COUNT", "0"), C("XRANGE", "s", "-", "+", "COUNT", "-1"), C("XRANGE", "s", "-", "+", "count", "1", "COUNT", "3"),
			C("XRANGE", "s", "-", "+", "COUNT"), C("XRANGE", "s", "-", "+", "COUNT", "x"), C("XRANGE", "s", "-", "+", "LIMIT", "1"),
			C("XRANGE", "s", "(-", "+"), C("XRANGE", "s", "-", "(+"), C("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"),
			C("XRANGE", "s", "-", "(0-0"), C("XRANGE", "s", "(", "+"), C("XRANGE", "s", "x", "+"), C("XRANGE", "s", "-", "x"), C("XRANGE", "nokey", "-", "+"),
			C("XRANGE", "nokey", "x", "+"), C("XRANGE", "nokey", "-", "+", "COUNT", "0"), C("XRANGE", "s", "-"))},
		{Name: "xrevrange", Cmds: append(base, C("XREVRANGE", "s", "+", "-"), C("XREVRANGE", "s", "4", "2"), C("XREVRANGE", "s", "(5-2", "(1-1"),
			C("XREVRANGE", "s", "+", "-", "COUNT", "2"), C("XREVRANGE", "s", "2", "4"), C("XREVRANGE", "s", "5", "5"), C("XREVRANGE", "s", "x", "-"),
			C("XREVRANGE", "s", "+", "x"), C("XREVRANGE", "s", "+", "-", "COUNT", "0"), C("XREVRANGE", "nokey", "+", "-"))},
		{Name: "many nodes", Cmds: xcat(xadds("s", 1, 250), []Cmd{C("XRANGE", "s", "99", "102"), C("XREVRANGE", "s", "201", "199"), C("XLEN", "s"),
			C("XRANGE", "s", "-", "+", "COUNT", "3"), C("XREVRANGE", "s", "+", "-", "COUNT", "3"), C("XDEL", "s", "100-1", "101-1", "200-1"),
			C("XRANGE", "s", "99", "102"), C("XREVRANGE", "s", "201", "199"), C("XINFO", "STREAM", "s"), C("MEMORY", "USAGE", "s").Ignore()})},
	})
}

func TestStreamDelTrim(t *testing.T) {
	base := xadds("s", 1, 10)
	runCases(t, []Case{
		{Name: "xdel", Cmds: append(base, C("XDEL", "s", "1-1", "3-1", "99-1", "3-1"), C("XDEL", "s", "x"), C("XDEL", "s", "2-1", "x"), C("XRANGE", "s", "-", "+"),
			C("XDEL", "nokey", "x"), C("XDEL", "s", "-"), C("XDEL", "s", "+"), C("XINFO", "STREAM", "s"), C("XDEL", "s", "2-1", "4-1", "5-1", "6-1", "7-1", "8-1", "9-1", "10-1"),
			C("XLEN", "s"), C("EXISTS", "s"), C("XINFO", "STREAM", "s"), C("XDEL", "s"))},
		{Name: "xtrim", Cmds: append(base, C("XTRIM", "s", "MAXLEN", "8"), C("XTRIM", "s", "MAXLEN", "=", "7"), C("XTRIM", "s", "MINID", "6"), C("XTRIM", "s", "MINID", "=", "7-1"),
			C("XTRIM", "s", "MAXLEN", "~", "1"), C("XTRIM", "s", "MINID", "~", "9"), C("XRANGE", "s", "-", "+"), C("XTRIM", "s", "MAXLEN", "100"),
			C("XTRIM", "s"), C("XTRIM", "s", "LIMIT", "1"), C("XTRIM", "s", "FOO", "1"), C("XTRIM", "s", "MAXLEN", "1", "LIMIT", "1"),
			C("XTRIM", "s", "MAXLEN", "~", "1", "LIMIT", "1"), C("XTRIM", "s", "MAXLEN", "-1"), C("XTRIM", "s", "MINID", "x"), C("XTRIM", "s", "MINID", "-"),
			C("XTRIM", "s", "MAXLEN", "1", "MINID", "1"), C("XTRIM", "nokey", "MAXLEN", "1"), C("XTRIM", "nokey", "FOO"), C("XTRIM", "s", "MAXLEN", "0"),
			C("EXISTS", "s"), C("XINFO", "STREAM", "s"))},
		{Name: "approx trims nodes", Cmds: xcat(xadds("s", 1, 350), []Cmd{C("XTRIM", "s", "MAXLEN", "~", "120"), C("XLEN", "s"), C("XTRIM", "s", "MAXLEN", "~", "10", "LIMIT", "50"),
			C("XTRIM", "s", "MAXLEN", "~", "10", "LIMIT", "100"), C("XLEN", "s"), C("XTRIM", "s", "MINID", "~", "330"), C("XINFO", "STREAM", "s"),
			C("XADD", "s", "MAXLEN", "~", "0", "400-1", "a", "b"), C("XLEN", "s"), C("XADD", "s", "MINID", "~", "400", "LIMIT", "0", "401-1", "a", "b"), C("XLEN", "s")})},
		{Name: "node limits", Cmds: xcat([]Cmd{C("CONFIG", "SET", "stream-node-max-entries", "3"), C("CONFIG", "GET", "stream-node-max-*").PairsUnordered()}, xadds("s", 1, 10),
			[]Cmd{C("XINFO", "STREAM", "s"), C("XTRIM", "s", "MAXLEN", "~", "5"), C("XINFO", "STREAM", "s"), C("CONFIG", "SET", "stream-node-max-bytes", "60"),
				C("XADD", "s", "20-1", "field", "a-rather-long-value-here"), C("XADD", "s", "21-1", "field", "a-rather-long-value-here"), C("XINFO", "STREAM", "s"),
				C("CONFIG", "SET", "stream-node-max-entries", "0"), C("CONFIG", "SET", "stream-node-max-bytes", "0"), C("XADD", "s", "22-1", "a", "b"),
				C("XADD", "s", "23-1", "a", "b"), C("XINFO", "STREAM", "s"), C("CONFIG", "SET", "stream-node-max-entries", "-1"), C("CONFIG", "SET", "stream-node-max-bytes", "1x"),
				C("CONFIG", "SET", "stream-node-max-bytes", "1kb"), C("CONFIG", "GET", "stream-node-max-bytes"),
				C("CONFIG", "SET", "stream-node-max-entries", "100"), C("CONFIG", "SET", "stream-node-max-bytes", "4096")})},
	})
}

func TestStreamSetID(t *testing.T) {
	base := xadds("s", 1, 3)
	runCases(t, []Case{
		{Name: "xsetid", Cmds: append(base, C("XSETID", "s", "5-0"), C("XINFO", "STREAM", "s"), C("XSETID", "s", "2-0"), C("XSETID", "s", "3-1"),
			C("XSETID", "s", "10-0", "ENTRIESADDED", "2"), C("XSETID", "s", "10-0", "ENTRIESADDED", "20", "MAXDELETEDID", "4-0"), C("XINFO", "STREAM", "s"),
			C("XSETID", "s", "10-0", "MAXDELETEDID", "11-0"), C("XSETID", "s", "10-0", "ENTRIESADDED", "-1"), C("XSETID", "s", "10-0", "ENTRIESADDED", "x"),
			C("XSETID", "s", "10-0", "FOO"), C("XSETID", "s", "10-0", "ENTRIESADDED"), C("XSETID", "s", "x"), C("XSETID", "s", "-"), C("XSETID", "nokey", "1-1"),
			C("XSETID", "nokey", "x"), C("XSETID", "nokey", "1-1", "MAXDELETEDID", "2-2"), C("XADD", "s", "9-0", "a", "b"), C("XADD", "s", "10-*", "a", "b"),
			C("XDEL", "s", "1-1", "2-1", "3-1", "10-1"), C("XSETID", "s", "0-1"), C("XINFO", "STREAM", "s"),
			C("XSETID", "s", "18446744073709551615-18446744073709551615"), C("XADD", "s", "*", "a", "b"), C("XADD", "s", "1-1", "a", "b"))},
	})
}
