package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/rdb"
)

// persistDataset fills tt with every type in each of its encodings, TTLs
// and several databases, through commands (so encodings are the ones the
// commands produce).
func persistDataset(tt *tester) {
	tt.t.Helper()
	do := func(args ...string) {
		tt.t.Helper()
		if r := tt.Do(args...); strings.HasPrefix(r, "-") {
			tt.t.Fatalf("%v: %q", args, r)
		}
	}
	do("SET", "str:int", "12345")
	do("SET", "str:big", "9223372036854775807")
	do("SET", "str:emb", "hello")
	do("SET", "str:raw", strings.Repeat("abc", 40))
	do("SET", "str:ttl", "v", "PX", "500000")
	do("APPEND", "str:appended", "x")
	do("RPUSH", "list:small", "a", "1", "b")
	for i := range 300 {
		do("RPUSH", "list:big", "element-"+strconv.Itoa(i)+strings.Repeat("y", 40))
	}
	do("SADD", "set:int", "3", "1", "2")
	do("SADD", "set:str", "a", "b", "1")
	for i := range 600 {
		do("SADD", "set:bigint", strconv.Itoa(i))
	}
	do("ZADD", "zset:small", "1", "a", "2.5", "b", "-inf", "c")
	for i := range 200 {
		do("ZADD", "zset:big", strconv.Itoa(i%7), "m"+strconv.Itoa(i))
	}
	do("PEXPIRE", "zset:big", "900000")
	do("HSET", "hash:small", "f1", "v1", "f2", "2")
	do("HSET", "hash:long", "f", strings.Repeat("v", 100))
	do("SELECT", "3")
	do("SET", "db3", "x", "EX", "1000")
	do("SELECT", "15")
	do("RPUSH", "db15", "z")
	do("SELECT", "0")
}

// keyState is what a key must keep through a save and load: type, encoding,
// deadline and content (members sorted where Redis's order is a hash
// table's).
func keyState(tt *tester, db int, key string) string {
	tt.t.Helper()
	tt.Do("SELECT", strconv.Itoa(db))
	defer tt.Do("SELECT", "0")
	typ := tt.Do("TYPE", key)
	enc := tt.Do("OBJECT", "ENCODING", key)
	exp := tt.Do("PEXPIRETIME", key)
	dump := tt.Do("DUMP", key)
	content := dump
	if strings.Contains(enc, "hashtable") {
		// A hash table's order is its own: compare the decoded members.
		r := respBulk(tt.t, dump)
		v, err := rdb.DecodeDump(r, nil)
		if err != nil {
			tt.t.Fatalf("%s: %v", key, err)
		}
		var ms []string
		for _, m := range v.Set {
			ms = append(ms, string(m))
		}
		for _, f := range v.Hash {
			ms = append(ms, string(f.Field)+"="+string(f.Value))
		}
		slices.Sort(ms)
		content = strings.Join(ms, ",")
	}
	return typ + enc + exp + content
}

// respBulk decodes a bulk reply.
func respBulk(t testing.TB, r string) []byte {
	t.Helper()
	head, rest, ok := strings.Cut(r, "\r\n")
	if !ok || head[0] != '$' {
		t.Fatalf("not a bulk reply: %q", r)
	}
	n, _ := strconv.Atoi(head[1:])
	return []byte(rest[:n])
}

