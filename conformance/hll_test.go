package conformance

import (
	"fmt"
	"os"
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
func hlHeader(enc byte) string {
	return "HYLL" + string([]byte{enc, 0, 0, 0}) + strings.Repeat("\x00", 8)
}

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
		{Name: "embstr becomes raw", Cmds: []Cmd{C("SET", "k", hlHeader(1)+"\x7f\xff"), C("OBJECT", "ENCODING", "k"), C("PFCOUNT", "k"),
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

// hlMany is PFADD key with the elements s0..s(n-1) of several prefixes, so
// that whatever registers a corrupt body covers, some land in it.
func hlMany(key string) []Cmd {
	var cmds []Cmd
	for _, p := range []string{"a", "b", "c"} {
		cmds = append(cmds, hlElems(key, p, 0, 5), C("GET", key))
	}
	return cmds
}

// Corrupt sparse bodies (the header is valid, so only a decode notices).
var hlCorrupt = []struct{ name, body string }{
	{"no registers", ""},
	{"one short", "\x7f\xfe"},                  // XZERO:16383
	{"one over", "\x7f\xff\x00"},               // XZERO:16384 ZERO:1
	{"val overflow", "\x7f\xfe\x83"},           // XZERO:16383 VAL:1,4
	{"val past the end", "\x7f\xff\x80"},       // a VAL after all registers
	{"lone xzero byte", "\x40\xfe\x7f"},        // XZERO:255 then half an XZERO: 16129 with the NUL
	{"lone xzero short", "\x40\x10\x7f"},       // the same, covering too few
	{"zero runs", strings.Repeat("\x3f", 256)}, // 256 ZERO:64, valid
	{"val runs", strings.Repeat("\x83", 4096)}, // 4096 VAL:1,4, valid and already over the limit
	{"mergeable vals", "\x80\x80\x84\x84" + "\x7f\xfb"},
	{"many zero then short", strings.Repeat("\x3f", 255) + "\x3e"},
}

func TestHLLInvalid(t *testing.T) {
	cases := []Case{
		{Name: "bad headers", Cmds: []Cmd{
			C("SET", "k", "HYLL"), C("PFADD", "k", "a"), C("PFCOUNT", "k"), C("PFCOUNT", "k", "k"), C("PFMERGE", "d", "k"), C("EXISTS", "d"),
			C("PFDEBUG", "ENCODING", "k"), C("OBJECT", "ENCODING", "k"),
			C("SET", "k", hlHeader(1)[:15]), C("PFADD", "k", "a"),
			C("SET", "k", "HYLX"+hlHeader(1)[4:]+"\x7f\xff"), C("PFADD", "k", "a"), C("PFCOUNT", "k"),
			C("SET", "k", "hyll"+hlHeader(1)[4:]+"\x7f\xff"), C("PFCOUNT", "k"),
			C("SET", "k", hlHeader(2)+"\x7f\xff"), C("PFADD", "k", "a"), C("PFCOUNT", "k"),
			C("SET", "k", hlHeader(255)+"\x7f\xff"), C("PFCOUNT", "k"),
			C("SET", "k", hlHeader(0)+"\x7f\xff"), C("PFADD", "k", "a"), C("PFCOUNT", "k"),
			C("SET", "k", hlDense(1, true)[:12303]), C("PFCOUNT", "k"), C("PFADD", "k", "a"),
			C("SET", "k", hlDense(1, true)+"x"), C("PFCOUNT", "k"), C("PFMERGE", "k"),
			C("SET", "k", "1234567890123456789"), C("PFCOUNT", "k"), C("OBJECT", "ENCODING", "k"),
			C("SET", "k", hlHeader(1)+"\x7f\xff"), C("SETRANGE", "k", "5", "\x01\x02\x03"), C("PFADD", "k", "a"), C("GET", "k"),
		}},
		{Name: "truncated dense after conversion", Cmds: []Cmd{hlElems("k", "x", 0, 3000), C("PFDEBUG", "ENCODING", "k"),
			C("SETRANGE", "k", "12304", "x"), C("PFCOUNT", "k"), C("GETRANGE", "k", "0", "15")}},
	}
	for _, c := range hlCorrupt {
		v := hlStale(1) + c.body
		cmds := []Cmd{C("SET", "k", v), C("PFCOUNT", "k"), C("GET", "k"), C("PFDEBUG", "DECODE", "k"),
			C("PFCOUNT", "k", "nokey"), C("PFMERGE", "d", "k"), C("EXISTS", "d"), C("PFMERGE", "k"), C("GET", "k")}
		cmds = append(cmds, hlMany("k")...)
		cmds = append(cmds, C("PFCOUNT", "k"), C("GET", "k"), C("PFDEBUG", "TODENSE", "k"), C("GET", "k"))
		cmds = append(cmds, C("SET", "k", v), C("PFDEBUG", "GETREG", "k").Check("GETREG", hlSameRegs), C("GET", "k"),
			C("SET", "k", v), C(append([]string{"PFADD", "k"}, hlManyElems(3000)...)...), C("GET", "k"))
		cmds = append(cmds, C("SET", "k", v), C("CONFIG", "SET", "hll-sparse-max-bytes", "20"), C("PFADD", "k", "a", "b", "c", "d"), C("GET", "k"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "3000"))
		cases = append(cases, Case{Name: "corrupt " + c.name, Cmds: cmds})
	}
	runCases(t, cases)
	resetHLLConfig(t)
}

func hlManyElems(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "m" + strconv.Itoa(i)
	}
	return out
}

// resetHLLConfig puts hll-sparse-max-bytes back on both servers after a
// test that changed it and may have stopped midway.
func resetHLLConfig(t *testing.T) {
	rds, lkv := dialPair(t)
	rds.MustDo(t, "CONFIG", "SET", "hll-sparse-max-bytes", "3000")
	lkv.MustDo(t, "CONFIG", "SET", "hll-sparse-max-bytes", "3000")
}

func TestHLLPFMerge(t *testing.T) {
	runCases(t, []Case{
		{Name: "empty", Cmds: []Cmd{C("PFMERGE", "d"), C("GET", "d"), C("OBJECT", "ENCODING", "d"), C("PFMERGE", "d", "nokey"), C("GET", "d"),
			C("PFCOUNT", "d"), C("GET", "d"), C("PFMERGE", "d"), C("GET", "d"), C("PFMERGE")}},
		{Name: "sparse", Cmds: []Cmd{hlElems("a", "x", 0, 100), hlElems("b", "x", 50, 100), C("PFMERGE", "d", "a", "b"), C("GET", "d"),
			C("PFCOUNT", "d"), C("PFMERGE", "d", "a"), C("GET", "d"), C("PFMERGE", "a", "b"), C("GET", "a"), C("GET", "b")}},
		{Name: "sparse past the limit", Cmds: []Cmd{hlElems("a", "x", 0, 1000), hlElems("b", "y", 0, 1000), C("PFMERGE", "d", "a", "b"),
			C("GET", "d"), C("PFDEBUG", "ENCODING", "d"), C("PFCOUNT", "d"), C("PFCOUNT", "a", "b")}},
		{Name: "sparse and dense", Cmds: []Cmd{hlElems("a", "x", 0, 100), hlElems("b", "y", 0, 4000), C("PFMERGE", "d", "a", "b"), C("GET", "d"),
			C("PFMERGE", "a", "b"), C("GET", "a"), C("PFCOUNT", "a"), C("PFMERGE", "e", "a", "d", "nokey"), C("GET", "e")}},
		{Name: "dense into existing sparse dest", Cmds: []Cmd{hlElems("d", "x", 0, 10), hlElems("b", "y", 0, 4000), C("PFMERGE", "d", "b"), C("GET", "d")}},
		{Name: "high registers", Cmds: []Cmd{C("SET", "h", hlDense(40, false)), hlElems("s", "x", 0, 10), C("PFMERGE", "s", "h"), C("GET", "s"),
			C("PFMERGE", "t", "h"), C("GET", "t"), C("PFCOUNT", "t")}},
		{Name: "dest keeps ttl", Cmds: []Cmd{hlElems("d", "x", 0, 10), C("EXPIRE", "d", "100"), hlElems("a", "y", 0, 10), C("PFMERGE", "d", "a"),
			C("TTL", "d").TTLApprox(1), C("GET", "d")}},
		{Name: "wrong types", Cmds: []Cmd{C("SET", "s", "x"), C("ZADD", "z", "1", "a"), hlElems("a", "x", 0, 10),
			C("PFMERGE", "d", "a", "s"), C("EXISTS", "d"), C("PFMERGE", "d", "z", "a"), C("PFMERGE", "s", "a"), C("PFMERGE", "z", "a"), C("GET", "s"),
			C("PFMERGE", "d", "a", "nokey", "s")}},
		{Name: "hand-made sparse dest", Cmds: []Cmd{C("SET", "d", hlHeader(1)+strings.Repeat("\x3f", 256)), hlElems("a", "x", 0, 30),
			C("PFMERGE", "d", "a"), C("GET", "d"), C("OBJECT", "ENCODING", "d")}},
	})
}

func TestHLLPFDebug(t *testing.T) {
	runCases(t, []Case{
		{Name: "sparse", Cmds: []Cmd{hlElems("k", "x", 0, 20), C("PFDEBUG", "ENCODING", "k"), C("PFDEBUG", "DECODE", "k"),
			C("PFDEBUG", "decode", "k"), C("PFDEBUG", "GETREG", "k"), C("PFDEBUG", "ENCODING", "k"), C("GET", "k"), C("PFDEBUG", "DECODE", "k")}},
		{Name: "todense", Cmds: []Cmd{hlElems("k", "x", 0, 20), C("PFCOUNT", "k"), C("PFDEBUG", "TODENSE", "k"), C("GET", "k"),
			C("PFDEBUG", "TODENSE", "k"), C("PFCOUNT", "k"), hlElems("k", "y", 0, 20), C("PFCOUNT", "k"), C("GET", "k")}},
		{Name: "empty decode", Cmds: []Cmd{C("SET", "k", hlHeader(1)), C("PFDEBUG", "DECODE", "k"), C("SET", "k", hlHeader(1)+"\x7f"), C("PFDEBUG", "DECODE", "k")}},
		{Name: "errors", Cmds: []Cmd{C("PFDEBUG", "GETREG", "nokey"), C("PFDEBUG", "nosuch", "nokey"), C("SET", "s", "x"), C("PFDEBUG", "ENCODING", "s"),
			C("ZADD", "z", "1", "a"), C("PFDEBUG", "ENCODING", "z"), C("PFADD", "k"), C("PFDEBUG", "nosuch", "k"), C("PFDEBUG", "no\r\nsuch", "k"),
			C("PFDEBUG", "getreg\x00x", "k").Check("GETREG", hlSameRegs), C("PFDEBUG", "x\x00y", "k"), C("PFDEBUG", "GETREG"), C("PFDEBUG", "GETREG", "k", "x"),
			C("PFDEBUG"), C("PFDEBUG", "ENCODING", "k"), C("SET", "e", hlHeader(1)+"\x7f\xff"), C("OBJECT", "ENCODING", "e"), C("PFDEBUG", "nosuch", "e"),
			C("OBJECT", "ENCODING", "e"), hlElems("k", "d", 0, 5000), C("PFDEBUG", "DECODE", "k")}},
	})
	selftest := Case{Name: "selftest", Cmds: []Cmd{C("PFSELFTEST").Timeout(60e9), C("PFSELFTEST", "x")}}
	if hlRace {
		selftest.Skip = "not a divergence: PFSELFTEST's ten million additions take too long under the race detector"
	}
	runCases(t, []Case{selftest})
}

func TestHLLConfig(t *testing.T) {
	runCases(t, []Case{
		{Name: "get set", Cmds: []Cmd{C("CONFIG", "GET", "hll-sparse-max-bytes"), C("CONFIG", "GET", "hll*"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "-1"), C("CONFIG", "SET", "hll-sparse-max-bytes", "x"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "1kb"), C("CONFIG", "GET", "hll-sparse-max-bytes"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "0"), hlElems("k", "x", 0, 1), C("GET", "k"), C("PFDEBUG", "ENCODING", "k"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "100"), hlElems("j", "x", 0, 30), C("GET", "j"), C("PFDEBUG", "ENCODING", "j"),
			hlElems("m", "x", 0, 1), C("PFMERGE", "m", "j"), C("GET", "m"),
			C("CONFIG", "SET", "hll-sparse-max-bytes", "3000"), C("CONFIG", "GET", "hll-sparse-max-bytes")}},
	})
	resetHLLConfig(t)
}

// hlWatchCase is zsWatchCase for HLL keys.
func hlWatchCase(name string, setup []Cmd, between ...Cmd) Case {
	return zsWatchCase(name, setup, between...)
}

func TestHLLWatch(t *testing.T) {
	h := []Cmd{C("PFADD", "k", "a", "b")}
	counted := []Cmd{C("PFADD", "k", "a", "b"), C("PFCOUNT", "k")}
	runCases(t, []Case{
		hlWatchCase("pfadd creates", nil, C("PFADD", "k")),
		hlWatchCase("pfadd changes", h, C("PFADD", "k", "c")),
		hlWatchCase("pfadd no change", h, C("PFADD", "k", "a")),
		hlWatchCase("pfadd nothing", h, C("PFADD", "k")),
		hlWatchCase("pfadd error", []Cmd{C("SET", "k", "x")}, C("PFADD", "k", "a")),
		hlWatchCase("pfadd corrupt", []Cmd{C("SET", "k", hlHeader(1))}, C("PFADD", "k", "a")),
		hlWatchCase("pfcount stale", h, C("PFCOUNT", "k")),
		hlWatchCase("pfcount cached", counted, C("PFCOUNT", "k")),
		hlWatchCase("pfcount several", h, C("PFCOUNT", "k", "d")),
		hlWatchCase("pfcount missing", nil, C("PFCOUNT", "k")),
		hlWatchCase("pfmerge dest", h, C("PFMERGE", "k")),
		hlWatchCase("pfmerge dest unchanged", counted, C("PFMERGE", "k", "k")),
		hlWatchCase("pfmerge source only", h, C("PFMERGE", "x", "k")),
		hlWatchCase("pfmerge error", append(h, C("SET", "x", "y")), C("PFMERGE", "k", "x")),
		hlWatchCase("pfdebug todense", h, C("PFDEBUG", "TODENSE", "k")),
		hlWatchCase("pfdebug getreg", h, C("PFDEBUG", "GETREG", "k").Check("GETREG", hlSameRegs)),
		hlWatchCase("pfdebug encoding", h, C("PFDEBUG", "ENCODING", "k")),
	})
}

func TestHLLMultiEval(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("PFADD", "k", "a", "b"), C("PFCOUNT", "k"), C("PFADD", "j", "c"), C("PFMERGE", "d", "k", "j"),
			C("PFCOUNT", "d"), C("SET", "s", "x"), C("PFADD", "s", "a"), C("GET", "d"), C("EXEC"), C("GET", "k")}},
		{Name: "multi arity", Cmds: []Cmd{C("MULTI"), C("PFADD"), C("EXEC")}},
		{Name: "eval", Cmds: []Cmd{
			C("EVAL", "redis.call('PFADD', KEYS[1], 'a', 'b', 'c'); return redis.call('PFCOUNT', KEYS[1])", "1", "k"), C("GET", "k"),
			C("EVAL", "return redis.call('PFADD', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.call('PFMERGE', KEYS[1], KEYS[2])", "2", "d", "k"), C("GET", "d"),
			C("SET", "s", "x"), C("EVAL", "return redis.pcall('PFADD', KEYS[1], 'a')", "1", "s"),
			C("EVAL", "return redis.call('PFCOUNT', KEYS[1])", "1", "s"),
			C("SET", "c", hlHeader(1)), C("EVAL", "return redis.pcall('PFCOUNT', KEYS[1])", "1", "c"),
			C("EVAL", "return redis.call('GET', KEYS[1])", "1", "k"),
			C("EVAL_RO", "return redis.call('PFCOUNT', KEYS[1])", "1", "k"),
			C("EVAL_RO", "return redis.call('PFADD', KEYS[1], 'z')", "1", "k"),
			C("EVAL", "return redis.call('PFDEBUG', 'ENCODING', KEYS[1])", "1", "k"),
			C("EVAL", "#!lua flags=no-writes\nreturn redis.call('PFCOUNT', KEYS[1])", "1", "k"),
			C("EVAL", "#!lua\nreturn redis.call('PFCOUNT', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.pcall('PFCOUNT', KEYS[1], 'nokey', KEYS[1])", "1", "k"),
		}},
		{Name: "del set interplay", Cmds: []Cmd{hlElems("k", "x", 0, 10), C("DEL", "k"), C("PFCOUNT", "k"), C("PFADD", "k", "x0"), C("GET", "k"),
			C("SET", "k", "plain"), C("PFADD", "k", "a"), C("PFCOUNT", "k"), C("DEL", "k"), C("PFMERGE", "k"), C("GET", "k"),
			hlElems("a", "y", 0, 40), C("COPY", "a", "b"), C("GET", "b"), C("OBJECT", "ENCODING", "b"), C("PFADD", "b", "more"), C("GET", "b"), C("GET", "a"),
			C("RENAME", "a", "c"), C("PFCOUNT", "c"), C("GET", "c"), C("STRLEN", "c"), C("APPEND", "c", "x"), C("PFCOUNT", "c"),
			C("SET", "e", hlHeader(1)+"\x7f\xff", "EX", "100"), C("PFADD", "e", "a"), C("TTL", "e").TTLApprox(1), C("GETDEL", "e"), C("PFCOUNT", "e")}},
	})
}

