package acl

import (
	"strings"
	"testing"
)

// testTable: a few commands with Redis's categories for them.
func testTable() *Table {
	cat := func(names ...string) uint64 {
		var b uint64
		for _, n := range names {
			b |= CategoryBit(n)
		}
		return b
	}
	return NewTable([]*Command{
		{Name: "auth", Cats: cat("fast", "connection"), NoAuth: true},
		{Name: "config", Cats: cat("slow"), Subs: []*Command{
			{Name: "config|get", Cats: cat("admin", "slow", "dangerous")},
			{Name: "config|set", Cats: cat("admin", "slow", "dangerous")},
		}},
		{Name: "debug", Cats: cat("admin", "slow", "dangerous")},
		{Name: "del", Cats: cat("keyspace", "write", "slow")},
		{Name: "flushall", Cats: cat("keyspace", "write", "slow", "dangerous")},
		{Name: "get", Cats: cat("read", "string", "fast")},
		{Name: "mget", Cats: cat("read", "string", "fast")},
		{Name: "publish", Cats: cat("pubsub", "fast")},
		{Name: "save", Cats: cat("admin", "slow", "dangerous")},
		{Name: "select", Cats: cat("fast", "connection")},
		{Name: "set", Cats: cat("write", "string", "slow")},
	})
}

func TestSetUserAndDescribe(t *testing.T) {
	for _, tc := range []struct {
		rules []string
		want  string // Describe, or "ERR <message>"
	}{
		{nil, "off resetchannels -@all"},
		{[]string{"on", "nopass", "+@all", "~*", "&*"}, "on nopass ~* &* +@all"},
		{[]string{">pw"}, "off #" + HashPassword([]byte("pw")) + " resetchannels -@all"},
		{[]string{">pw", ">pw", "<pw"}, "off resetchannels -@all"},
		{[]string{">a", "nopass"}, "off nopass resetchannels -@all"},
		{[]string{"nopass", "resetpass"}, "off resetchannels -@all"},
		{[]string{"+@all", "-flushall"}, "off resetchannels +@all -flushall"},
		{[]string{"+@all", "-@dangerous"}, "off resetchannels +@all -@dangerous"},
		{[]string{"-@all", "+@string"}, "off resetchannels -@all +@string"},
		{[]string{"+config|get"}, "off resetchannels -@all +config|get"},
		{[]string{"+config"}, "off resetchannels -@all +config"},
		{[]string{"+select|0", "+SELECT|0"}, "off resetchannels -@all +select|0"},
		{[]string{"allcommands", "nocommands", "+get"}, "off resetchannels -@all +get"},
		{[]string{"~a", "%R~b", "%W~c", "%RW~d", "%R~a"}, "off ~a %R~b %W~c ~d resetchannels -@all"},
		{[]string{"~a", "allkeys"}, "off ~* resetchannels -@all"},
		{[]string{"allkeys", "resetkeys", "~x"}, "off ~x resetchannels -@all"},
		{[]string{"&a", "&b", "&a"}, "off resetchannels &a &b -@all"},
		{[]string{"(+get ~k)", "(", "+set", "~s)"}, "off resetchannels -@all (~k resetchannels -@all +get) (~s resetchannels -@all +set)"},
		{[]string{"(+get)", "clearselectors"}, "off resetchannels -@all"},
		{[]string{"on", ">x", "~a", "+@all", "reset"}, "off sanitize-payload resetchannels -@all"},
		{[]string{"skip-sanitize-payload"}, "off skip-sanitize-payload resetchannels -@all"},
		{[]string{"+nosuch"}, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]string{"-@nosuch"}, "ERR Error in ACL SETUSER modifier '-@nosuch': Unknown command or category name in ACL"},
		{[]string{"bogus"}, "ERR Error in ACL SETUSER modifier 'bogus': Syntax error"},
		{[]string{"~a b"}, "ERR Error in ACL SETUSER modifier '~a b': Syntax error"},
		{[]string{"%Q~a"}, "ERR Error in ACL SETUSER modifier '%Q~a': Syntax error"},
		{[]string{"allkeys", "~a"}, "ERR Error in ACL SETUSER modifier '~a': " + string(errAfterAllKey)},
		{[]string{"allchannels", "&a"}, "ERR Error in ACL SETUSER modifier '&a': " + string(errAfterAllCh)},
		{[]string{"<nope"}, "ERR Error in ACL SETUSER modifier '<nope': " + string(errNoPass)},
		{[]string{"#ABC"}, "ERR Error in ACL SETUSER modifier '#ABC': " + string(errBadHash)},
		{[]string{"+config|get|x"}, "ERR Error in ACL SETUSER modifier '+config|get|x': " + string(errSubFirstArg)},
		{[]string{"+get|"}, "ERR Error in ACL SETUSER modifier '+get|': Syntax error"},
		{[]string{"(+get", "~a"}, "ERR Unmatched parenthesis in acl selector starting at '(+get'."},
		{[]string{"(+nosuch)"}, "ERR Error in ACL SETUSER modifier '(+nosuch)': Unknown command or category name in ACL"},
	} {
		r := NewRegistry(testTable())
		u, _, err := r.SetUser("u", tc.rules)
		got := ""
		if err != nil {
			got = "ERR " + err.Error()
			if r.User("u") != nil {
				t.Errorf("%q: a refused SETUSER made the user", tc.rules)
			}
		} else {
			got = u.Describe()
		}
		if got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.rules, got, tc.want)
		}
	}
}

