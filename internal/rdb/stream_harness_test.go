package rdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

// A test-only interpreter of the stream commands over package stream, so
// that the same command sequence can be run on redis-server and here. It
// covers the forms the tests use, not every option's parsing.

type streamModel struct {
	s   *stream.Stream
	lim stream.Limits
	now int64
}

func newStreamModel(lim stream.Limits) *streamModel {
	return &streamModel{s: stream.New(), lim: lim, now: 1700000000000}
}

func mustID(t testing.TB, s string, missing uint64) stream.ID {
	t.Helper()
	id, err := stream.ParseID(s, missing)
	if err != nil {
		t.Fatalf("id %q: %v", s, err)
	}
	return id
}

// parseTrim reads MAXLEN/MINID [=|~] x [LIMIT n] from args[i:], returning
// the arguments and the index after them. "~" without LIMIT gets the
// default limit, as XADD/XTRIM give it.
func parseTrim(t testing.TB, args []string, i int, lim stream.Limits) (stream.TrimArgs, int) {
	var a stream.TrimArgs
	limitGiven := false
loop:
	for i < len(args) {
		switch strings.ToUpper(args[i]) {
		case "MAXLEN", "MINID":
			a.Strategy = stream.TrimMinID
			if strings.ToUpper(args[i]) == "MAXLEN" {
				a.Strategy = stream.TrimMaxLen
			}
			i++
			if args[i] == "~" || args[i] == "=" {
				a.Approx = args[i] == "~"
				i++
			}
			if a.Strategy == stream.TrimMaxLen {
				a.MaxLen, _ = strconv.ParseInt(args[i], 10, 64)
			} else {
				a.MinID = mustID(t, args[i], 0)
			}
			i++
		case "LIMIT":
			a.Limit, _ = strconv.ParseInt(args[i+1], 10, 64)
			limitGiven = true
			i += 2
		default:
			break loop
		}
	}
	if a.Approx && !limitGiven {
		a.Limit = stream.DefaultTrimLimit(lim)
	}
	return a, i
}

