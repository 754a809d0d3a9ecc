package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The HyperLogLog family: the stored strings must be Redis's byte for byte
// (GET after every write), PFCOUNT's estimate and cached cardinality too.

// hlElems is PFADD k with n elements named prefix0, prefix1, ...
func hlElems(key, prefix string, from, n int) Cmd {
	args := []string{"PFADD", key}
	for i := from; i < from+n; i++ {
		args = append(args, prefix+strconv.Itoa(i))
	}
	return C(args...)
}

// hlAddAndCheck adds n elements in batches of batch, comparing the reply,
// the stored bytes, the encoding and the count after each batch.
func hlAddAndCheck(key, prefix string, n, batch int) []Cmd {
	var cmds []Cmd
	for i := 0; i < n; i += batch {
		b := min(batch, n-i)
		cmds = append(cmds, hlElems(key, prefix, i, b), C("GET", key), C("PFDEBUG", "ENCODING", key))
	}
	return append(cmds, C("PFCOUNT", key), C("GET", key), C("OBJECT", "ENCODING", key))
}

// hlHeader is an HLL header with the given encoding byte and a valid cached
// cardinality of 0.
func hlHeader(enc byte) string { return "HYLL" + string([]byte{enc, 0, 0, 0}) + strings.Repeat("\x00", 8) }

// hlStale is hlHeader with the cache marked stale.
func hlStale(enc byte) string {
	return "HYLL" + string([]byte{enc, 0, 0, 0}) + strings.Repeat("\x00", 7) + "\x80"
}

// hlDense is a hand-made dense value whose registers all hold v.
func hlDense(v byte, stale bool) string {
	var regs []byte
	for i := 0; i < 16384; i += 4 {
		// four 6-bit registers in three bytes, low bits first
		x := uint32(v) | uint32(v)<<6 | uint32(v)<<12 | uint32(v)<<18
		regs = append(regs, byte(x), byte(x>>8), byte(x>>16))
	}
	h := hlHeader(0)
	if stale {
		h = hlStale(0)
	}
	return h + string(regs)
}

func TestHLLPFAdd(t *testing.T) {
	runCases(t, []Case{
		{Name: "create empty", Cmds: []Cmd{C("PFADD", "k"), C("GET", "k"), C("TYPE", "k"), C("OBJECT", "ENCODING", "k"),
			C("PFADD", "k"), C("GET", "k"), C("PFCOUNT", "k"), C("GET", "k"), C("PFADD", "k"), C("GET", "k")}},
		{Name: "one element", Cmds: []Cmd{C("PFADD", "k", "a"), C("GET", "k"), C("PFADD", "k", "a"), C("PFCOUNT", "k"), C("GET", "k"),
			C("PFADD", "k", "a"), C("GET", "k"), C("PFADD", "k", "b"), C("GET", "k"), C("PFCOUNT", "k")}},
		{Name: "binary and empty elements", Cmds: []Cmd{C("PFADD", "k", "", "\x00", "\xff\r\n", strings.Repeat("x", 1000)), C("GET", "k"), C("PFCOUNT", "k")}},
		{Name: "hash tail lengths", Cmds: []Cmd{C("PFADD", "k", "1", "12", "123", "1234", "12345", "123456", "1234567", "12345678", "123456789",
			"1234567890abcdef", "1234567890abcdefg"), C("GET", "k"), C("PFDEBUG", "DECODE", "k")}},
		{Name: "small", Cmds: hlAddAndCheck("k", "e", 100, 7)},
		{Name: "around the sparse limit", Cmds: hlAddAndCheck("k", "x", 2500, 100)},
		{Name: "to dense one by one near the limit", Cmds: append(append([]Cmd{hlElems("k", "x", 0, 1500)}, hlAddAndCheck("k", "y", 300, 1)...), C("PFDEBUG", "ENCODING", "k"))},
		{Name: "dense", Cmds: hlAddAndCheck("k", "d", 20000, 5000)},
		{Name: "arity", Cmds: []Cmd{C("PFADD"), C("EXISTS", "k")}},
		{Name: "wrong types", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("PFADD", "z", "a"), C("SET", "s", "hello"), C("PFADD", "s", "a"),
			C("SET", "i", "12345678901234567"), C("PFADD", "i", "a"), C("SET", "n", "1"), C("PFADD", "n"), C("GET", "s")}},
		{Name: "ttl kept", Cmds: []Cmd{C("PFADD", "k", "a"), C("EXPIRE", "k", "100"), C("PFADD", "k", "b", "c"), C("TTL", "k").TTLApprox(1),
			C("PFCOUNT", "k"), C("TTL", "k").TTLApprox(1)}},
		{Name: "set then pfadd", Cmds: []Cmd{C("PFADD", "src", "a", "b"), C("GET", "src"), C("DEL", "src"), C("PFADD", "src", "a"), C("GET", "src"),
			C("SET", "k", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"), C("OBJECT", "ENCODING", "k"), C("PFADD", "k", "a"),
			C("OBJECT", "ENCODING", "k"), C("GET", "k"), C("APPEND", "k", ""), C("PFADD", "k", "zz"), C("GET", "k")}},
	})
}

