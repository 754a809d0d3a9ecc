package conformance

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// Pub/Sub against the real server: connection 0 subscribes, connection 1
// publishes; Recv reads what was pushed. Every case runs in RESP2 and RESP3
// (pushes are arrays in one, push frames in the other) unless it says why not.
func TestPubSubConformance(t *testing.T) {
	settle := Sleep(30 * time.Millisecond)
	// Output that fits Redis's 16 KB per-client buffer does not count
	// against the limit; this message overflows it by 4 KB.
	big := strings.Repeat("x", 20000)
	runCases(t, []Case{
		{Name: "subscribe publish unsubscribe", Cmds: []Cmd{
			C("SUBSCRIBE", "a", "b", "a").Replies(3),
			C("PUBLISH", "a", "hi").On(1),
			Recv(),
			C("PUBLISH", "nobody", "x").On(1),
			C("PUBLISH", "b", "").On(1),
			Recv(),
			C("PUBSUB", "NUMSUB", "a", "b", "c").On(1),
			C("UNSUBSCRIBE", "a", "zz"),
			C("PUBLISH", "a", "gone").On(1),
			C("UNSUBSCRIBE").Replies(1),
			C("UNSUBSCRIBE"),
			C("PUBSUB", "NUMSUB", "a", "b").On(1),
			C("PUBLISH", "b", "gone").On(1),
			C("PING"),
		}},
		{Name: "binary channel and message", Cmds: []Cmd{
			C("SUBSCRIBE", "ch\x00\r\n"),
			C("PUBLISH", "ch\x00\r\n", "m\x00\r\nm").On(1),
			Recv(),
		}},
		{Name: "patterns", Cmds: []Cmd{
			settle, // earlier tests' pattern subscribers gone (see "pubsub introspection")
			C("PSUBSCRIBE", "news.*", "h?llo", "[ab]c", "\\*lit").Replies(4),
			C("PUBLISH", "news.tech", "1").On(1),
			Recv(),
			C("PUBLISH", "hello", "2").On(1),
			Recv(),
			C("PUBLISH", "bc", "3").On(1),
			Recv(),
			C("PUBLISH", "*lit", "4").On(1),
			Recv(),
			C("PUBLISH", "xlit", "5").On(1),
			C("PUBSUB", "NUMPAT").On(1),
			C("PUNSUBSCRIBE", "h?llo", "nope").Replies(2),
			C("PUBLISH", "hello", "6").On(1),
			C("PUBSUB", "NUMPAT").On(1),
			C("PUNSUBSCRIBE", "news.*"),
			C("PUNSUBSCRIBE", "[ab]c"),
			C("PUNSUBSCRIBE", "\\*lit"),
			C("PUNSUBSCRIBE"),
			C("PUBSUB", "NUMPAT").On(1),
		}},
		{Name: "channel and pattern both match", Cmds: []Cmd{
			C("SUBSCRIBE", "x.1"),
			C("PSUBSCRIBE", "x.*"),
			C("PUBLISH", "x.1", "both").On(1),
			Recv().Replies(2),
			C("UNSUBSCRIBE", "x.1"),
			C("PUNSUBSCRIBE", "x.*"),
		}},
		{Name: "counts mix channels and patterns", Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("PSUBSCRIBE", "p*", "q*").Replies(2),
			C("SUBSCRIBE", "b"),
			C("UNSUBSCRIBE", "a"),
			C("PUNSUBSCRIBE", "p*"),
			C("SSUBSCRIBE", "s"),
			C("PUNSUBSCRIBE", "q*"),
			C("UNSUBSCRIBE", "b"),
			C("SUNSUBSCRIBE", "s"),
		}},
		{Name: "several subscribers", Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("SUBSCRIBE", "a").On(2),
			C("PSUBSCRIBE", "*").On(3),
			C("PUBLISH", "a", "m").On(1),
			Recv(),
			Recv().On(2),
			Recv().On(3),
			C("PUBSUB", "NUMSUB", "a").On(1),
		}},
		{Name: "pubsub introspection", Cmds: []Cmd{
			// The previous cases' subscribers are gone once their
			// connections' closes are processed; on the goroutine front
			// that can come just after this case's first command.
			settle,
			C("PUBSUB", "CHANNELS").On(1),
			C("SUBSCRIBE", "news.a", "news.b", "other").Replies(3),
			C("PUBSUB", "CHANNELS").On(1).Unordered(),
			C("PUBSUB", "CHANNELS", "news.*").On(1).Unordered(),
			C("PUBSUB", "CHANNELS", "zz*").On(1),
			C("PUBSUB", "NUMSUB").On(1),
			C("PUBSUB", "NUMPAT").On(1),
			C("PUBSUB", "SHARDCHANNELS").On(1),
			C("PUBSUB", "SHARDNUMSUB", "news.a").On(1),
			C("PUBSUB", "HELP").On(1),
			C("PUBSUB", "CHANNELS", "a", "b").On(1),
			C("PUBSUB", "NUMPAT", "x").On(1),
			C("PUBSUB", "SHARDCHANNELS", "a", "b").On(1),
			C("PUBSUB", "HELP", "x").On(1),
			C("PUBSUB", "NOPE").On(1),
			C("PUBSUB").On(1),
			C("UNSUBSCRIBE", "news.a", "news.b", "other").Replies(3),
		}},
		{Name: "shard channels", Cmds: []Cmd{
			C("SSUBSCRIBE", "s1", "s2").Replies(2),
			C("SPUBLISH", "s1", "m").On(1),
			Recv(),
			C("PUBLISH", "s1", "not shard").On(1),
			C("SPUBLISH", "nobody", "m").On(1),
			C("PUBSUB", "SHARDCHANNELS").On(1).Unordered(),
			C("PUBSUB", "SHARDCHANNELS", "*2").On(1),
			C("PUBSUB", "SHARDNUMSUB", "s1", "s3").On(1),
			C("PUBSUB", "CHANNELS").On(1),
			C("SUNSUBSCRIBE", "s2"),
			C("SUNSUBSCRIBE"),
			C("SUNSUBSCRIBE"),
			C("SPUBLISH", "s1", "gone").On(1),
		}},
		{Name: "shard messages do not reach patterns", Cmds: []Cmd{
			C("PSUBSCRIBE", "*"),
			C("SPUBLISH", "s", "m").On(1),
			C("PUBLISH", "s", "m").On(1),
			Recv(),
		}},
		{Name: "arity and errors", Cmds: []Cmd{
			C("SUBSCRIBE"),
			C("PSUBSCRIBE"),
			C("SSUBSCRIBE"),
			C("PUBLISH", "a"),
			C("PUBLISH", "a", "b", "c"),
			C("SPUBLISH", "a"),
			C("PUBLISH", "a", "b"),
		}},
		{Name: "inside MULTI", Cmds: []Cmd{
			C("MULTI"),
			C("PUBLISH", "a", "x"),
			C("SUBSCRIBE", "a"),
			C("EXEC"),
			C("PUBLISH", "a", "y").On(1),
			Recv(),
			C("UNSUBSCRIBE"),
			C("MULTI"),
			C("SSUBSCRIBE", "s"),
			C("EXEC"),
			C("PUBSUB", "SHARDNUMSUB", "s"),
		}},
		{Name: "from scripts", Cmds: []Cmd{
			C("SUBSCRIBE", "a").On(1),
			C("EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", "a", "x"),
			C("EVAL", "return redis.call('publish', 'a', 'y')", "0"),
			Recv().On(1).Replies(2),
			C("EVAL", "return redis.call('subscribe', 'a')", "0"),
			C("EVAL", "return redis.pcall('ssubscribe', 'a')", "0"),
			C("EVAL", "return redis.call('spublish', 'a', 'b')", "0"),
		}},
		{Name: "disconnect unsubscribes", Cmds: []Cmd{
			C("SUBSCRIBE", "a", "b").On(1).Replies(2),
			C("PSUBSCRIBE", "a*").On(1),
			C("PUBSUB", "NUMSUB", "a", "b"),
			C("QUIT").On(1),
			settle,
			C("PUBSUB", "NUMSUB", "a", "b"),
			C("PUBSUB", "NUMPAT"),
			C("PUBLISH", "a", "x"),
		}},
		{Name: "RESET unsubscribes", Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("PSUBSCRIBE", "b*"),
			C("SSUBSCRIBE", "s"),
			C("RESET"),
			C("PUBSUB", "NUMSUB", "a").On(1),
			C("PUBSUB", "NUMPAT").On(1),
			C("PUBSUB", "SHARDNUMSUB", "s").On(1),
			C("PUBLISH", "a", "x").On(1),
			C("GET", "k"),
		}},
		{Name: "slow subscriber dropped at pubsub hard limit", Cmds: []Cmd{
			C("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1000 0 0"),
			C("SUBSCRIBE", "a").On(1),
			C("PUBLISH", "a", "small").On(2),
			Recv().On(1),
			C("PUBLISH", "a", strings.Repeat("y", 2000)),
			Recv().On(1),
			C("PUBLISH", "a", big),
			settle,
			Recv().On(1),
			C("PUBSUB", "NUMSUB", "a"),
			C("CONFIG", "SET", "client-output-buffer-limit", "pubsub 33554432 8388608 60"),
			C("CONFIG", "GET", "client-output-buffer-limit"),
		}},
	})
}