func bs(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// apply runs one command (args[1] is the key, ignored) and returns a reply
// rendered as the go-redis reply would be by fmtReply, for comparison.
func (m *streamModel) apply(t testing.TB, args []string) string {
	t.Helper()
	s := m.s
	m.now++
	switch strings.ToUpper(args[0]) {
	case "XADD":
		tr, i := parseTrim(t, args, 2, m.lim)
		id, err := stream.ParseAddID(args[i])
		if err != nil {
			return err.Error()
		}
		got, err := s.Add(id, bs(args[i+1:]), uint64(m.now), m.lim)
		if err != nil {
			return err.Error()
		}
		s.Trim(tr)
		return got.String()
	case "XDEL":
		ids := make([]stream.ID, 0, len(args)-2)
		for _, a := range args[2:] {
			ids = append(ids, mustID(t, a, 0))
		}
		return strconv.Itoa(s.Delete(ids...))
	case "XTRIM":
		tr, _ := parseTrim(t, args, 2, m.lim)
		return strconv.FormatInt(s.Trim(tr), 10)
	case "XSETID":
		ea, md := int64(-1), stream.ID{}
		for i := 3; i < len(args); i += 2 {
			if strings.ToUpper(args[i]) == "ENTRIESADDED" {
				ea, _ = strconv.ParseInt(args[i+1], 10, 64)
			} else {
				md = mustID(t, args[i+1], 0)
			}
		}
		if err := s.SetID(mustID(t, args[2], 0), ea, md); err != nil {
			return err.Error()
		}
		return "OK"
	case "XGROUP":
		switch strings.ToUpper(args[1]) {
		case "CREATE":
			id := s.LastID()
			if args[4] != "$" {
				id = mustID(t, args[4], 0)
			}
			er := int64(stream.ScgInvalidEntriesRead)
			if len(args) > 6 && strings.ToUpper(args[5]) == "ENTRIESREAD" {
				er, _ = strconv.ParseInt(args[6], 10, 64)
			}
			if _, err := s.CreateGroup(args[3], id, er); err != nil {
				return err.Error()
			}
			return "OK"
		case "SETID":
			id := s.LastID()
			if args[4] != "$" {
				id = mustID(t, args[4], 0)
			}
			er := int64(stream.ScgInvalidEntriesRead)
			if len(args) > 6 {
				er, _ = strconv.ParseInt(args[6], 10, 64)
			}
			s.Group(args[3]).SetID(id, er)
			return "OK"
		case "CREATECONSUMER":
			if s.Group(args[3]).CreateConsumer(args[4], m.now) != nil {
				return "1"
			}
			return "0"
		case "DELCONSUMER":
			n, _ := s.Group(args[3]).DeleteConsumer(args[4])
			return strconv.Itoa(n)
		case "DESTROY":
			if s.DestroyGroup(args[3]) {
				return "1"
			}
			return "0"
		}
	case "XREADGROUP": // XREADGROUP GROUP g c [COUNT n] [NOACK] STREAMS key id
		g := s.Group(args[2])
		count, noack, i := 0, false, 4
		for ; strings.ToUpper(args[i]) != "STREAMS"; i++ {
			switch strings.ToUpper(args[i]) {
			case "COUNT":
				count, _ = strconv.Atoi(args[i+1])
				i++
			case "NOACK":
				noack = true
			}
		}
		var out []string
		if args[i+2] == ">" {
			if s.Len() == 0 || !g.LastID.Less(s.LastValidID()) {
				return "[]"
			}
			c, _ := g.LookupOrCreateConsumer(args[3], m.now)
			s.ReadNew(g, c, count, noack, m.now, func(e stream.Entry) { out = append(out, e.ID.String()) })
		} else {
			c, _ := g.LookupOrCreateConsumer(args[3], m.now)
			start, _ := mustID(t, args[i+2], 0).Incr()
			s.ReadHistory(c, start, count, m.now, func(id stream.ID, _ stream.Entry, ok bool) {
				out = append(out, id.String()+map[bool]string{true: "", false: "(nil)"}[ok])
			})
		}
		return fmt.Sprint(out)
	case "XACK":
		var ids []stream.ID
		for _, a := range args[3:] {
			ids = append(ids, mustID(t, a, 0))
		}
		return strconv.Itoa(s.Group(args[2]).Ack(ids...))
	case "XCLAIM": // XCLAIM key g c minidle id... [options]
		a := stream.ClaimArgs{DeliveryTime: -1, RetryCount: -1}
		a.MinIdle, _ = strconv.ParseInt(args[4], 10, 64)
		i := 5
		for ; i < len(args); i++ {
			id, err := stream.ParseStrictID(args[i], 0)
			if err != nil {
				break
			}
			a.IDs = append(a.IDs, id)
		}
		for ; i < len(args); i++ {
			switch strings.ToUpper(args[i]) {
			case "FORCE":
				a.Force = true
			case "JUSTID":
				a.JustID = true
			case "RETRYCOUNT":
				a.RetryCount, _ = strconv.ParseInt(args[i+1], 10, 64)
				i++
			case "TIME":
				a.DeliveryTime, _ = strconv.ParseInt(args[i+1], 10, 64)
				i++
			case "IDLE":
				v, _ := strconv.ParseInt(args[i+1], 10, 64)
				a.DeliveryTime = m.now - v
				i++
			case "LASTID":
				a.LastID = mustID(t, args[i+1], 0)
				i++
			}
		}
		return fmt.Sprint(s.Claim(s.Group(args[2]), args[3], a, m.now))
	case "XPENDING": // XPENDING key g [start end count [consumer]]
		g := s.Group(args[2])
		if len(args) == 3 {
			n, first, last, cons := g.PendingSummary()
			if n == 0 {
				return "0 nil nil []"
			}
			var cs []string
			for _, c := range cons {
				cs = append(cs, fmt.Sprintf("%s:%d", c.Name, c.Count))
			}
			return fmt.Sprint(n, " ", first, " ", last, " ", cs)
		}
		start, _ := stream.ParseRangeStart(args[3])
		end, _ := stream.ParseRangeEnd(args[4])
		count, _ := strconv.ParseInt(args[5], 10, 64)
		var c *stream.Consumer
		if len(args) > 6 {
			if c = g.Consumer(args[6]); c == nil {
				return "[]"
			}
		}
		var out []string
		for _, p := range g.PendingRange(start, end, count, 0, c, m.now) {
			out = append(out, fmt.Sprintf("%s:%s:%d", p.ID, p.Consumer, p.Deliveries))
		}
		return fmt.Sprint(out)
	case "XAUTOCLAIM": // XAUTOCLAIM key g c minidle start [COUNT n] [JUSTID]
		minIdle, _ := strconv.ParseInt(args[4], 10, 64)
		start, err := stream.ParseRangeStart(args[5])
		if err != nil {
			return err.Error()
		}
		count, justID := int64(100), false
		for i := 6; i < len(args); i++ {
			if strings.ToUpper(args[i]) == "COUNT" {
				count, _ = strconv.ParseInt(args[i+1], 10, 64)
				i++
			} else {
				justID = true
			}
		}
		c, next, del := s.AutoClaim(s.Group(args[2]), args[3], minIdle, start, count, justID, m.now)
		return fmt.Sprint(next, c, del)
	}
	t.Fatalf("model: unsupported command %q", args)
	return ""
}

// entryIDs renders a RESP2 array of entries ([id, fields], fields nil for
// a deleted entry) or of bare IDs as the model renders them.
func entryIDs(v any) string {
	arr, _ := v.([]any)
	out := []string{}
	for _, e := range arr {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case []any:
			id := x[0].(string)
			if x[1] == nil {
				id += "(nil)"
			}
			out = append(out, id)
		}
	}
	return fmt.Sprint(out)
}