func TestHLLCommandInfo(t *testing.T) {
	runCases(t, []Case{
		{Name: "info and keys", Cmds: []Cmd{C("COMMAND", "INFO", "pfadd", "pfcount", "pfmerge", "pfdebug", "pfselftest"),
			C("COMMAND", "DOCS", "pfadd", "pfmerge"),
			C("COMMAND", "GETKEYS", "PFMERGE", "d", "a", "b"), C("COMMAND", "GETKEYS", "PFCOUNT", "a", "b"),
			C("COMMAND", "GETKEYS", "PFDEBUG", "GETREG", "k"), C("COMMAND", "GETKEYS", "PFADD", "k", "a")}},
	})
}

// TestHLLKeyspaceStats: PFCOUNT and PFMERGE's sources are read lookups
// (counted as hits and misses), PFADD, PFDEBUG and PFMERGE's destination
// write lookups (not counted).
func TestHLLKeyspaceStats(t *testing.T) {
	rds, lkv := dialPair(t)
	stats := func(c *RawConn) string {
		r := c.MustDo(t, "INFO", "stats")
		var out []string
		for _, line := range strings.Split(string(r.Raw), "\r\n") {
			if strings.HasPrefix(line, "keyspace_hits:") || strings.HasPrefix(line, "keyspace_misses:") {
				out = append(out, line)
			}
		}
		return strings.Join(out, " ")
	}
	script := [][]string{{"PFADD", "k", "a"}, {"PFADD", "k", "b"}, {"PFCOUNT", "k"}, {"PFCOUNT", "k", "nokey", "k"},
		{"PFMERGE", "d", "k", "nokey"}, {"PFMERGE", "d"}, {"PFDEBUG", "ENCODING", "k"}, {"PFCOUNT", "nokey"}}
	var got [2][]string
	for i, c := range []*RawConn{rds, lkv} {
		c.MustDo(t, "FLUSHALL")
		c.MustDo(t, "CONFIG", "RESETSTAT")
		for _, cmd := range script {
			c.MustDo(t, cmd...)
			got[i] = append(got[i], strings.Join(cmd, " ")+" -> "+stats(c))
		}
	}
	if len(got[1]) == 0 || !strings.Contains(got[1][len(got[1])-1], "keyspace_hits:") {
		t.Fatalf("no keyspace stats from limitkv: %q", got[1])
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("redis:   %s\n        limitkv: %s", got[0][i], got[1][i])
		}
	}
}

// TestHLLKnownGaps holds the known divergences, skipped unless
// LIMITKV_HLL_GAPS=1 (to see whether they still diverge).
func TestHLLKnownGaps(t *testing.T) {
	cases := []Case{
		{Name: "terminator after an empty append", Skip: "known divergence: a PFADD that splits half an XZERO at the end of a corrupt " +
			"sparse body writes Redis's sds terminator, which limitkv keeps in the value's spare capacity; Redis's APPEND of an empty " +
			"string then rewrites the terminator to 0, limitkv's APPEND (strings.go) leaves it, so a later decode of that half opcode differs",
			Cmds: []Cmd{C("SET", "k", hlStale(1)+"\x40\xfe\x7f"), C("PFADD", "k", "a"), C("GET", "k"), C("PFCOUNT", "k"),
				C("APPEND", "k", ""), C("PFCOUNT", "k"), C("PFDEBUG", "DECODE", "k")}},
	}
	if os.Getenv("LIMITKV_HLL_GAPS") != "" {
		for i := range cases {
			cases[i].Skip = ""
		}
	}
	runCases(t, cases)
}