func TestHLLPFCount(t *testing.T) {
	runCases(t, []Case{
		{Name: "missing and arity", Cmds: []Cmd{C("PFCOUNT", "k"), C("PFCOUNT", "k", "j"), C("PFCOUNT")}},
		{Name: "cache written", Cmds: []Cmd{hlElems("k", "a", 0, 50), C("GET", "k"), C("PFCOUNT", "k"), C("GET", "k"), C("PFCOUNT", "k")}},
		{Name: "embstr becomes raw", Cmds: []Cmd{C("SET", "k", hlHeader(1) + "\x7f\xff"), C("OBJECT", "ENCODING", "k"), C("PFCOUNT", "k"),
			C("OBJECT", "ENCODING", "k"), C("SET", "j", hlHeader(1)+"\x7f\xff"), C("PFCOUNT", "j", "k"), C("OBJECT", "ENCODING", "j")}},
		{Name: "several keys", Cmds: []Cmd{hlElems("a", "x", 0, 300), hlElems("b", "x", 200, 300), hlElems("c", "y", 0, 5000),
			C("PFCOUNT", "a", "b"), C("PFCOUNT", "a", "b", "c"), C("PFCOUNT", "a", "nokey"), C("PFCOUNT", "nokey", "nokey2"),
			C("GET", "a"), C("GET", "b"), C("PFCOUNT", "a", "a")}},
		{Name: "several keys wrong type", Cmds: []Cmd{C("PFADD", "a", "x"), C("SET", "s", "x"), C("ZADD", "z", "1", "a"),
			C("PFCOUNT", "a", "s"), C("PFCOUNT", "a", "z"), C("PFCOUNT", "z", "s")}},
		{Name: "stale cache in a hand-made value", Cmds: []Cmd{C("SET", "k", hlStale(1)+"\x7f\xff"), C("PFCOUNT", "k"), C("GET", "k"),
			C("SET", "k", hlHeader(1)[:8]+"\x2a\x00\x00\x00\x00\x00\x00\x00"+"\x7f\xff"), C("PFCOUNT", "k"), C("GET", "k")}},
		{Name: "dense hand-made", Cmds: []Cmd{
			C("SET", "d0", hlDense(0, true)), C("PFCOUNT", "d0"), C("SET", "d1", hlDense(1, true)), C("PFCOUNT", "d1"),
			C("SET", "d5", hlDense(5, true)), C("PFCOUNT", "d5"), C("SET", "d20", hlDense(20, true)), C("PFCOUNT", "d20"),
			C("SET", "d50", hlDense(50, true)), C("PFCOUNT", "d50"),
			C("SET", "d51", hlDense(51, true)), C("PFCOUNT", "d51"), C("GETRANGE", "d51", "0", "15"), C("PFCOUNT", "d51"),
			C("SET", "d63", hlDense(63, true)), C("PFCOUNT", "d63"), C("PFCOUNT", "d63", "d0"), C("PFCOUNT", "d20", "d5"),
			C("PFDEBUG", "GETREG", "d63").Check("GETREG", hlSameRegs)}},
	})
}

// hlSameRegs compares GETREG replies without printing 16384 lines on a
// mismatch.
func hlSameRegs(rds, lkv *Reply) error {
	if string(rds.Raw) != string(lkv.Raw) {
		return fmt.Errorf("registers differ")
	}
	return nil
}