// groupReply renders the replies of the group commands as the model does
// (idle times, which depend on the clock, left out); ok is false for
// the other commands.
func groupReply(args []string, v any, err error) (string, bool) {
	if err != nil {
		return "", false
	}
	switch strings.ToUpper(args[0]) {
	case "XREADGROUP":
		if v == nil {
			return "[]", true
		}
		return entryIDs(v.([]any)[0].([]any)[1]), true
	case "XCLAIM":
		return entryIDs(v), true
	case "XAUTOCLAIM":
		r := v.([]any)
		return r[0].(string) + " " + entryIDs(r[1]) + " " + entryIDs(r[2]), true
	case "XPENDING":
		r := v.([]any)
		if len(args) == 3 {
			var cs []string
			cl, _ := r[3].([]any)
			for _, c := range cl {
				cs = append(cs, fmt.Sprintf("%s:%s", c.([]any)[0], c.([]any)[1]))
			}
			return fmt.Sprint(r[0], " ", nilOr(r[1]), " ", nilOr(r[2]), " ", cs), true
		}
		var out []string
		for _, p := range r {
			pa := p.([]any)
			out = append(out, fmt.Sprintf("%s:%s:%d", pa[0], pa[1], pa[3]))
		}
		return fmt.Sprint(out), true
	}
	return "", false
}

// fullInfo is XINFO STREAM FULL COUNT 0, normalised for comparison.
type fullInfo struct {
	Length, RadixKeys, RadixNodes int64
	LastID, MaxDeleted, FirstRec  string
	EntriesAdded                  int64
	Entries                       []string
	Groups                        []groupInfo
}

type groupInfo struct {
	Name, LastDelivered string
	EntriesRead, Lag    string // "nil" when null
	PelCount            int64
	Pending             []string // "id consumer time count"
	Consumers           []consumerInfo
}

type consumerInfo struct {
	Name     string
	SeenTime int64
	PelCount int64
	Pending  []string // "id time count"
}

func redisClient(t testing.TB, p *testredis.Proc) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func rdo(t testing.TB, c *redis.Client, args ...string) (any, error) {
	t.Helper()
	a := make([]any, len(args))
	for i, s := range args {
		a[i] = s
	}
	return c.Do(context.Background(), a...).Result()
}

// pairs turns a RESP2 flat key/value array into a map.
func pairs(v any) map[string]any {
	arr := v.([]any)
	m := map[string]any{}
	for i := 0; i+1 < len(arr); i += 2 {
		m[arr[i].(string)] = arr[i+1]
	}
	return m
}

