package clusterstate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/limitkv/limitkv/internal/sdsargs"
)

// LoadOptions says how Parse and Load treat what a file cannot say.
type LoadOptions struct {
	// Now is the load time (Unix ms). Redis keeps no old timestamps: a
	// non-zero ping_sent or pong_received becomes the load time, as does
	// the FAIL time of a node flagged fail, and every node is created at
	// Now.
	Now int64
	// Verbatim keeps what the file records of the running node that Redis
	// does not load: ping_sent, pong_received and the link state (Linked).
	// The state then saves back to the very bytes loaded, for a tool that
	// inspects or rewrites a file rather than a node starting from it.
	Verbatim bool
	// Warn, when set, receives the warnings Redis logs while loading
	// ("Skipping unknown cluster config variable '...'").
	Warn func(msg string)
}

// ErrNoConfig is Load's answer for a missing or empty nodes.conf: a node
// starting for the first time (New), which LockConfig's creation of the
// file leaves empty.
var ErrNoConfig = errors.New("clusterstate: no cluster config")

// Load texts, as Redis logs them.
const (
	msgCorrupt     = "Unrecoverable error: corrupted cluster config file."
	msgUnknownFlag = "Unknown flag in redis cluster config file"
)

// ConfigError is a nodes.conf Redis refuses to start with. Error is the
// line Redis 7.0.15 logs before exiting ("Unrecoverable error: corrupted
// cluster config file." for a malformed line, or the panic text for an
// unknown flag); 7.0.15 does not log the offending line, so it is kept
// here for the component to add.
type ConfigError struct {
	Msg    string // Redis's text
	LineNo int    // 1-based; 0 when the file as a whole is wrong (no myself)
	Line   string // the line, without its newline
	Reason string // what is wrong with it, in our words
}

func (e *ConfigError) Error() string { return e.Msg }

// Detail is Error with the line and the reason, for a log line of our own.
func (e *ConfigError) Detail() string {
	if e.LineNo == 0 {
		return fmt.Sprintf("%s (%s)", e.Msg, e.Reason)
	}
	return fmt.Sprintf("%s (line %d: %s: %q)", e.Msg, e.LineNo, e.Reason, e.Line)
}

// Load is clusterLoadConfig: the state saved in the nodes.conf at path.
// A missing or empty file is ErrNoConfig; a file Redis would refuse is a
// *ConfigError; other errors carry Redis's log text.
func Load(path string, o LoadOptions) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoConfig
		}
		return nil, fmt.Errorf("Loading the cluster node config from %s: %s", path, strerror(err))
	}
	if len(data) == 0 {
		return nil, ErrNoConfig
	}
	return Parse(data, o)
}

// Parse is clusterLoadConfig on the file's content. Redis's acceptance is
// kept to the detail (C's atoi and strtoull for numbers, names checked as
// node IDs, out-of-range slots refused), so what it loads we load the
// same, and what makes it exit is a *ConfigError.
func Parse(data []byte, o LoadOptions) (*State, error) {
	s := newState()
	p := parser{s: s, o: o, lines: map[*Node]int{}}
	lineNo := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		lineNo++
		// Blank lines are skipped: Redis 7.0 pads a shrinking file with
		// newlines before truncating it, and a crash can leave them.
		if line[0] == '\n' || line[0] == 0 {
			continue
		}
		if reason, msg := p.line(string(line), lineNo); reason != "" {
			return nil, &ConfigError{Msg: msg, LineNo: lineNo, Line: strings.TrimRight(string(line), "\n"), Reason: reason}
		}
	}
	if s.Myself == nil {
		return nil, &ConfigError{Msg: msgCorrupt, Reason: "no node is flagged myself"}
	}
	// Keep the file's order: a node named on another's line before its own
	// takes the place of its own line; nodes never given one go last.
	sort.SliceStable(s.order, func(i, j int) bool { return p.lineOf(s.order[i]) < p.lineOf(s.order[j]) })
	// Protection against a hand-edited file: no node's epoch may exceed
	// the current epoch.
	s.CurrentEpoch = max(s.CurrentEpoch, s.MaxEpoch())
	return s, nil
}

type parser struct {
	s     *State
	o     LoadOptions
	lines map[*Node]int // the line describing each node
}

func (p *parser) lineOf(n *Node) int {
	if l, ok := p.lines[n]; ok {
		return l
	}
	return math.MaxInt
}