func allKeys(tt *tester) map[[2]string]bool {
	keys := map[[2]string]bool{}
	for i := range config.NumDBs {
		tt.E.DB(i).ForEach(func(e *keyspace.Entry) bool {
			keys[[2]string{strconv.Itoa(i), e.Key()}] = true
			return true
		})
	}
	return keys
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a := newTester(t)
	a.E.Cfg.SetDir(dir, "")
	persistDataset(a)
	a.Expect(okReply, "SAVE")
	a.Expect(integer(a.Clock.Now().Unix()), "LASTSAVE")

	b := newTester(t)
	b.Clock.Set(a.Clock.Now())
	st, err := durability.LoadFile(b.E, filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	keys := allKeys(a)
	if st.Keys != len(keys) || st.Expired != 0 {
		t.Fatalf("loaded %+v, want %d keys", st, len(keys))
	}
	for k := range keys {
		db, _ := strconv.Atoi(k[0])
		if got, want := keyState(b, db, k[1]), keyState(a, db, k[1]); got != want {
			t.Errorf("db %d key %s: after load %q, before %q", db, k[1], got, want)
		}
	}
	if got := b.Do("INFO", "persistence"); !strings.Contains(got, "rdb_last_load_keys_loaded:"+strconv.Itoa(len(keys))+"\r\n") {
		t.Errorf("INFO after load: %s", got)
	}

	// Keys whose deadline passed by the time the file is loaded are dropped.
	c := newTester(t)
	c.Clock.Set(a.Clock.Now().Add(600 * time.Second))
	st, err = durability.LoadFile(c.E, filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Expired != 1 || st.Keys != len(keys)-1 {
		t.Errorf("loaded %+v 600 s later, want 1 expired of %d", st, len(keys))
	}
	c.Expect(integer(0), "EXISTS", "str:ttl")
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	tt := newTester(t)
	if st, err := durability.LoadFile(tt.E, filepath.Join(t.TempDir(), "dump.rdb")); err != nil || st.Keys != 0 {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestLoadRefusesDamagedFiles(t *testing.T) {
	src := newTester(t)
	dir := t.TempDir()
	src.E.Cfg.SetDir(dir, "")
	persistDataset(src)
	src.Expect(okReply, "SAVE")
	good, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x10
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"truncated", good[:len(good)-100], rdb.ErrCorrupt},
		{"bit flipped", flipped, nil}, // corrupt or checksum, whichever the flip hits first
		{"not rdb", []byte("hello world"), rdb.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dump.rdb")
			os.WriteFile(path, tc.data, 0o644)
			tt := newTester(t)
			_, err := durability.LoadFile(tt.E, path)
			if err == nil {
				t.Fatal("loaded a damaged file")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			for i := range config.NumDBs {
				if n := tt.E.DB(i).Len(); n != 0 {
					t.Errorf("db %d kept %d keys of a refused file", i, n)
				}
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, tc.data) {
				t.Error("the refused file was modified")
			}
		})
	}
}

func TestSaveFailureKeepsServing(t *testing.T) {
	tt := newTester(t)
	dir := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(dir, 0o755)
	tt.E.Cfg.SetDir(dir, "")
	tt.Do("SET", "k", "v")
	os.Remove(dir) // as Redis after its dir is removed: the temp file cannot be created
	tt.Expect(errReply("ERR"), "SAVE")
	tt.Expect("+PONG\r\n", "PING")
	tt.Expect(bulk("v"), "GET", "k")
	tt.Expect(integer(tt.E.Start.Unix()), "LASTSAVE")
	if info := tt.Do("INFO", "persistence"); !strings.Contains(info, "rdb_changes_since_last_save:1\r\n") {
		t.Errorf("dirty counter after a failed SAVE: %s", info)
	}
}

// A crash between writing the temporary file and renaming it (kill -9 in
// the middle of a SAVE) must leave the previous file as it was.
func TestCrashBeforeRenameKeepsPreviousFile(t *testing.T) {
	dir := t.TempDir()
	tt := newTester(t)
	tt.E.Cfg.SetDir(dir, "")
	tt.Do("SET", "k", "old")
	tt.Expect(okReply, "SAVE")
	prev, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	tt.Do("SET", "k", "new")

	type crash struct{}
	var tempSeen bool
	durability.Of(tt.E).SetBeforeRename(func() {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			tempSeen = tempSeen || strings.HasPrefix(e.Name(), "temp-")
		}
		panic(crash{})
	})
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(crash); !ok {
					panic(r)
				}
			}
		}()
		tt.E.Lock()
		defer tt.E.Unlock()
		durability.SaveLocked(tt.E)
	}()
	if !tempSeen {
		t.Error("no temp file was written before the rename")
	}
	now, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if !bytes.Equal(now, prev) {
		t.Fatal("dump.rdb changed before the rename")
	}
	fresh := newTester(t)
	if _, err := durability.LoadFile(fresh.E, filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	fresh.Expect(bulk("old"), "GET", "k")
}

func TestCommitFileFailures(t *testing.T) {
	dir := t.TempDir()
	err := durability.CommitFile(dir, "dump.rdb", "tmp.rdb", func(w io.Writer) error { return fmt.Errorf("boom") }, nil)
	if err == nil || !strings.Contains(err.Error(), "Write error saving DB on disk(rdbSaveRio): boom") {
		t.Errorf("fill error: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tmp.rdb")); err == nil {
		t.Error("temp file left after a failed write")
	}
	err = durability.CommitFile(filepath.Join(dir, "missing"), "dump.rdb", "tmp.rdb", func(io.Writer) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "Failed opening the temp RDB file tmp.rdb") || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing dir: %v", err)
	}
}

