package durability

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/redislog"
)

// The two ways to an AOF besides the everyday start: the migration of a
// single-file AOF of before 7.0 (aofUpgradePrepare) and DEBUG LOADAOF.

// aofUpgrade is loadAppendOnlyFiles' check for an AOF of before 7.0: the
// appendfilename file in dir and a manifest that names nothing (or only
// that file as its base, which a crash between the manifest and the move
// leaves). The file becomes the base as it is, RDB preamble or not, under
// its own name, and the manifest is written before the move, so a crash
// anywhere leaves a state the next start completes.
func (d *Component) aofUpgrade(man *aof.Manifest) error {
	e := d.e
	root := *e.Cfg.Dir.Load()
	dirName := *e.Cfg.AOF.DirName.Load()
	legacy := filepath.Join(root, man.Prefix)
	if !fileExists(legacy) {
		return nil
	}
	dir := d.aofDir()
	st, err := os.Stat(dir)
	dirExists := err == nil && st.IsDir()
	if dirExists && (man.Base != nil || len(man.Incr) > 0) &&
		!(man.Base != nil && len(man.Incr) == 0 && man.Base.Name == man.Prefix && !fileExists(filepath.Join(dir, man.Prefix))) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		redislog.AOFDirFailed.Log(e.Log, dirName, unwrapPath(err).Error())
		return err
	}
	man.Base = &aof.Info{Name: man.Prefix, Seq: 1, Type: aof.TypeBase}
	man.BaseSeq = 1
	man.Modified = true
	if err := man.Write(dir); err != nil {
		e.Log.Warn(err.Error())
		return err
	}
	if err := os.Rename(legacy, filepath.Join(dir, man.Prefix)); err != nil {
		redislog.AOFMigrateMoveFailed.Log(e.Log, man.Prefix, dirName, unwrapPath(err).Error())
		return err
	}
	redislog.AOFMigrated.Log(e.Log, man.Prefix, dirName)
	return nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// ReloadAOF is DEBUG LOADAOF: what is buffered goes to the file and is
// fsynced, the dataset is emptied and loaded again from the files the
// manifest on disk names (history files it still lists are removed
// first, as Redis does). Redis exits when the load fails; here the error
// is returned for the command to answer, with the dataset and the
// functions left empty rather than half loaded. Call with the lock held.
func ReloadAOF(e *engine.Engine) error {
	d := Of(e)
	a := &d.aof
	if a.state != aofOff {
		d.aofFlush(true)
		if a.f != nil {
			a.f.Sync()
		}
	}
	// emptyData: the functions go too, or the AOF's FUNCTION LOADs and
	// its base's libraries would meet the ones loaded before.
	for _, db := range e.Dbs {
		db.Flush()
	}
	e.Scripts.DropFunctions()
	man, err := d.readManifest()
	if err != nil {
		return err
	}
	a.man = man
	if len(man.History) > 0 {
		dir := d.aofDir()
		for _, h := range man.History {
			e.Log.Info("Removing the history file " + h.Name + " in the background")
			os.Remove(filepath.Join(dir, h.Name))
		}
		man.History = nil
		man.Modified = true
		if err := man.Write(dir); err != nil {
			e.Log.Warn(err.Error())
		}
	}
	existed, err := d.loadAppendOnlyLocked(man)
	e.AddDirty(-e.DirtyCount()) // what was loaded is not a change to save or propagate
	if err != nil {
		e.Scripts.DropFunctions() // the keys went in loadAppendOnlyLocked
		return err
	}
	if !existed {
		return errors.New("no AOF to load: the manifest names no file") // AOF_NOT_EXIST, fatal to Redis too
	}
	redislog.AOFLoadedByDebug.Log(e.Log)
	return nil
}
