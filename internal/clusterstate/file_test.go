package clusterstate

import (
	"os"
	"path/filepath"
	"testing"
)

func lockedMsg(path string) string {
	return "Sorry, the cluster configuration file " + path + " is already used by a different Redis Cluster node. Please make sure that different nodes use different cluster configuration files."
}

func TestLockConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nodes.conf")
	cf, err := LockConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("LockConfig made %v, %v; want an empty file", fi, err)
	}
	if _, err := cf.Load(LoadOptions{}); err != ErrNoConfig {
		t.Errorf("Load of the empty file: %v, want ErrNoConfig", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.conf"), LoadOptions{}); err != ErrNoConfig {
		t.Errorf("Load of a missing file: %v, want ErrNoConfig", err)
	}
	// flock locks belong to the open file, so a second open in this process
	// is refused as another process is.
	if _, err := LockConfig(path); err == nil || err.Error() != lockedMsg(path) {
		t.Errorf("second LockConfig: %v", err)
	}
	if _, err := LockConfig(filepath.Join(dir, "no", "such", "dir")); err == nil ||
		err.Error() != "Can't open "+filepath.Join(dir, "no", "such", "dir")+" in order to acquire a lock: No such file or directory" {
		t.Errorf("LockConfig in a missing directory: %v", err)
	}
	cf.Close()
	cf2, err := LockConfig(path)
	if err != nil {
		t.Fatalf("LockConfig after Close: %v", err)
	}
	cf2.Close()
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nodes.conf")
	stale := path + tempInfix + "0123"
	if err := os.WriteFile(stale, []byte("left by a crash"), 0o644); err != nil {
		t.Fatal(err)
	}
	cf, err := LockConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	s, _, _, _, _ := texts(t)
	for _, fsync := range []bool{true, false} {
		s.CurrentEpoch++
		if err := cf.Save(s, fsync); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != string(s.ConfigText()) {
			t.Fatalf("saved %q, %v", got, err)
		}
		// The lock moved to the new file with it.
		if _, err := LockConfig(path); err == nil || err.Error() != lockedMsg(path) {
			t.Errorf("LockConfig after Save: %v", err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("Save left files behind: %v", entries)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o044 == 0 {
		t.Errorf("nodes.conf mode %v: Redis makes it 0644 (less the umask)", fi.Mode())
	}
	loaded, err := cf.Load(LoadOptions{Verbatim: true})
	if err != nil || string(loaded.ConfigText()) != string(s.ConfigText()) {
		t.Errorf("Load after Save: %v", err)
	}
	cf.Close()
	if err := cf.Save(s, false); err == nil {
		t.Error("Save after Close succeeded")
	}
}

// saveInPlace is 7.0.15's own rewrite, the fallback for a directory we
// cannot create files in.
func TestSaveInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.conf")
	cf := &ConfigFile{path: path}
	for _, old := range []string{"", "short\n", string(make([]byte, 1000))} {
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cf.saveInPlace([]byte("new content\n"), true); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != "new content\n" {
			t.Errorf("over %d bytes: %q", len(old), got)
		}
	}
}
