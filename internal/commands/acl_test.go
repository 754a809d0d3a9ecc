package commands

import (
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

// Every command and subcommand has an ACL id and Redis's categories;
// limitkv's own have those their flags give (README, "Users and
// permissions").
func TestACLTableCategories(t *testing.T) {
	for _, tc := range []struct{ cat, cmd string }{
		{"write", "rl.check"}, {"fast", "rl.check"}, {"read", "rl.peek"}, {"fast", "rl.peek"},
		{"dangerous", "flushall"}, {"connection", "client|setinfo"}, {"admin", "acl|setuser"},
	} {
		names, ok := config.AclTable.InCategory(tc.cat)
		if !ok || !strings.Contains(" "+strings.Join(names, " ")+" ", " "+tc.cmd+" ") {
			t.Errorf("%s not in @%s", tc.cmd, tc.cat)
		}
	}
	for _, c := range engine.All() {
		if c.Acl == nil || config.AclTable.Lookup(c.Name) != c.Acl.Cmd {
			t.Errorf("%s has no ACL entry", c.Name)
		}
		for _, s := range c.Sub {
			if s.Acl == nil || s.Acl.Cmd.Parent != c.Acl.Cmd {
				t.Errorf("%s has no ACL entry", s.Name)
			}
		}
	}
}

// The keys a restricted user's command is checked on, with the access
// each needs, come from the key specs (and SORT's and MIGRATE's own
// procedures).
func TestACLKeys(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // pos:need ...
	}{
		{[]string{"get", "a"}, "1:1"},
		{[]string{"set", "a", "v"}, "1:2"},
		{[]string{"set", "a", "v", "GET"}, "1:3"},
		{[]string{"copy", "a", "b"}, "1:1 2:2"},
		{[]string{"mset", "a", "1", "b", "2"}, "1:2 3:2"},
		{[]string{"eval", "s", "2", "a", "b", "x"}, "3:3 4:3"},
		{[]string{"rl.check", "k", "*", "1000", "5", "*"}, "1:3"},
		{[]string{"sort", "a", "STORE", "b"}, "1:1 3:2"},
		{[]string{"ping"}, ""},
		{[]string{"eval", "s", "5", "a"}, ""},
	} {
		bargs := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			bargs[i] = []byte(a)
		}
		cmd := engine.Lookup(bargs[0])
		var got []string
		for _, k := range engine.AclKeys(cmd, bargs) {
			got = append(got, strconv.Itoa(k.Pos)+":"+strconv.Itoa(int(k.Need)))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestACLTenant(t *testing.T) {
	tt := newTester(t)
	tt.Expect("+OK\r\n", "ACL", "SETUSER", "acme", "on", ">pw", "~{acme}:*", "-@all", "+rl.check")
	tt.Expect("+OK\r\n", "AUTH", "acme", "pw")
	tt.Expect(errReply("NOPERM this user has no permissions to run the 'acl|whoami' command"), "ACL", "WHOAMI")
	tt.Expect(integer(0), "RL.CHECK", "{acme}:u", "*", "60000", "5", "*") // allowed: retry after 0 ms
	tt.Expect(errReply("NOPERM this user has no permissions to access one of the keys used as arguments"),
		"RL.CHECK", "{globex}:u", "*", "60000", "5", "*")
	tt.Expect(errReply("NOPERM this user has no permissions to run the 'get' command"), "GET", "{acme}:u")
	tt.Expect(errReply("WRONGPASS invalid username-password pair or user is disabled."), "AUTH", "acme", "x")
	tt.Expect("+OK\r\n", "AUTH", "default", "anything")
	tt.Expect(integer(1), "ACL", "DELUSER", "acme")
}

// The default user (and any +@all ~* &* user) costs one flag test per
// command; a tenant's user pays for its key check.
func BenchmarkRLCheckACL(b *testing.B) {
	for _, mode := range []string{"default", "tenant"} {
		b.Run(mode, func(b *testing.B) {
			tt := newTester(b)
			prefix := "user:"
			if mode == "tenant" {
				tt.Expect("+OK\r\n", "ACL", "SETUSER", "acme", "on", "nopass", "~{acme}:*", "+@all")
				tt.Expect("+OK\r\n", "AUTH", "acme", "x")
				prefix = "{acme}:user:"
			}
			args := make([][][]byte, 4096)
			for i := range args {
				for _, a := range []string{"RL.CHECK", prefix + strconv.Itoa(i%1000), strconv.Itoa(1_700_000_000_000 + i), "60000", "5", "req-" + strconv.Itoa(i)} {
					args[i] = append(args[i], []byte(a))
				}
			}
			var w resp.Writer
			b.ReportAllocs()
			tt.E.Lock()
			for i := 0; b.Loop(); i++ {
				w.Truncate(0)
				tt.E.Exec(tt.C, args[i%len(args)], &w)
			}
			tt.E.Unlock()
		})
	}
}
