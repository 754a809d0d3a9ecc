package limitkv

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/resp"
)

// Direct access lets a test read and write the server's data without a
// client, as miniredis's methods do. Each call runs one command on the
// engine under its lock, as a client with database n selected would, so
// the data is exactly what clients see: types are checked (WRONGTYPE),
// WATCH sees the writes, and the calls count in INFO's commands like any
// client's. Fault injection does not apply to them.

// ErrKeyNotFound is returned by DB.Get and the other readers of one key
// when the key does not exist.
var ErrKeyNotFound = errors.New("limitkv: key not found")

// ReplyError is an error the command answered, e.g.
// "WRONGTYPE Operation against a key holding the wrong kind of value".
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// DB is one of the server's 16 databases, for direct access.
type DB struct {
	s *Server
	n int
}

// DB returns database n (0 to 15) for direct access; Server's own methods
// use database 0.
func (s *Server) DB(n int) *DB { return &DB{s: s, n: n} }

// Do runs any command on database 0 and returns its reply: a string
// (simple or bulk), an int64, nil (a null), a []any (an array) or a
// ReplyError.
func (s *Server) Do(args ...string) (any, error) { return s.DB(0).Do(args...) }

func (s *Server) do(args ...string) (any, error) { return s.DB(0).Do(args...) }

// Do is Server.Do on this database.
func (d *DB) Do(args ...string) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("limitkv: Do needs a command")
	}
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	var w resp.Writer
	e := d.s.eng
	e.Lock()
	d.s.direct.DB = d.n
	e.Exec(d.s.direct, argv, &w)
	e.Unlock()
	v, _, err := parseReply(w.Bytes())
	return v, err
}

// parseReply reads one RESP2 reply.
func parseReply(b []byte) (any, []byte, error) {
	i := strings.Index(string(b), "\r\n")
	if len(b) == 0 || i < 0 {
		return nil, nil, errors.New("limitkv: short reply")
	}
	line, rest := string(b[1:i]), b[i+2:]
	switch b[0] {
	case '+':
		return line, rest, nil
	case '-':
		return nil, rest, ReplyError(line)
	case ':':
		n, err := strconv.ParseInt(line, 10, 64)
		return n, rest, err
	case '$':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return nil, rest, nil
		}
		return string(rest[:n]), rest[n+2:], nil
	case '*':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return nil, rest, nil
		}
		out := make([]any, n)
		for j := range out {
			v, r, err := parseReply(rest)
			if err != nil {
				var re ReplyError
				if !errors.As(err, &re) {
					return nil, nil, err
				}
				v = re // an error inside an array (EXEC) is an element
			}
			out[j], rest = v, r
		}
		return out, rest, nil
	}
	return nil, nil, errors.New("limitkv: unexpected reply " + strconv.Quote(string(b)))
}

func (d *DB) str(args ...string) (string, error) {
	v, err := d.Do(args...)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "", ErrKeyNotFound
	}
	s, _ := v.(string)
	return s, nil
}

func (d *DB) num(args ...string) (int64, error) {
	v, err := d.Do(args...)
	n, _ := v.(int64)
	return n, err
}

func (d *DB) strs(args ...string) ([]string, error) {
	v, err := d.Do(args...)
	if err != nil {
		return nil, err
	}
	a, _ := v.([]any)
	out := make([]string, len(a))
	for i, x := range a {
		out[i], _ = x.(string)
	}
	return out, nil
}

// Set sets a string key (SET key value), dropping any TTL.
func (d *DB) Set(key, value string) error { _, err := d.Do("SET", key, value); return err }

// Get reads a string key; ErrKeyNotFound if it does not exist.
func (d *DB) Get(key string) (string, error) { return d.str("GET", key) }

// Exists reports whether key exists (and has not expired).
func (d *DB) Exists(key string) bool { n, _ := d.num("EXISTS", key); return n == 1 }

// Del deletes keys and returns how many existed.
func (d *DB) Del(keys ...string) int {
	n, _ := d.num(append([]string{"DEL"}, keys...)...)
	return int(n)
}

// Type is TYPE key: "string", "hash", "list", "set", "zset" or "none".
func (d *DB) Type(key string) string { s, _ := d.str("TYPE", key); return s }

// Keys returns every key of the database, sorted.
func (d *DB) Keys() []string {
	k, _ := d.strs("KEYS", "*")
	slices.Sort(k)
	return k
}