// A RESP2 client that listens to anything may only (un)subscribe, PING,
// QUIT and RESET: RESP2 cannot tell a reply from a message. RESP3 lifts it.
func TestPubSubRESP2Context(t *testing.T) {
	runCases(t, []Case{
		{Name: "subscribed context", RESP2Only: "the restriction is RESP2's", Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("GET", "k"),
			C("SET", "k", "v"),
			C("PING"),
			C("PING", "hello"),
			C("PING", "a", "b"),
			C("PSUBSCRIBE", "x*"),
			C("SSUBSCRIBE", "s"),
			C("MULTI"),
			C("pubsub", "numsub", "a"),
			C("PUBLISH", "a", "x").On(1),
			Recv(),
			C("UNSUBSCRIBE", "a"),
			C("GET", "k"),
			C("PUNSUBSCRIBE"),
			C("GET", "k"),
			C("SUNSUBSCRIBE"),
			C("GET", "k"),
			C("PING"),
		}},
		{Name: "RESET leaves subscribed context", RESP2Only: "the restriction is RESP2's", Cmds: []Cmd{
			C("PSUBSCRIBE", "*"),
			C("ECHO", "x"),
			C("RESET"),
			C("ECHO", "x"),
		}},
		{Name: "RESP3 subscriber runs commands between pushes", RESP2Only: "RESP3 only", resp3: true, Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("SET", "k", "v"),
			C("PUBLISH", "a", "m1").On(1),
			C("GET", "k").Replies(2),
			C("PING"),
			C("PUBLISH", "a", "self").Replies(2),
			C("PSUBSCRIBE", "*"),
			C("PUBLISH", "a", "twice").Replies(3),
			C("MULTI"),
			C("PUBLISH", "a", "in-multi"),
			C("GET", "k"),
			C("EXEC").Replies(3),
			C("UNSUBSCRIBE", "a"),
			C("PUNSUBSCRIBE"),
			C("CLIENT", "INFO").Check("same sub counts", sameClientFields("flags", "sub", "psub", "ssub")),
		}},
		{Name: "client info counts", RESP2Only: "counts do not depend on the protocol", Cmds: []Cmd{
			C("SUBSCRIBE", "a", "b").Replies(2),
			C("PSUBSCRIBE", "c*"),
			C("SSUBSCRIBE", "s"),
			C("CLIENT", "LIST").On(1).Check("subscriber's fields", sameClientListFields("flags", "sub", "psub", "ssub")),
		}},
	})
}

