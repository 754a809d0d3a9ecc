package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/resp"
)

// bgKey names keys by type, so most random commands hit a key of their type.
func bgKey(r *rand.Rand, typ string) string {
	return typ + ":" + strconv.Itoa(r.IntN(3000))
}

// bgWrite returns a random write (or read) command: every type, deletions,
// deadlines set and removed, renames, moves, copies, SWAPDB, FLUSHDB.
func bgWrite(r *rand.Rand) []string {
	n := strconv.Itoa(r.IntN(1000))
	switch r.IntN(36) {
	case 0:
		return []string{"SET", bgKey(r, "s"), "v" + n}
	case 1:
		return []string{"APPEND", bgKey(r, "s"), n}
	case 2:
		return []string{"SETRANGE", bgKey(r, "s"), "1", "XY"}
	case 3:
		return []string{"INCR", bgKey(r, "n")}
	case 4:
		return []string{"RPUSH", bgKey(r, "l"), n, "e" + n}
	case 5:
		return []string{"LPOP", bgKey(r, "l")}
	case 6:
		return []string{"LSET", bgKey(r, "l"), "0", "set" + n}
	case 7:
		return []string{"SADD", bgKey(r, "set"), n, "m" + n}
	case 8:
		return []string{"SREM", bgKey(r, "set"), n}
	case 9:
		return []string{"SPOP", bgKey(r, "set")}
	case 10:
		return []string{"ZADD", bgKey(r, "z"), n, "m" + n}
	case 11:
		return []string{"ZINCRBY", bgKey(r, "z"), "2.5", "m" + strconv.Itoa(r.IntN(10))}
	case 12:
		return []string{"ZREMRANGEBYRANK", bgKey(r, "z"), "0", "0"}
	case 13:
		return []string{"HSET", bgKey(r, "h"), "f" + n, "v" + n}
	case 14:
		return []string{"HDEL", bgKey(r, "h"), "f" + strconv.Itoa(r.IntN(10))}
	case 15:
		return []string{"HINCRBY", bgKey(r, "h"), "cnt", "3"}
	case 16:
		return []string{"DEL", bgKey(r, "s"), bgKey(r, "z")}
	case 17:
		return []string{"UNLINK", bgKey(r, "l"), bgKey(r, "h")}
	case 18:
		return []string{"PEXPIRE", bgKey(r, "z"), strconv.Itoa(1 + r.IntN(3000))}
	case 19:
		return []string{"EXPIRE", bgKey(r, "set"), strconv.Itoa(1 + r.IntN(5))}
	case 20:
		return []string{"PERSIST", bgKey(r, "h")}
	case 21:
		return []string{"RENAME", bgKey(r, "z"), bgKey(r, "z")}
	case 22:
		return []string{"RENAMENX", bgKey(r, "l"), bgKey(r, "l")}
	case 23:
		return []string{"MOVE", bgKey(r, "s"), strconv.Itoa(r.IntN(3))}
	case 24:
		return []string{"COPY", bgKey(r, "h"), bgKey(r, "h"), "DB", strconv.Itoa(r.IntN(3)), "REPLACE"}
	case 25:
		if r.IntN(20) == 0 {
			return []string{"SWAPDB", "0", "1"}
		}
		return []string{"GET", bgKey(r, "s")}
	case 26:
		if r.IntN(40) == 0 {
			return []string{"FLUSHDB"}
		}
		return []string{"ZRANGE", bgKey(r, "z"), "0", "-1"}
	case 27:
		return []string{"SELECT", strconv.Itoa(r.IntN(3))}
	case 28:
		return []string{"RL.CHECK", bgKey(r, "rl"), "*", "60000", "5", "m" + n}
	case 29:
		return []string{"GETDEL", bgKey(r, "s")}
	case 30:
		return []string{"LTRIM", bgKey(r, "l"), "1", "-1"}
	case 31:
		return []string{"SMOVE", bgKey(r, "set"), bgKey(r, "set"), n}
	case 32:
		return []string{"ZPOPMIN", bgKey(r, "z")}
	case 33:
		return []string{"SET", bgKey(r, "new"), n, "PX", strconv.Itoa(1 + r.IntN(500))}
	case 34:
		return []string{"RANDOMKEY"}
	default:
		return []string{"SCAN", n, "COUNT", "50"}
	}
}