func joinAny(a []any) string {
	s := make([]string, len(a))
	for i, x := range a {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func nilOr(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(v)
}

func entryString(v any) string {
	e := v.([]any)
	var b strings.Builder
	b.WriteString(e[0].(string))
	for _, f := range e[1].([]any) {
		b.WriteString(" " + f.(string))
	}
	return b.String()
}

func redisFullInfo(t testing.TB, c *redis.Client, key string) fullInfo {
	t.Helper()
	v, err := rdo(t, c, "XINFO", "STREAM", key, "FULL", "COUNT", "0")
	if err != nil {
		t.Fatal(err)
	}
	m := pairs(v)
	fi := fullInfo{
		Length: m["length"].(int64), RadixKeys: m["radix-tree-keys"].(int64), RadixNodes: m["radix-tree-nodes"].(int64),
		LastID: m["last-generated-id"].(string), MaxDeleted: m["max-deleted-entry-id"].(string),
		EntriesAdded: m["entries-added"].(int64), FirstRec: m["recorded-first-entry-id"].(string),
	}
	for _, e := range m["entries"].([]any) {
		fi.Entries = append(fi.Entries, entryString(e))
	}
	for _, gv := range m["groups"].([]any) {
		g := pairs(gv)
		gi := groupInfo{Name: g["name"].(string), LastDelivered: g["last-delivered-id"].(string),
			EntriesRead: nilOr(g["entries-read"]), Lag: nilOr(g["lag"]), PelCount: g["pel-count"].(int64)}
		for _, p := range g["pending"].([]any) {
			pa := p.([]any)
			gi.Pending = append(gi.Pending, joinAny(pa))
		}
		for _, cv := range g["consumers"].([]any) {
			cm := pairs(cv)
			ci := consumerInfo{Name: cm["name"].(string), SeenTime: cm["seen-time"].(int64), PelCount: cm["pel-count"].(int64)}
			for _, p := range cm["pending"].([]any) {
				ci.Pending = append(ci.Pending, joinAny(p.([]any)))
			}
			gi.Consumers = append(gi.Consumers, ci)
		}
		fi.Groups = append(fi.Groups, gi)
	}
	return fi
}

func ourFullInfo(s *stream.Stream) fullInfo {
	in := s.Info()
	fi := fullInfo{Length: int64(in.Length), RadixKeys: int64(in.RadixTreeKeys), RadixNodes: int64(in.RadixTreeNodes),
		LastID: in.LastGeneratedID.String(), MaxDeleted: in.MaxDeletedID.String(), EntriesAdded: int64(in.EntriesAdded),
		FirstRec: in.RecordedFirstID.String()}
	s.Range(stream.ID{}, stream.MaxID, false, func(e stream.Entry) bool {
		var b strings.Builder
		b.WriteString(e.ID.String())
		for _, f := range e.Fields {
			b.WriteString(" " + string(f))
		}
		fi.Entries = append(fi.Entries, b.String())
		return true
	})
	for _, g := range s.Groups() {
		gi := groupInfo{Name: g.Name, LastDelivered: g.LastID.String(), EntriesRead: "nil", Lag: "nil", PelCount: int64(g.PendingCount())}
		if g.EntriesRead != stream.ScgInvalidEntriesRead {
			gi.EntriesRead = strconv.FormatInt(g.EntriesRead, 10)
		}
		if lag, ok := s.Lag(g); ok {
			gi.Lag = strconv.FormatInt(lag, 10)
		}
		g.Pending(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
			gi.Pending = append(gi.Pending, fmt.Sprint(id.String(), " ", n.Consumer.Name, " ", n.DeliveryTime, " ", n.DeliveryCount))
			return true
		})
		for _, c := range g.Consumers() {
			ci := consumerInfo{Name: c.Name, SeenTime: c.SeenTime, PelCount: int64(c.PendingCount())}
			c.Pending(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
				ci.Pending = append(ci.Pending, fmt.Sprint(id.String(), " ", n.DeliveryTime, " ", n.DeliveryCount))
				return true
			})
			gi.Consumers = append(gi.Consumers, ci)
		}
		fi.Groups = append(fi.Groups, gi)
	}
	return fi
}

// syncTimes copies Redis's clock-dependent figures (consumers' seen-time,
// delivery times) into s, so that the rest can be compared exactly.
func syncTimes(s *stream.Stream, ri fullInfo) {
	for _, gi := range ri.Groups {
		g := s.Group(gi.Name)
		if g == nil {
			continue
		}
		for _, ci := range gi.Consumers {
			if c := g.Consumer(ci.Name); c != nil {
				c.SeenTime = ci.SeenTime
			}
		}
		for _, p := range gi.Pending {
			f := strings.Fields(p)
			id, _ := stream.ParseStrictID(f[0], 0)
			if n := g.NACK(id); n != nil {
				n.DeliveryTime, _ = strconv.ParseInt(f[2], 10, 64)
			}
		}
	}
}
