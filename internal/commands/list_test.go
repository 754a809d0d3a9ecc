package commands

import (
	"testing"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestListReplies(t *testing.T) {
	tt := newTester(t)
	for _, s := range []struct {
		want string
		args []string
	}{
		{integer(3), []string{"RPUSH", "k", "a", "1700000000123", "-5"}},
		{bulks("a", "1700000000123", "-5"), []string{"LRANGE", "k", "0", "-1"}},
		{"+list\r\n", []string{"TYPE", "k"}},
		{bulk("quicklist"), []string{"OBJECT", "ENCODING", "k"}},
		{nilReply, []string{"LINDEX", "nokey", "x"}},
		{errReply(engine.ErrNotInt), []string{"LINDEX", "k", "x"}},
		{errReply(engine.ErrNoSuchKey), []string{"LSET", "nokey", "x", "v"}},
		{errReply(engine.ErrIndexOutOfRange), []string{"LSET", "k", "3", "v"}},
		{nilArray, []string{"LPOP", "nokey", "0"}},
		{emptyList, []string{"LPOP", "k", "0"}},
		{bulks("-5", "1700000000123"), []string{"RPOP", "k", "2"}},
		{errReply(engine.ErrValueMustPositive), []string{"RPOP", "k", "-1"}},
		{errReply(engine.ErrWrongArgs("lpop")), []string{"LPOP", "k", "1", "2"}},
		{errReply(engine.ErrLPosRank), []string{"LPOS", "k", "a", "RANK", "0"}},
		{integer(0), []string{"LPOS", "k", "a"}},
		{emptyList, []string{"LPOS", "nokey", "a", "COUNT", "0"}},
		{bulk("a"), []string{"LMOVE", "k", "k2", "LEFT", "RIGHT"}},
		{integer(0), []string{"EXISTS", "k"}},
		{integer(1), []string{"COPY", "k2", "k3"}},
		{okReply, []string{"LSET", "k3", "0", "b"}},
		{bulks("a"), []string{"LRANGE", "k2", "0", "-1"}}, // the copy is independent
	} {
		tt.Expect(s.want, s.args...)
	}
}

func TestListBlocking(t *testing.T) {
	tt := newTester(t)
	block := func(args ...string) (*engine.Client, *resp.Writer) {
		c := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		w := &resp.Writer{}
		tt.E.Lock()
		out := tt.E.Exec(c, bargs, w)
		tt.E.Unlock()
		if out != engine.Blocked {
			t.Fatalf("%v did not block: %q", args, w.Bytes())
		}
		return c, w
	}
	// A chain: the BLMOVE served by the push creates d, which serves the
	// BLPOP waiting there, in the same round.
	_, wPop := block("BLPOP", "d", "0")
	cMove, wMove := block("BLMOVE", "s", "d", "LEFT", "RIGHT", "0")
	tt.Expect(okReply, "SET", "s2", "x")
	tt.Expect(integer(2), "RPUSH", "s", "a", "b")
	if got := string(wMove.Bytes()); got != bulk("a") {
		t.Fatalf("BLMOVE got %q", got)
	}
	if got := string(wPop.Bytes()); got != bulks("d", "a") {
		t.Fatalf("BLPOP got %q", got)
	}
	if cMove.Blocked != nil {
		t.Fatal("served BLMOVE still blocked")
	}
	tt.Expect(integer(0), "EXISTS", "d")

	// Served with a wrong-type destination: WRONGTYPE, and unblocked.
	tt.Expect(integer(1), "DEL", "s")
	c3, w3 := block("BRPOPLPUSH", "s", "s2", "0")
	tt.Expect(integer(1), "RPUSH", "s", "z")
	if got := string(w3.Bytes()); got != errReply(engine.ErrWrongType) || c3.Blocked != nil {
		t.Fatalf("BRPOPLPUSH onto a string: %q (blocked %v)", got, c3.Blocked != nil)
	}
	tt.Expect(bulks("z"), "LRANGE", "s", "0", "-1")

	// A sorted set on the key does not serve a list waiter.
	c4, w4 := block("BLPOP", "z", "0")
	tt.Expect(integer(1), "ZADD", "z", "1", "m")
	if len(w4.Bytes()) != 0 || c4.Blocked == nil {
		t.Fatalf("ZADD served a list waiter: %q", w4.Bytes())
	}
	tt.E.RemoveClient(c4)
}