func TestSavePointsAndBgsave(t *testing.T) {
	dir := t.TempDir()
	tt := newTester(t)
	tt.E.Cfg.SetDir(dir, "")
	runSteps(t, tt, []step{
		cmd(okReply, "CONFIG", "SET", "save", "10 2 3600 1"),
		cmd(array(bulk("save"), bulk("10 2 3600 1")), "CONFIG", "GET", "save"),
		cmd(errReply(engine.ErrSyntax), "BGSAVE", "x"),
		cmd(errReply(engine.ErrSyntax), "BGSAVE", "SCHEDULE", "x"),
		cmd(okReply, "SET", "a", "1"),
	})
	durability.PersistCron(tt.E)
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err == nil {
		t.Fatal("saved before a save point was reached")
	}
	tt.Do("SET", "b", "2")
	tt.Clock.Add(11 * time.Second)
	durability.PersistCron(tt.E)
	durability.WaitBgsave(tt.E)
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("no save after the save point: %v", err)
	}
	info := tt.Do("INFO", "persistence")
	for _, want := range []string{"rdb_changes_since_last_save:0\r\n", "rdb_bgsave_in_progress:0\r\n", "rdb_last_bgsave_status:ok\r\n", "rdb_saves:1\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q:\n%s", want, info)
		}
	}
	tt.Expect(integer(tt.Clock.Now().Unix()), "LASTSAVE")

	tt.Expect("+Background saving started\r\n", "BGSAVE")
	durability.WaitBgsave(tt.E)
	tt.Expect(okReply, "MULTI")
	tt.Expect("+QUEUED\r\n", "BGSAVE")
	tt.Expect(array("+Background saving scheduled\r\n"), "EXEC")
	durability.PersistCron(tt.E)
	durability.WaitBgsave(tt.E)
	if info := tt.Do("INFO", "persistence"); !strings.Contains(info, "rdb_saves:3\r\n") {
		t.Errorf("the scheduled BGSAVE did not run: %s", info)
	}
	tt.Expect(okReply, "MULTI")
	tt.Expect(errReply(engine.ErrNotInMulti), "SAVE")
	tt.Expect(errReply("EXECABORT Transaction discarded because of previous errors."), "EXEC")
}

func TestFailedBgsaveRefusesWrites(t *testing.T) {
	tt := newTester(t)
	dir := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(dir, 0o755)
	tt.E.Cfg.SetDir(dir, "")
	tt.E.Cfg.SetSavePoints([]config.SavePoint{{Seconds: 1, Changes: 1}})
	os.Remove(dir)
	tt.Expect("+Background saving started\r\n", "BGSAVE")
	durability.WaitBgsave(tt.E)
	tt.Expect(errReply(engine.ErrMisconf), "SET", "k", "v")
	tt.Expect(errReply(engine.ErrMisconf), "PING")
	tt.Expect("$-1\r\n", "GET", "k")
	if info := tt.Do("INFO", "persistence"); !strings.Contains(info, "rdb_last_bgsave_status:err\r\n") {
		t.Errorf("INFO: %s", info)
	}
	tt.Expect(okReply, "CONFIG", "SET", "save", "")
	tt.Expect(okReply, "SET", "k", "v")
}

func TestShutdownSaves(t *testing.T) {
	dir := t.TempDir()
	tt := newTester(t)
	tt.E.Cfg.SetDir(dir, "")
	stopped := make(chan struct{}, 4)
	tt.E.Shutdown = func() { stopped <- struct{}{} }
	tt.Do("SET", "k", "v")
	path := filepath.Join(dir, "dump.rdb")

	// No save points: SHUTDOWN saves only when told to.
	tt.Do("SHUTDOWN")
	<-stopped
	if _, err := os.Stat(path); err == nil {
		t.Fatal("SHUTDOWN without save points saved")
	}
	tt.E.SetShutdownDone(false)
	tt.Do("SHUTDOWN", "SAVE")
	<-stopped
	if _, err := os.Stat(path); err != nil {
		t.Fatal("SHUTDOWN SAVE did not save")
	}
	os.Remove(path)
	tt.E.SetShutdownDone(false)
	tt.E.Cfg.SetSavePoints([]config.SavePoint{{Seconds: 3600, Changes: 1}})
	tt.Do("SHUTDOWN", "NOSAVE")
	<-stopped
	if _, err := os.Stat(path); err == nil {
		t.Fatal("SHUTDOWN NOSAVE saved")
	}
	tt.E.SetShutdownDone(false)
	if err := durability.ShutdownSave(tt.E); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("the shutdown save with save points did not save")
	}

	// A failed save refuses the shutdown, unless FORCE.
	tt.E.SetShutdownDone(false)
	tt.E.Cfg.SetDir(filepath.Join(dir, "missing"), "")
	tt.C.CloseAfterReply = false
	tt.Expect(errReply(engine.ErrShutdownFailed), "SHUTDOWN")
	if tt.C.CloseAfterReply {
		t.Error("a refused SHUTDOWN closes the connection")
	}
	if err := durability.ShutdownSave(tt.E); err == nil {
		t.Error("ShutdownSave into a missing dir succeeded")
	}
	tt.Do("SHUTDOWN", "FORCE")
	<-stopped
}

