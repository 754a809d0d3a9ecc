package clusterstate

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// ids for test files.
var (
	idA = strings.Repeat("a", 40)
	idB = strings.Repeat("b", 40)
	idC = strings.Repeat("c", 40)
	idD = strings.Repeat("d", 40)
)

func TestParseRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"the texts' state", aLine + bLine + cLine + "vars currentEpoch 12 lastVoteEpoch 4\n"},
		{"a replica named before its master's line",
			idC + " 10.0.0.3:7002@17002 myself,slave " + idB + " 0 1700000000000 5 connected\n" +
				idA + " 10.0.0.1:7000@17000 master,fail - 1700000000001 1700000000002 2 disconnected 0-8191\n" +
				idB + " 10.0.0.2:7001@17001 master - 0 1700000000003 5 connected 8192-16383\n" +
				"vars currentEpoch 5 lastVoteEpoch 0\n"},
		{"noaddr and flagless nodes, a master never described",
			idA + " :0@0 myself,master - 0 0 0 connected\n" +
				idB + " 10.0.0.2:7001@17001 master,noaddr - 0 0 1 disconnected 16383\n" +
				idC + " 10.0.0.3:7002@17002 noflags " + idD + " 0 0 0 disconnected\n" +
				idD + " :0@0 noflags - 0 0 0 disconnected\n" +
				"vars currentEpoch 1 lastVoteEpoch 1\n"},
		{"IPv6", idA + " ::1:7000@17000 myself,master - 0 0 0 connected 1 3 5-6\nvars currentEpoch 0 lastVoteEpoch 0\n"},
	} {
		s, err := Parse([]byte(tc.file), LoadOptions{Verbatim: true})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		check(t, s)
		if got := string(s.ConfigText()); got != tc.file {
			t.Errorf("%s:\n got: %q\nwant: %q", tc.name, got, tc.file)
		}
	}
}