// A refused SETUSER changes nothing of an existing user.
func TestSetUserIsAtomic(t *testing.T) {
	r := NewRegistry(testTable())
	r.SetUser("u", []string{"on", ">a", "+get"})
	before := r.User("u").Describe()
	if _, _, err := r.SetUser("u", []string{"off", "+nosuch"}); err == nil {
		t.Fatal("want an error")
	}
	if got := r.User("u").Describe(); got != before {
		t.Fatalf("changed to %q", got)
	}
}

func TestCheck(t *testing.T) {
	tab := testTable()
	r := NewRegistry(tab)
	u, _, _ := r.SetUser("u", []string{"on", "-@all", "+get", "+set", "+publish", "+select|1", "~{a}:*", "%R~ro*", "&news", "(+flushall)"})
	req := func(name string, keys []KeyRef, chans []ChanRef, args ...string) *Request {
		argv := [][]byte{[]byte(name)}
		for _, a := range args {
			argv = append(argv, []byte(a))
		}
		return &Request{Cmd: tab.Lookup(name), Args: argv, HasKeys: keys != nil,
			Keys: func() []KeyRef { return keys }, Channels: func() []ChanRef { return chans }}
	}
	k1r := []KeyRef{{1, PermRead}}
	k1w := []KeyRef{{1, PermWrite}}
	for _, tc := range []struct {
		name string
		r    *Request
		want Result
		pos  int
	}{
		{"allowed key", req("get", k1r, nil, "{a}:1"), OK, 0},
		{"other key", req("get", k1r, nil, "{b}:1"), DeniedKey, 1},
		{"read-only pattern reads", req("get", k1r, nil, "ro1"), OK, 0},
		{"read-only pattern refuses writes", req("set", k1w, nil, "ro1", "v"), DeniedKey, 1},
		{"denied command", req("config|get", nil, nil, "get", "x"), DeniedCommand, 0},
		{"no-auth commands always run", req("auth", nil, nil, "a", "b"), OK, 0},
		{"allowed first arg", req("select", nil, nil, "1"), OK, 0},
		{"other first arg", req("select", nil, nil, "2"), DeniedCommand, 0},
		{"channel", req("publish", nil, []ChanRef{{1, false}}, "news", "x"), OK, 0},
		{"other channel", req("publish", nil, []ChanRef{{1, false}}, "ads", "x"), DeniedChannel, 1},
		{"a second selector allows", req("flushall", nil, nil), OK, 0},
	} {
		res, pos := u.Check(tc.r)
		if res != tc.want || pos != tc.pos {
			t.Errorf("%s: got %v at %d, want %v at %d", tc.name, res, pos, tc.want, tc.pos)
		}
	}
	if !r.Default.Unrestricted || u.Unrestricted {
		t.Error("Unrestricted: the default user is, u is not")
	}
	// Of several refusals the highest (channel > key > command) is told.
	v, _, _ := r.SetUser("v", []string{"on", "+@all", "resetkeys", "(-@all)"})
	if res, pos := v.Check(req("get", k1r, nil, "x")); res != DeniedKey || pos != 1 {
		t.Errorf("v: %v at %d", res, pos)
	}
}