// bgFill loads every type in small and large encodings, with and without
// deadlines (some already due), into databases 0, 1 and 2.
func bgFill(t *testing.T, tt *tester, r *rand.Rand, keys int) {
	for i := range keys {
		tt.Do("SELECT", strconv.Itoa(i%3))
		n := strconv.Itoa(i)
		var cmd []string
		switch i % 6 {
		case 0:
			cmd = []string{"SET", "s:" + strconv.Itoa(i%3000), strings.Repeat("x", r.IntN(60)) + n}
		case 1:
			cmd = []string{"RPUSH", "l:" + strconv.Itoa(i%3000)}
			for j := range 1 + r.IntN(200) {
				cmd = append(cmd, "e"+strconv.Itoa(j))
			}
		case 2:
			cmd = []string{"SADD", "set:" + strconv.Itoa(i%3000)}
			for j := range 1 + r.IntN(600) {
				if i%4 == 0 {
					cmd = append(cmd, strconv.Itoa(j))
				} else {
					cmd = append(cmd, "m"+strconv.Itoa(j))
				}
			}
		case 3:
			cmd = []string{"ZADD", "z:" + strconv.Itoa(i%3000)}
			for j := range 1 + r.IntN(200) {
				cmd = append(cmd, strconv.Itoa(j%17), "m"+strconv.Itoa(j))
			}
		case 4:
			cmd = []string{"HSET", "h:" + strconv.Itoa(i%3000)}
			for j := range 1 + r.IntN(200) {
				cmd = append(cmd, "f"+strconv.Itoa(j), strconv.Itoa(j))
			}
		default:
			cmd = []string{"RL.CHECK", "rl:" + strconv.Itoa(i%3000), "*", "60000", "5", "m" + n}
		}
		if got := tt.Do(cmd...); strings.HasPrefix(got, "-") {
			t.Fatalf("%v: %s", cmd[:2], got)
		}
		if r.IntN(3) == 0 {
			tt.Do("PEXPIRE", cmd[1], strconv.Itoa(1+r.IntN(4000)))
		}
	}
	tt.Do("SELECT", "0")
}

// rdbContent reads an RDB file into its aux fields (used-mem aside: it is
// sampled, not part of the data) and, per database and key, the record
// re-encoded, which holds the value, its encoding and the deadline.
func rdbContent(t *testing.T, file []byte) (aux []string, keys map[string]string) {
	t.Helper()
	rd, err := rdb.NewReader(bytes.NewReader(file), &rdb.ReaderOptions{Databases: config.NumDBs})
	if err != nil {
		t.Fatal(err)
	}
	enc := rdb.NewEntryEncoder(rdb.WriterOptions{})
	keys = map[string]string{}
	for {
		ent, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, err := enc.Append(nil, ent)
		if err != nil {
			t.Fatal(err)
		}
		id := strconv.Itoa(ent.DB) + "/" + string(ent.Key)
		if _, dup := keys[id]; dup {
			t.Fatalf("%s twice in the file", id)
		}
		keys[id] = string(rec)
	}
	for _, a := range rd.Aux {
		if string(a.Key) != "used-mem" {
			aux = append(aux, string(a.Key)+"="+string(a.Value))
		}
	}
	return aux, keys
}

// resizeHints lists the SELECTDB/RESIZEDB records of a file written by
// this engine (the reader consumes them without reporting them).
func resizeHints(file []byte) string {
	size := func(b byte) int { // an RDB length's size from its first byte
		switch {
		case b < 0x80:
			return 1 + int(b>>6)
		case b == 0x80:
			return 5
		}
		return 9
	}
	var b strings.Builder
	for i := 0; i+2 < len(file); i++ {
		// SELECTDB n RESIZEDB: 0xFE, a 1-byte length, 0xFB.
		if file[i] == 0xFE && file[i+1] < 16 && file[i+2] == 0xFB {
			j := i + 3
			k := j + size(file[j])
			end := k + size(file[k])
			fmt.Fprintf(&b, "db%d:%x ", file[i+1], file[j:end])
		}
	}
	return b.String()
}

// TestBgsaveIsPointInTime starts BGSAVE in the same lock hold as a SAVE
// into memory, keeps four clients writing, deleting, expiring, renaming,
// moving and swapping keys of every type while the walk runs (with the
// active expiry cycle and active rehashing going too), and checks that the
// file holds exactly the SAVE's content: the same aux fields, RESIZEDB
// hints and, key by key, the same record (value, encoding, deadline).
// Only the order of keys within a database may differ.
func TestBgsaveIsPointInTime(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(strconv.Itoa(int(seed)), func(t *testing.T) { bgsaveRun(t, seed) })
	}
}