// line loads one line; it returns a reason and Redis's message when the
// file is refused.
func (p *parser) line(line string, lineNo int) (reason, msg string) {
	s := p.s
	argv, ok := sdsargs.Split(line)
	if !ok {
		return "unbalanced quotes", msgCorrupt
	}
	if len(argv) == 0 {
		return "a line of spaces", msgCorrupt
	}
	if strings.EqualFold(argv[0], "vars") {
		if len(argv)%2 == 0 {
			return "vars without a value", msgCorrupt
		}
		for j := 1; j < len(argv); j += 2 {
			switch {
			case strings.EqualFold(argv[j], "currentEpoch"):
				s.CurrentEpoch = strtoull(argv[j+1])
			case strings.EqualFold(argv[j], "lastVoteEpoch"):
				s.LastVoteEpoch = strtoull(argv[j+1])
			default:
				if p.o.Warn != nil {
					p.o.Warn(fmt.Sprintf("Skipping unknown cluster config variable '%s'", argv[j]))
				}
			}
		}
		return "", ""
	}
	if len(argv) < 8 {
		return "fewer than 8 fields", msgCorrupt
	}
	n, ok := p.node(argv[0], lineNo)
	if !ok {
		return "invalid node ID", msgCorrupt
	}

	// ip:port[@cport][,hostname]
	addr := argv[1]
	n.Hostname = ""
	if i := strings.IndexByte(addr, ','); i >= 0 {
		addr, n.Hostname = addr[:i], addr[i+1:]
	}
	colon := strings.LastIndexByte(addr, ':')
	if colon < 0 {
		return "address without a port", msgCorrupt
	}
	n.IP = addr[:colon]
	port, bus, hasBus := strings.Cut(addr[colon+1:], "@")
	n.Port = atoi(port)
	// Files older than Redis 4 have no @cport: the bus port is then the
	// default offset from the clients' port.
	n.CPort = n.Port + PortIncr
	if hasBus {
		n.CPort = atoi(bus)
	}

	for _, f := range strings.Split(argv[2], ",") {
		switch strings.ToLower(f) {
		case "myself":
			if s.Myself != nil {
				return "a second node flagged myself", msgCorrupt
			}
			s.Myself = n
			n.Flags |= FlagMyself
		case "master":
			n.Flags |= FlagMaster
		case "slave":
			n.Flags |= FlagSlave
		case "fail?":
			n.Flags |= FlagPFail
		case "fail":
			n.Flags |= FlagFail
			n.FailTime = p.o.Now
		case "handshake":
			n.Flags |= FlagHandshake
		case "noaddr":
			n.Flags |= FlagNoAddr
		case "nofailover":
			n.Flags |= FlagNoFailover
		case "noflags":
		default:
			return "unknown flag " + f, msgUnknownFlag
		}
	}

	if argv[3] == "" || argv[3][0] != '-' {
		master, ok := p.node(argv[3], 0)
		if !ok {
			return "invalid master ID", msgCorrupt
		}
		// Redis would leave n in the replica list of a master an earlier
		// line for the same node named; we keep the links symmetric.
		p.s.linkMaster(n, master)
	}

	if p.o.Verbatim {
		n.PingSent, n.PongReceived = strtoll(argv[4]), strtoll(argv[5])
		n.Linked = argv[7] == "connected"
	} else {
		// Redis reads the times with atoi only to see whether they are set.
		if atoi(argv[4]) != 0 {
			n.PingSent = p.o.Now
		}
		if atoi(argv[5]) != 0 {
			n.PongReceived = p.o.Now
		}
	}
	// A replica's epoch is its master's, which the master's line gives.
	if n.IsReplica() && n.master != nil {
		n.ConfigEpoch = 0
	} else {
		n.ConfigEpoch = strtoull(argv[6])
	}

	for _, arg := range argv[8:] {
		if arg != "" && arg[0] == '[' {
			if reason := p.openSlot(arg); reason != "" {
				return reason, msgCorrupt
			}
			continue
		}
		var start, stop int
		if a, b, ok := strings.Cut(arg, "-"); ok {
			start, stop = atoi(a), atoi(b)
		} else {
			start = atoi(arg)
			stop = start
		}
		if start < 0 || start >= Slots || stop < 0 || stop >= Slots {
			return "slot out of range", msgCorrupt
		}
		for ; start <= stop; start++ {
			s.AddSlot(n, start)
		}
	}
	return "", ""
}

// node finds or creates the node named id. lineNo is the line that
// describes it, 0 when it is only named there.
func (p *parser) node(id string, lineNo int) (*Node, bool) {
	name, ok := ParseName(id)
	if !ok {
		return nil, false
	}
	n := p.s.nodes[name]
	if n == nil {
		n = NewNode(name, 0, p.o.Now)
		p.s.mustAdd(n)
	}
	if _, seen := p.lines[n]; lineNo != 0 && !seen {
		p.lines[n] = lineNo
	}
	return n, true
}

// openSlot loads "[<slot>->-<id>]" (migrating to) or "[<slot>-<-<id>]"
// (importing from).
func (p *parser) openSlot(arg string) string {
	dash := strings.IndexByte(arg, '-')
	if dash < 0 || len(arg) < dash+3 {
		return "open slot without a direction"
	}
	slot := atoi(arg[1:dash])
	if slot < 0 || slot >= Slots {
		return "open slot out of range"
	}
	rest := arg[dash+3:]
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return "open slot without ]"
	}
	peer, ok := p.node(rest[:end], 0)
	if !ok {
		return "open slot with an invalid node ID"
	}
	if arg[dash+1] == '>' {
		p.s.migratingTo[slot] = peer
	} else {
		p.s.importingFrom[slot] = peer
	}
	return ""
}

// atoi is C's atoi as glibc has it ((int)strtol): leading spaces, a sign,
// digits up to the first non-digit, 0 when there are none; out-of-range
// values saturate to long and are then cut to int.
func atoi(s string) int { return int(int32(strtoll(s))) }

// strtoll is C's strtoll(s, NULL, 10), saturating.
func strtoll(s string) int64 {
	v, neg, over := cDigits(s)
	switch {
	case neg && (over || v > 1<<63):
		return math.MinInt64
	case neg:
		return int64(-v)
	case over || v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// strtoull is C's strtoull(s, NULL, 10): like atoi, but an overflow gives
// the largest uint64 whatever the sign, and a minus sign otherwise negates
// modulo 2^64.
func strtoull(s string) uint64 {
	v, neg, over := cDigits(s)
	switch {
	case over:
		return math.MaxUint64
	case neg:
		return -v
	}
	return v
}

// cDigits reads C's number prefix: the magnitude, whether it had a minus
// sign, and whether it overflowed uint64.
func cDigits(s string) (v uint64, neg, over bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if over || v > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		v = v*10 + d
	}
	return v, neg, over
}

// strerror is C's strerror text of err's errno: Go's texts are lower
// case.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}