// TTL is the key's time to live: 0 when it has none or does not exist.
func (d *DB) TTL(key string) time.Duration {
	n, _ := d.num("PTTL", key)
	if n < 0 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// SetTTL gives key a time to live (PEXPIRE); 0 or less removes it
// (PERSIST). It reports whether the key exists.
func (d *DB) SetTTL(key string, ttl time.Duration) bool {
	if ttl <= 0 {
		d.num("PERSIST", key)
		return d.Exists(key)
	}
	n, _ := d.num("PEXPIRE", key, strconv.FormatInt(ttl.Milliseconds(), 10))
	return n == 1
}

// HSet sets fields of a hash: field, value, field, value, ...
func (d *DB) HSet(key string, fieldValues ...string) error {
	_, err := d.Do(append([]string{"HSET", key}, fieldValues...)...)
	return err
}

// HGet reads one field of a hash; ErrKeyNotFound if the key or field is
// missing.
func (d *DB) HGet(key, field string) (string, error) { return d.str("HGET", key, field) }

// HGetAll returns a hash's fields and values.
func (d *DB) HGetAll(key string) (map[string]string, error) {
	a, err := d.strs("HGETALL", key)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		m[a[i]] = a[i+1]
	}
	return m, nil
}

// RPush appends values to a list and returns its length.
func (d *DB) RPush(key string, values ...string) (int, error) {
	n, err := d.num(append([]string{"RPUSH", key}, values...)...)
	return int(n), err
}

// LPush prepends values to a list and returns its length.
func (d *DB) LPush(key string, values ...string) (int, error) {
	n, err := d.num(append([]string{"LPUSH", key}, values...)...)
	return int(n), err
}

// List returns a list's elements, head first.
func (d *DB) List(key string) ([]string, error) { return d.strs("LRANGE", key, "0", "-1") }

// SAdd adds members to a set and returns how many were new.
func (d *DB) SAdd(key string, members ...string) (int, error) {
	n, err := d.num(append([]string{"SADD", key}, members...)...)
	return int(n), err
}

// Members returns a set's members, sorted.
func (d *DB) Members(key string) ([]string, error) {
	m, err := d.strs("SMEMBERS", key)
	slices.Sort(m)
	return m, err
}

// IsMember reports whether member is in the set.
func (d *DB) IsMember(key, member string) bool {
	n, _ := d.num("SISMEMBER", key, member)
	return n == 1
}

// ZAdd adds a member with a score to a sorted set (or moves it) and
// reports whether it was new.
func (d *DB) ZAdd(key string, score float64, member string) (bool, error) {
	n, err := d.num("ZADD", key, strconv.FormatFloat(score, 'g', -1, 64), member)
	return n == 1, err
}

// ZScore is a member's score; ErrKeyNotFound if the key or member is
// missing.
func (d *DB) ZScore(key, member string) (float64, error) {
	s, err := d.str("ZSCORE", key, member)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(s, 64)
}

// ZMembers returns a sorted set's members, lowest score first.
func (d *DB) ZMembers(key string) ([]string, error) { return d.strs("ZRANGE", key, "0", "-1") }

// FlushDB removes every key of the database.
func (d *DB) FlushDB() { d.Do("FLUSHDB") }

// The same on database 0.

// Set is DB(0).Set.
func (s *Server) Set(key, value string) error { return s.DB(0).Set(key, value) }

// Get is DB(0).Get.
func (s *Server) Get(key string) (string, error) { return s.DB(0).Get(key) }

// Exists is DB(0).Exists.
func (s *Server) Exists(key string) bool { return s.DB(0).Exists(key) }

// Del is DB(0).Del.
func (s *Server) Del(keys ...string) int { return s.DB(0).Del(keys...) }

// Keys is DB(0).Keys.
func (s *Server) Keys() []string { return s.DB(0).Keys() }

// TTL is DB(0).TTL.
func (s *Server) TTL(key string) time.Duration { return s.DB(0).TTL(key) }

// SetTTL is DB(0).SetTTL.
func (s *Server) SetTTL(key string, ttl time.Duration) bool { return s.DB(0).SetTTL(key, ttl) }

// HSet is DB(0).HSet.
func (s *Server) HSet(key string, fieldValues ...string) error {
	return s.DB(0).HSet(key, fieldValues...)
}

// HGet is DB(0).HGet.
func (s *Server) HGet(key, field string) (string, error) { return s.DB(0).HGet(key, field) }

// RPush is DB(0).RPush.
func (s *Server) RPush(key string, values ...string) (int, error) {
	return s.DB(0).RPush(key, values...)
}

// List is DB(0).List.
func (s *Server) List(key string) ([]string, error) { return s.DB(0).List(key) }

// SAdd is DB(0).SAdd.
func (s *Server) SAdd(key string, members ...string) (int, error) {
	return s.DB(0).SAdd(key, members...)
}

// Members is DB(0).Members.
func (s *Server) Members(key string) ([]string, error) { return s.DB(0).Members(key) }

// ZAdd is DB(0).ZAdd.
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	return s.DB(0).ZAdd(key, score, member)
}

// ZScore is DB(0).ZScore.
func (s *Server) ZScore(key, member string) (float64, error) { return s.DB(0).ZScore(key, member) }

// ZMembers is DB(0).ZMembers.
func (s *Server) ZMembers(key string) ([]string, error) { return s.DB(0).ZMembers(key) }

// FlushAll removes every key of every database.
func (s *Server) FlushAll() { s.Do("FLUSHALL") }

// Time is the server's clock now (what TIME answers).
func (s *Server) Time() time.Time { return s.eng.Clock.Now() }