func bgsaveRun(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 14))
	tt := newTester(t)
	dir := t.TempDir()
	tt.E.Cfg.SetDir(dir, "")
	keys := 6000
	if testing.Short() {
		keys = 1500
	}
	bgFill(t, tt, r, keys)
	tt.Clock.Add(time.Second) // some deadlines pass: unreclaimed keys are saved too

	var atStart bytes.Buffer
	tt.E.Lock()
	if _, err := durability.WriteSnapshot(tt.E, &atStart); err != nil {
		t.Fatal(err)
	}
	if err := durability.BgsaveLocked(tt.E); err != nil {
		t.Fatal(err)
	}
	tt.E.Unlock()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			c := tt.E.NewClient("127.0.0.1:"+strconv.Itoa(2000+g), "127.0.0.1:6379")
			var w resp.Writer
			for {
				select {
				case <-stop:
					return
				default:
				}
				tt.E.Lock()
				for range 1 + r.IntN(8) {
					args := bgWrite(r)
					bargs := make([][]byte, len(args))
					for i, a := range args {
						bargs[i] = []byte(a)
					}
					w.Reset(0)
					tt.E.Exec(c, bargs, &w)
				}
				tt.E.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // time passes, keys expire lazily and actively
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			tt.E.Lock()
			tt.Clock.Add(20 * time.Millisecond)
			tt.E.Unlock()
			tt.E.ExpireCycle(time.Millisecond)
			tt.E.RehashActively(time.Millisecond)
		}
	}()
	durability.WaitBgsave(tt.E)
	close(stop)
	wg.Wait()

	if info := tt.Do("INFO", "persistence"); !strings.Contains(info, "rdb_last_bgsave_status:ok\r\n") {
		t.Fatalf("background save failed: %s", info)
	}
	file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	wantAux, want := rdbContent(t, atStart.Bytes())
	gotAux, got := rdbContent(t, file)
	if strings.Join(gotAux, " ") != strings.Join(wantAux, " ") {
		t.Errorf("aux fields %v, SAVE wrote %v", gotAux, wantAux)
	}
	if g, w := resizeHints(file), resizeHints(atStart.Bytes()); g != w || w == "" {
		t.Errorf("RESIZEDB hints %q, SAVE wrote %q", g, w)
	}
	if len(want) < keys/2 {
		t.Fatalf("only %d keys at the start", len(want))
	}
	if len(got) != len(want) {
		t.Errorf("BGSAVE wrote %d keys, SAVE at its start %d", len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			if bad++; bad <= 5 {
				t.Errorf("%s: BGSAVE record %.60q, SAVE's %.60q", k, g, w)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			if bad++; bad <= 10 {
				t.Errorf("%s: in BGSAVE's file, not in SAVE's", k)
			}
		}
	}
	if bytes.Equal(file, atStart.Bytes()) {
		t.Log("the files are identical byte for byte")
	}
	// The writers really did change the dataset meanwhile.
	var now bytes.Buffer
	tt.E.Lock()
	durability.WriteSnapshot(tt.E, &now)
	tt.E.Unlock()
	if _, after := rdbContent(t, now.Bytes()); fmt.Sprint(after) == fmt.Sprint(want) {
		t.Error("the dataset did not change during the save: the test proves nothing")
	}
}

// bgLeftovers lists the temporary files left in dir.
func bgLeftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "temp-*"))
	return m
}