func TestConfigPersistenceSettings(t *testing.T) {
	tt := newTester(t)
	wd := *tt.E.Cfg.Dir.Load()
	cfgErr := func(arg, msg string) string {
		return errReply("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg)
	}
	runSteps(t, tt, []step{
		cmd(array(bulk("dir"), bulk(wd)), "CONFIG", "GET", "dir"),
		cmd(array(bulk("dbfilename"), bulk("dump.rdb")), "CONFIG", "GET", "dbfilename"),
		cmd(array(bulk("rdbcompression"), bulk("yes")), "CONFIG", "GET", "rdbcompression"),
		cmd(array(bulk("rdbchecksum"), bulk("yes")), "CONFIG", "GET", "rdbchecksum"),
		cmd(cfgErr("dir", "can't set protected config"), "CONFIG", "SET", "dir", "/tmp"),
		cmd(cfgErr("dbfilename", "can't set protected config"), "CONFIG", "SET", "dbfilename", "x.rdb"),
		cmd(cfgErr("rdbchecksum", "can't set immutable config"), "CONFIG", "SET", "rdbchecksum", "no"),
		cmd(cfgErr("rdbcompression", "argument must be 'yes' or 'no'"), "CONFIG", "SET", "rdbcompression", "maybe"),
		cmd(okReply, "CONFIG", "SET", "rdbcompression", "no"),
		cmd(array(bulk("rdbcompression"), bulk("no")), "CONFIG", "GET", "rdbcompression"),
		cmd(okReply, "CONFIG", "SET", "save", "3600 1 300 100 60 10000"),
		cmd(array(bulk("save"), bulk("3600 1 300 100 60 10000")), "CONFIG", "GET", "save"),
	})
}

func TestParseSave(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []config.SavePoint
		err  string
	}{
		{"", []config.SavePoint{}, ""},
		{config.DefaultSave, []config.SavePoint{{Seconds: 3600, Changes: 1}, {Seconds: 300, Changes: 100}, {Seconds: 60, Changes: 10000}}, ""},
		{"1 0", []config.SavePoint{{Seconds: 1, Changes: 0}}, ""},
		{"0 1", nil, "Invalid save parameters"},
		{"1 -1", nil, "Invalid save parameters"},
		{"1", nil, "Invalid save parameters"},
		{"a b", nil, "Invalid save parameters"},
	} {
		got, err := config.ParseSave(tc.in)
		if err != tc.err || (err == "" && !slices.Equal(got, tc.want)) {
			t.Errorf("ParseSave(%q) = %v %q, want %v %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestRestoreOptions(t *testing.T) {
	tt := newTester(t)
	tt.Do("RPUSH", "l", "a", "b")
	payload := string(respBulk(t, tt.Do("DUMP", "l")))
	runSteps(t, tt, []step{
		cmd(errReply(durability.ErrBusyKey), "RESTORE", "l", "0", payload),
		cmd(errReply(durability.ErrInvalidTTL), "RESTORE", "l2", "-1", payload),
		cmd(errReply(engine.ErrNotInt), "RESTORE", "l2", "x", payload),
		cmd(errReply(durability.ErrInvalidIdle), "RESTORE", "l2", "0", payload, "IDLETIME", "-1"),
		cmd(errReply(durability.ErrInvalidFreq), "RESTORE", "l2", "0", payload, "FREQ", "256"),
		cmd(errReply(engine.ErrSyntax), "RESTORE", "l2", "0", payload, "IDLETIME", "1", "FREQ", "1"),
		cmd(errReply(engine.ErrSyntax), "RESTORE", "l2", "0", payload, "BOGUS"),
		cmd(errReply(durability.ErrBadDumpPayload), "RESTORE", "l2", "0", "short"),
		cmd(okReply, "RESTORE", "l2", "0", payload, "IDLETIME", "100"),
		cmd(integer(100), "OBJECT", "IDLETIME", "l2"),
		cmd(okReply, "RESTORE", "l2", "5000", payload, "REPLACE"),
		cmd(integer(5000), "PTTL", "l2"),
		cmd(okReply, "RESTORE", "l2", "1000", payload, "REPLACE", "ABSTTL"),
		cmd(integer(0), "EXISTS", "l2"),
		cmd(array(bulk("a"), bulk("b")), "LRANGE", "l", "0", "-1"),
	})
}

// A real kill -9 between the temp file's fsync and the rename: the child
// process (this test binary again) saves with a hook that stops it there,
// the parent kills it, and the previous dump.rdb must be intact.
func TestKill9DuringSave(t *testing.T) {
	if dir := os.Getenv("LIMITKV_SAVE_CRASH_DIR"); dir != "" {
		tt := newTester(t)
		tt.E.Cfg.SetDir(dir, "")
		for i := range 1000 {
			tt.Do("SET", "k"+strconv.Itoa(i), "new")
		}
		durability.Of(tt.E).SetBeforeRename(func() {
			os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
			time.Sleep(time.Hour)
		})
		tt.Do(os.Getenv("LIMITKV_SAVE_CRASH_CMD"))
		time.Sleep(time.Hour) // BGSAVE answers at once: wait for the kill
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	for _, tc := range []struct{ cmd, tmp string }{
		{"SAVE", "temp-%d.rdb"},
		{"BGSAVE", "temp-%d-bg1.rdb"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			tt := newTester(t)
			tt.E.Cfg.SetDir(dir, "")
			tt.Do("SET", "k0", "old")
			tt.Expect(okReply, "SAVE")
			prev, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))

			cmd := exec.Command(os.Args[0], "-test.run=^TestKill9DuringSave$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LIMITKV_SAVE_CRASH_DIR="+dir, "LIMITKV_SAVE_CRASH_CMD="+tc.cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("the child never reached the rename")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Kill() // SIGKILL
			cmd.Wait()
			tmp := filepath.Join(dir, fmt.Sprintf(tc.tmp, cmd.Process.Pid))
			if st, err := os.Stat(tmp); err != nil || st.Size() == 0 {
				t.Errorf("the killed save left no temp file %s: %v", tmp, err)
			}
			if now, _ := os.ReadFile(filepath.Join(dir, "dump.rdb")); !bytes.Equal(now, prev) {
				t.Fatal("dump.rdb changed by a save killed before its rename")
			}
			fresh := newTester(t)
			if _, err := durability.LoadFile(fresh.E, filepath.Join(dir, "dump.rdb")); err != nil {
				t.Fatal(err)
			}
			fresh.Expect(bulk("old"), "GET", "k0")
			fresh.Expect(integer(1), "DBSIZE")
		})
	}
}

// A key past its deadline that the expiry cycle has not reclaimed yet is
// written, as Redis writes it, and dropped by the load.
func TestSaveWritesUnreclaimedExpiredKeys(t *testing.T) {
	dir := t.TempDir()
	tt := newTester(t)
	tt.E.Cfg.SetDir(dir, "")
	tt.Do("SET", "gone", "v", "PX", "10")
	tt.Do("SET", "kept", "v")
	tt.Clock.Add(time.Second)
	tt.Expect(okReply, "SAVE")
	f, _ := os.Open(filepath.Join(dir, "dump.rdb"))
	defer f.Close()
	s, err := rdb.Decode(f, nil)
	if err != nil || len(s.Entries) != 2 {
		t.Fatalf("file holds %d keys (%v), want both", len(s.Entries), err)
	}
	b := newTester(t)
	b.Clock.Set(tt.Clock.Now())
	st, err := durability.LoadFile(b.E, filepath.Join(dir, "dump.rdb"))
	if err != nil || st.Keys != 1 || st.Expired != 1 {
		t.Fatalf("load: %+v %v", st, err)
	}
	if info := b.Do("INFO", "persistence"); !strings.Contains(info, "rdb_last_load_keys_expired:1\r\n") {
		t.Errorf("INFO: %s", info)
	}
}
