package clusterstate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ConfigFile is a nodes.conf this process holds the lock of, as Redis
// holds it from clusterLockConfig to exit, so that two nodes never share
// one: a second limitkv or redis-server on the same file is refused.
type ConfigFile struct {
	path string
	lock *os.File // the locked descriptor, open while we hold the file
}

// LockConfig is clusterLockConfig: it creates the file if missing (empty,
// which Load reads as ErrNoConfig) and takes an exclusive non-blocking
// flock on it. The errors carry Redis's texts: "Sorry, the cluster
// configuration file ... is already used by a different Redis Cluster
// node. ..." when another process holds it.
func LockConfig(path string) (*ConfigFile, error) {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("Can't open %s in order to acquire a lock: %s", path, strerror(err))
		}
		if err := flock(f); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("Sorry, the cluster configuration file %s is already used by a different Redis Cluster node. Please make sure that different nodes use different cluster configuration files.", path)
			}
			return nil, fmt.Errorf("Impossible to lock %s: %s", path, strerror(err))
		}
		// Save replaces the file by renaming a locked new one over it. If
		// that happened between our open and our flock, we locked the old
		// file: the holder has the new one, so look again.
		if sameFile(f, path) {
			c := &ConfigFile{path: path, lock: f}
			c.removeStaleTemps()
			return c, nil
		}
		f.Close()
	}
}

func sameFile(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// Path is the file's path.
func (c *ConfigFile) Path() string { return c.path }

// Load is Load of the locked file.
func (c *ConfigFile) Load(o LoadOptions) (*State, error) { return Load(c.path, o) }

// Close releases the lock (Redis keeps it until exit).
func (c *ConfigFile) Close() error {
	if c.lock == nil {
		return nil
	}
	err := c.lock.Close()
	c.lock = nil
	return err
}

// Save is clusterSaveConfig: it writes s.ConfigText() to the file, and
// with fsync (Redis's do_fsync, TodoFsyncConfig) makes it durable.
//
// Redis 7.0.15 rewrites the file in place (one write, padded with
// newlines, then ftruncate), which a crash mid-write can leave torn. Save
// writes a new file beside it and renames it over the old one, so the
// path always holds a whole file, the old or the new; the content is
// Redis's byte for byte. The new file is locked before the rename, so the
// lock never lapses. Where the directory is not writable, but the file is
// (Redis runs there), Save falls back to Redis's in-place rewrite.
func (c *ConfigFile) Save(s *State, fsync bool) error {
	if c.lock == nil {
		return errors.New("clusterstate: Save on a closed ConfigFile")
	}
	data := s.ConfigText()
	tmp, err := c.createTemp()
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return c.saveInPlace(data, fsync)
	}
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if fsync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := flock(tmp); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fail(err)
	}
	old := c.lock
	c.lock = tmp
	old.Close()
	if fsync {
		return syncDir(filepath.Dir(c.path))
	}
	return nil
}

// tempInfix names Save's new files: <path>.tmp-<random>.
const tempInfix = ".tmp-"

func (c *ConfigFile) createTemp() (*os.File, error) {
	for {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(c.path+tempInfix+hex.EncodeToString(r[:]), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
}

// removeStaleTemps deletes new files a crash left before their rename:
// with the lock held, no other process writes them.
func (c *ConfigFile) removeStaleTemps() {
	matches, _ := filepath.Glob(globEscape(c.path) + tempInfix + "*")
	for _, m := range matches {
		os.Remove(m)
	}
}

func globEscape(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(p)
}

// saveInPlace is 7.0.15's clusterSaveConfig: overwrite from the start,
// padding with newlines (which Load skips) to the old length so that a
// single write covers the old content, then cut the padding off.
func (c *ConfigFile) saveInPlace(data []byte, fsync bool) error {
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	content := len(data)
	if fi.Size() > int64(content) {
		data = append(data, strings.Repeat("\n", int(fi.Size())-content)...)
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if fsync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if len(data) != content {
		_ = f.Truncate(int64(content)) // harmless if it fails: Load skips newlines
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