// While a BGSAVE runs: BGSAVE and SAVE are refused with Redis's error,
// INFO shows it in progress with its key counts, and once it is done the
// changes made meanwhile are still counted as unsaved.
func TestBgsaveInProgress(t *testing.T) {
	tt := newTester(t)
	dir := t.TempDir()
	tt.E.Cfg.SetDir(dir, "")
	for i := range 500 {
		tt.Do("SET", "k"+strconv.Itoa(i), "v")
	}
	tt.E.Lock()
	tt.E.AddDirty(-tt.E.DirtyCount())
	tt.E.Unlock()
	started := make(chan struct{})
	release := make(chan struct{})
	durability.Of(tt.E).SetBeforeRename(func() { close(started); <-release })
	tt.Expect("+Background saving started\r\n", "BGSAVE")
	<-started // the file is written, not yet renamed
	tt.Expect(errReply(durability.ErrBgsaveInProgress), "BGSAVE")
	tt.Expect(errReply(durability.ErrBgsaveInProgress), "BGSAVE", "SCHEDULE")
	tt.Expect(errReply(durability.ErrBgsaveInProgress), "SAVE")
	tt.Do("SET", "during", "1")
	tt.Do("DEL", "k1", "k2")
	// Lookups leave access times alone while the save runs, as Redis's
	// do while it has a child.
	tt.Clock.Add(10 * time.Second)
	tt.Do("GET", "k3")
	tt.Expect(integer(10), "OBJECT", "IDLETIME", "k3")
	info := tt.Do("INFO", "persistence")
	for _, want := range []string{"rdb_bgsave_in_progress:1\r\n", "current_save_keys_total:500\r\n",
		"current_save_keys_processed:500\r\n", "current_fork_perc:100.00\r\n", "rdb_current_bgsave_time_sec:10\r\n",
		"rdb_changes_since_last_save:3\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO during the save lacks %q", want)
		}
	}
	close(release)
	durability.WaitBgsave(tt.E)
	tt.Do("GET", "k3")
	tt.Expect(integer(0), "OBJECT", "IDLETIME", "k3")
	info = tt.Do("INFO", "persistence")
	for _, want := range []string{"rdb_bgsave_in_progress:0\r\n", "rdb_last_bgsave_status:ok\r\n", "current_save_keys_total:0\r\n",
		"rdb_changes_since_last_save:3\r\n", "rdb_current_bgsave_time_sec:-1\r\n", "rdb_last_bgsave_time_sec:10\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO after the save lacks %q", want)
		}
	}
	file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, keys := rdbContent(t, file); len(keys) != 500 || keys["0/during"] != "" || keys["0/k1"] == "" {
		t.Errorf("the file has %d keys (during: %v, k1: %v), want the 500 of the start", len(keys), keys["0/during"] != "", keys["0/k1"] != "")
	}
	if l := bgLeftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

// FLUSHALL kills a background save (flushAllDataAndResetRDB): nothing is
// written, no temporary file is left, and the last status stays ok, as
// for a child killed with SIGUSR1. SHUTDOWN kills it too, before its own
// save, so the file SHUTDOWN SAVE writes is the one that stays.
func TestBgsaveAborted(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  []string
	}{
		{"flushall", []string{"FLUSHALL"}},
		{"shutdown nosave", []string{"SHUTDOWN", "NOSAVE"}},
		{"shutdown save", []string{"SHUTDOWN", "SAVE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTester(t)
			dir := t.TempDir()
			tt.E.Cfg.SetDir(dir, "")
			tt.E.Shutdown = func() {}
			for i := range 3000 {
				tt.Do("RPUSH", "l"+strconv.Itoa(i), "a", "b")
			}
			var w resp.Writer
			tt.E.Lock()
			if err := durability.BgsaveLocked(tt.E); err != nil {
				t.Fatal(err)
			}
			// In the same lock hold: the walk has not even started.
			tt.E.Exec(tt.C, [][]byte{[]byte("SET"), []byte("after"), []byte("1")}, &w)
			args := make([][]byte, len(tc.cmd))
			for i, a := range tc.cmd {
				args[i] = []byte(a)
			}
			tt.E.Exec(tt.C, args, &w)
			tt.E.Unlock()
			durability.WaitBgsave(tt.E)
			if tt.E.ShutdownDone() {
				// After a shutdown nothing runs (it would be lost with
				// the process): look at the state as it was left.
				tt.E.Lock()
				out := tt.E.Exec(tt.C, [][]byte{[]byte("SET"), []byte("late"), []byte("1")}, &w)
				tt.E.Unlock()
				if out != engine.Close {
					t.Errorf("a command after the shutdown ran (outcome %v)", out)
				}
				tt.E.SetShutdownDone(false)
			}
			info := tt.Do("INFO", "persistence")
			for _, want := range []string{"rdb_bgsave_in_progress:0\r\n", "rdb_last_bgsave_status:ok\r\n", "current_save_keys_total:0\r\n"} {
				if !strings.Contains(info, want) {
					t.Errorf("INFO lacks %q", want)
				}
			}
			if l := bgLeftovers(t, dir); len(l) > 0 {
				t.Errorf("temporary files left: %v", l)
			}
			file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if tc.name != "shutdown save" {
				if err == nil {
					t.Fatalf("the aborted save wrote dump.rdb (%d bytes)", len(file))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, keys := rdbContent(t, file); len(keys) != 3001 || keys["0/after"] == "" {
				t.Errorf("SHUTDOWN SAVE's file has %d keys, want the 3001 at the shutdown", len(keys))
			}
		})
	}
}