// What clusterLoadConfig does beyond reading the fields back.
func TestParseSemantics(t *testing.T) {
	var warnings []string
	file := "\n\x00 ignored\n" + // blank lines, and one starting with NUL, are skipped
		"VARS lastVoteEpoch 2 CurrentEpoch 4 futureVar 1\n" + // anywhere, any case
		idC + " 10.0.0.3:7002 SLAVE " + idB + " 17 99 0 connected\n" + // no @cport
		idA + " 10.0.0.1:7000@17000 MySelf,MASTER - 0 0 3 connected -99 101 [5->-" + idB + "] [7-<-" + idD + "] 16383-16380\n" +
		idB + " 10.0.0.2:7001@17001,b.example master,fail?,fail - 0 0 7 connected 50 5000x abc 200-201junk\n" +
		"\n\n\n"
	s, err := Parse([]byte(file), LoadOptions{Now: 1234, Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	check(t, s)
	a, b, c, d := s.LookupID(idA), s.LookupID(idB), s.LookupID(idC), s.LookupID(idD)
	for _, tc := range []struct {
		what      string
		got, want any
	}{
		{"warnings", strings.Join(warnings, "|"), "Skipping unknown cluster config variable 'futureVar'"},
		{"currentEpoch raised to the greatest configEpoch", s.CurrentEpoch, uint64(7)},
		{"lastVoteEpoch", s.LastVoteEpoch, uint64(2)},
		{"myself", s.Myself, a},
		{"flags any case (and MIGRATE_TO: a master with slots where b has a replica)", a.Flags, FlagMyself | FlagMaster | FlagMigrateTo},
		{"cport by default", c.CPort, 17002},
		{"a replica's own epoch is not kept", c.ConfigEpoch, uint64(0)},
		{"times become the load time", [2]int64{c.PingSent, c.PongReceived}, [2]int64{1234, 1234}},
		{"zero times stay zero", [2]int64{a.PingSent, a.PongReceived}, [2]int64{0, 0}},
		{"links are the bus's", c.Linked, false},
		{"FAIL time", b.FailTime, int64(1234)},
		{"created at load", d.Ctime, int64(1234)},
		{"a node named only by an open slot", d.Flags, Flags(0)},
		{"hostname", b.Hostname, "b.example"},
		{"a's slots (-99 is 0-99, a range backwards is empty)", a.NumSlots(), 101},
		// 50 and abc (atoi: 0) are a's already, 5000x is 5000, 200-201junk is 200-201.
		{"b's slots", s.Slots(ReplyOptions{})[2:], []SlotsRange{{200, 201, s.Slots(ReplyOptions{})[2].Nodes}, {5000, 5000, s.Slots(ReplyOptions{})[3].Nodes}}},
		{"migrating", s.MigratingTo(5), b},
		{"importing", s.ImportingFrom(7), d},
		{"order: own lines, then the undescribed", s.Nodes(), []*Node{c, a, b, d}},
	} {
		if !equalish(tc.got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	if c.Master() != b || len(b.Replicas()) != 1 || b.Flags&FlagMigrateTo == 0 {
		t.Error("c is not b's replica")
	}
}

// A node described twice: the second line adds to the first, and the node
// keeps a single master.
func TestParseNodeTwice(t *testing.T) {
	file := idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected 1\n" +
		idC + " 1.2.3.4:3@4 slave " + idA + " 0 0 0 connected\n" +
		idB + " 1.2.3.4:5@6 master - 0 0 0 connected 2\n" +
		idC + " 1.2.3.4:3@4 slave " + idB + " 0 0 0 connected\n"
	s, err := Parse([]byte(file), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, s)
	if c := s.LookupID(idC); c.Master() != s.LookupID(idB) || len(s.Myself.Replicas()) != 0 {
		t.Errorf("c's master %v, a's replicas %v", c.Master(), s.Myself.Replicas())
	}
}

func equalish(a, b any) bool {
	if x, ok := a.([]*Node); ok {
		y := b.([]*Node)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if x, ok := a.([]SlotsRange); ok {
		y := b.([]SlotsRange)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Start != y[i].Start || x[i].End != y[i].End {
				return false
			}
		}
		return true
	}
	return a == b
}

// corruptFiles are files Redis refuses, with the line it stops at (0: the
// file as a whole) and whether Redis 7.0.15 says so in words (the others
// trip an assertion, which crashes it).
var corruptFiles = []struct {
	name, file string
	lineNo     int
	msg        string
	redisSays  bool
}{
	{"vars without a value", "vars currentEpoch\n", 1, msgCorrupt, true},
	{"seven fields", idA + " 1.2.3.4:1@2 myself,master - 0 0 0\n", 1, msgCorrupt, true},
	{"short node ID", "\n" + idA[1:] + " 1.2.3.4:1@2 myself,master - 0 0 0 connected\n", 2, msgCorrupt, true},
	{"upper-case node ID", strings.ToUpper(idA) + " 1.2.3.4:1@2 myself,master - 0 0 0 connected\n", 1, msgCorrupt, true},
	{"no port", idA + " 1.2.3.4 myself,master - 0 0 0 connected\n", 1, msgCorrupt, true},
	{"unknown flag", idA + " 1.2.3.4:1@2 myself,master,meet - 0 0 0 connected\n", 1, msgUnknownFlag, true},
	{"empty flag", idA + " 1.2.3.4:1@2 myself,,master - 0 0 0 connected\n", 1, msgUnknownFlag, true},
	{"bad master ID", idA + " 1.2.3.4:1@2 myself,slave xyz 0 0 0 connected\n", 1, msgCorrupt, true},
	{"slot 16384", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected 0-16384\n", 1, msgCorrupt, true},
	{"open slot 16384", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected [16384->-" + idB + "]\n", 1, msgCorrupt, true},
	{"open slot, bad ID", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected [1->-" + idB[1:] + "]\n", 1, msgCorrupt, true},
	{"open slot without ]", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected [1->-" + idB + "\n", 1, msgCorrupt, true},
	{"unbalanced quote", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 \"connected\n", 1, msgCorrupt, true},
	{"no myself", idA + " 1.2.3.4:1@2 master - 0 0 0 connected\n", 0, msgCorrupt, true},
	{"myself twice", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected\n" + idB + " 1.2.3.4:1@2 myself,master - 0 0 0 connected\n", 2, msgCorrupt, false},
	{"open slot without a direction", idA + " 1.2.3.4:1@2 myself,master - 0 0 0 connected [1]\n", 1, msgCorrupt, false},
	{"a line of spaces", "   \n", 1, msgCorrupt, false},
}

func TestParseCorrupt(t *testing.T) {
	for _, tc := range corruptFiles {
		_, err := Parse([]byte(tc.file), LoadOptions{})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *ConfigError", tc.name, err)
			continue
		}
		if ce.Error() != tc.msg || ce.LineNo != tc.lineNo || ce.Reason == "" {
			t.Errorf("%s: %q at line %d (%s), want %q at line %d", tc.name, ce.Error(), ce.LineNo, ce.Reason, tc.msg, tc.lineNo)
		}
		if tc.lineNo > 0 && (ce.Line == "" || !strings.Contains(tc.file, ce.Line+"\n")) {
			t.Errorf("%s: Line %q is not the file's line", tc.name, ce.Line)
		}
	}
}

func TestCNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		atoi int
		ll   int64
		ull  uint64
	}{
		{"", 0, 0, 0},
		{"abc", 0, 0, 0},
		{"42", 42, 42, 42},
		{" \t+42x", 42, 42, 42},
		{"-7", -7, -7, math.MaxUint64 - 6},
		{"1796208799226", int(int32(1796208799226 & 0xffffffff)), 1796208799226, 1796208799226},
		{"4294967296", 0, 1 << 32, 1 << 32}, // atoi's cut to int: a set time can read 0
		{"9223372036854775808", -1, math.MaxInt64, 1 << 63},
		{"-9223372036854775808", 0, math.MinInt64, 1 << 63},
		{"-9223372036854775809", 0, math.MinInt64, math.MaxUint64 - 1<<63},
		{"18446744073709551615", -1, math.MaxInt64, math.MaxUint64},
		{"18446744073709551616", -1, math.MaxInt64, math.MaxUint64},
		{"-18446744073709551616", 0, math.MinInt64, math.MaxUint64},
	} {
		if got := atoi(tc.in); got != tc.atoi {
			t.Errorf("atoi(%q) = %d, want %d", tc.in, got, tc.atoi)
		}
		if got := strtoll(tc.in); got != tc.ll {
			t.Errorf("strtoll(%q) = %d, want %d", tc.in, got, tc.ll)
		}
		if got := strtoull(tc.in); got != tc.ull {
			t.Errorf("strtoull(%q) = %d, want %d", tc.in, got, tc.ull)
		}
	}
}

// FuzzParse: whatever Parse accepts holds the invariants and saves to a
// file that loads back to the same text.
func FuzzParse(f *testing.F) {
	f.Add([]byte(aLine + bLine + cLine + dLine + "vars currentEpoch 12 lastVoteEpoch 4\n"))
	for _, tc := range corruptFiles {
		f.Add([]byte(tc.file))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, LoadOptions{Verbatim: true})
		if err != nil {
			return
		}
		check(t, s)
		text := s.ConfigText()
		s2, err := Parse(text, LoadOptions{Verbatim: true})
		if err != nil {
			t.Fatalf("our own file does not load: %v\n%q", err, text)
		}
		if got := s2.ConfigText(); string(got) != string(text) {
			t.Fatalf("saved twice differs:\n%q\n%q", text, got)
		}
	})
}