func TestPasswords(t *testing.T) {
	r := NewRegistry(testTable())
	u, _, _ := r.SetUser("u", []string{"on", ">a", ">b"})
	for _, tc := range []struct {
		pass string
		ok   bool
	}{{"a", true}, {"b", true}, {"c", false}, {"", false}} {
		if u.CheckPassword([]byte(tc.pass)) != tc.ok {
			t.Errorf("%q: want %v", tc.pass, tc.ok)
		}
	}
	r.SetUser("u", []string{"off"})
	if u.CheckPassword([]byte("a")) {
		t.Error("a disabled user authenticated")
	}
	r.SetDefaultPassword("pw")
	if !r.Default.NeedsAuth() || !r.Default.CheckPassword([]byte("pw")) || r.Default.CheckPassword([]byte("x")) {
		t.Error("requirepass pw")
	}
	r.SetDefaultPassword("")
	if r.Default.NeedsAuth() {
		t.Error("requirepass \"\" is nopass")
	}
}

func TestLogGroups(t *testing.T) {
	var l Log
	e := LogEntry{Reason: DeniedKey, Object: "k", Username: "u", CTime: 1000}
	l.Add(e, 128)
	e.CTime = 2000
	e.ClientInfo = "second"
	l.Add(e, 128)
	other := e
	other.Object = "j"
	l.Add(other, 128)
	e.CTime = 3000
	l.Add(e, 128) // matches the second entry: moves to the front
	got := l.Entries(10)
	if len(got) != 2 || got[0].Object != "k" || got[0].Count != 3 || got[0].CTime != 3000 || got[1].Object != "j" {
		t.Fatalf("entries %+v %+v", got[0], got[1])
	}
	e.CTime = 3000 + groupWindow + 1
	l.Add(e, 2)
	l.Add(LogEntry{Reason: DeniedAuth, Object: "AUTH"}, 2)
	if got := l.Entries(10); len(got) != 2 || got[0].Reason != DeniedAuth || got[1].Count != 1 {
		t.Fatalf("after the window and the cap: %+v", got)
	}
	if len(l.Entries(-1)) != 0 {
		t.Error("negative count")
	}
}

func TestLoadSave(t *testing.T) {
	r := NewRegistry(testTable())
	r.SetUser("u", []string{"on", ">p", "~a*", "+get"})
	text := r.Save()
	want := "user default on nopass ~* &* +@all\nuser u on #" + HashPassword([]byte("p")) + " ~a* resetchannels -@all +get\n"
	if text != want {
		t.Fatalf("Save:\n%s\nwant\n%s", text, want)
	}
	def := r.Default
	u := r.User("u")
	gone, err := r.Load(text+"\nuser v off\n", "f.acl")
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) != 1 || gone[0] != u || r.Default != def || r.User("v") == nil || r.User("u") == u {
		t.Fatalf("after Load: gone %v", gone)
	}
	_, err = r.Load("user w +nosuch\nfoo\nuser w\nuser q bad\nuser q bad2\n", "f.acl")
	msg := "f.acl:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		"f.acl:2 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'w' found on line 3. f.acl:4: Syntax error. " +
		"WARNING: Duplicate user 'q' found on line 5. " +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err == nil || err.Error() != msg {
		t.Fatalf("Load errors:\n%v\nwant\n%s", err, msg)
	}
	if r.User("w") != nil || r.User("v") == nil {
		t.Error("a refused Load changed the users")
	}
	// A file without the default user gives the default's defaults.
	r.SetUser("default", []string{">x"})
	if _, err := r.Load("user z on", "f"); err != nil || r.Default.Describe() != "on nopass ~* &* +@all" || !strings.HasPrefix(r.Save(), "user default") {
		t.Fatalf("%v %q", err, r.Default.Describe())
	}
}

func TestCategories(t *testing.T) {
	tab := testTable()
	if got, ok := tab.InCategory("Dangerous"); !ok || strings.Join(got, " ") != "config|get config|set debug flushall save" {
		t.Errorf("dangerous: %v", got)
	}
	if _, ok := tab.InCategory("nosuch"); ok {
		t.Error("nosuch")
	}
	if len(Categories) != 21 {
		t.Error("Redis 7.0 has 21 categories")
	}
}
