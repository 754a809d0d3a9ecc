package conformance

import "testing"

// Secrets in arguments read "(redacted)" in SLOWLOG and MONITOR as in
// Redis 7.0.15 (redactClientCommandArgument): CONFIG SET's sensitive
// values (masterauth, masteruser, requirepass), even in a CONFIG SET that
// fails, ACL SETUSER's name and rules, MIGRATE's AUTH and AUTH2, AUTH and
// HELLO AUTH. Admin commands (CONFIG, ACL) are not shown by MONITOR.
func TestSecretsRedacted(t *testing.T) {
	slow := func(cmds ...Cmd) []Cmd {
		out := []Cmd{C("CONFIG", "SET", "slowlog-log-slower-than", "0"), C("SLOWLOG", "RESET")}
		out = append(out, cmds...)
		return append(out, C("SLOWLOG", "GET", "-1").Check("slowlog", sameSlowlog),
			C("CONFIG", "SET", "slowlog-log-slower-than", "10000"))
	}
	runCases(t, []Case{
		{Name: "slowlog config set", Cmds: slow(
			C("CONFIG", "SET", "masterauth", "s3cret"),
			C("CONFIG", "SET", "masteruser", "u", "timeout", "0"),
			C("CONFIG", "SET", "timeout", "x", "masterauth", "s3cret2"),
			C("CONFIG", "SET", "nosuch", "1", "masterauth", "s3cret3"),
			C("CONFIG", "SET", "masterauth", "s3cret", "masteruser"),
			C("CONFIG", "SET", "masterauth", ""), C("CONFIG", "SET", "masteruser", ""),
		)},
		{Name: "slowlog acl setuser", Cmds: slow(
			C("ACL", "SETUSER", "secret-user", "on", ">pw1", "#"+sha256hex0),
			C("ACL", "SETUSER", "secret-user", "nosuchrule"),
			C("ACL", "DELUSER", "secret-user"),
		)},
		{Name: "slowlog migrate auth", Cmds: slow(
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", "pw"),
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "COPY", "AUTH2", "user", "pw"),
			C("MIGRATE", "127.0.0.1", "1", "", "0", "100", "AUTH", "pw", "KEYS", "a", "b"),
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH2", "user"),
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", "pw", "BOGUS", "x"),
		)},
		{Name: "slowlog auth and hello", Cmds: slow(
			C("AUTH", "pw"), C("AUTH", "user", "pw"), C("AUTH", "a", "b", "c"),
			C("HELLO", "2", "AUTH", "default", "wrong").Ignore(), // the client ids differ
		)},
		{Name: "monitor migrate and auth", Cmds: []Cmd{C("PING").On(1), C("MONITOR"),
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", "pw").On(1), mon(1),
			C("MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH2", "user", "pw").On(1), mon(1),
			C("AUTH", "user", "pw").On(1), mon(1),
			C("CONFIG", "SET", "masterauth", "s3cret").On(1),
			C("ACL", "SETUSER", "secret-user", ">pw").On(1),
			C("ACL", "DELUSER", "secret-user").On(1),
			C("CONFIG", "SET", "masterauth", "").On(1),
			C("PING").On(1), mon(1),
		}},
	})
}

// sha256hex0 is a password hash for ACL SETUSER's #<hash> rule.
const sha256hex0 = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