// pickClientFields picks the named fields out of CLIENT INFO/LIST lines.
func pickClientFields(line string, names []string) string {
	var out []string
	for _, n := range names {
		m := regexp.MustCompile(`(?:^| )` + n + `=(\S*)`).FindStringSubmatch(line)
		if m == nil {
			out = append(out, n+"=<missing>")
		} else {
			out = append(out, n+"="+m[1])
		}
	}
	return strings.Join(out, " ")
}

// sameClientFields compares only the named fields of a CLIENT INFO reply.
func sameClientFields(names ...string) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		a, b := pickClientFields(string(rds.Raw), names), pickClientFields(string(lkv.Raw), names)
		if a != b {
			return fmt.Errorf("fields differ: redis %q, limitkv %q", a, b)
		}
		return nil
	}
}

// sameClientListFields compares the named fields of the CLIENT LIST lines
// of clients that listen to something (other tests' connections may be
// listed too).
func sameClientListFields(names ...string) func(rds, lkv *Reply) error {
	pick := func(r *Reply) string {
		var rows []string
		for _, l := range strings.Split(string(r.Raw), "\n") {
			if strings.Contains(l, "flags=P") {
				rows = append(rows, pickClientFields(l, names))
			}
		}
		sort.Strings(rows)
		return strings.Join(rows, "; ")
	}
	return func(rds, lkv *Reply) error {
		if a, b := pick(rds), pick(lkv); a != b || a == "" {
			return fmt.Errorf("subscribers differ: redis %q, limitkv %q", a, b)
		}
		return nil
	}
}
