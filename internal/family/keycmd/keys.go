package keycmd

import (
	"bytes"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
)

// Generic keyspace commands (Redis's db.c and object.c): DEL, UNLINK, EXISTS,
// TYPE, KEYS, SCAN, RANDOMKEY, RENAME, RENAMENX, COPY, MOVE, TOUCH, OBJECT.
var KeyCommands = []*engine.Command{
	{Name: "del", Arity: -2, Flags: engine.FlagWrite, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic",
		Handler: cmdDel},
	{Name: "unlink", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic",
		Handler: cmdDel},
	{Name: "exists", Arity: -2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic",
		Handler: cmdExists},
	{Name: "type", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: cmdType},
	{Name: "keys", Arity: 2, Flags: engine.FlagReadOnly, Group: "generic",
		Handler: cmdKeys},
	{Name: "scan", Arity: -2, Flags: engine.FlagReadOnly, Group: "generic",
		Handler: cmdScan},
	{Name: "randomkey", Arity: 1, Flags: engine.FlagReadOnly, Group: "generic",
		Handler: cmdRandomKey},
	{Name: "rename", Arity: 3, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic",
		Handler: cmdRename},
	{Name: "renamenx", Arity: 3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic",
		Handler: cmdRenameNX},
	{Name: "copy", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic",
		Handler: cmdCopy},
	{Name: "move", Arity: 3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: cmdMove},
	{Name: "swapdb", Arity: 3, Flags: engine.FlagWrite | engine.FlagFast, Group: "server",
		Handler: cmdSwapDB},
	{Name: "touch", Arity: -2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic",
		Handler: cmdTouch},
	{Name: "object", Arity: -2, Group: "generic",
		Sub: map[string]*engine.Command{
			"encoding": {Arity: 3, Flags: engine.FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic",
				Handler: cmdObjectEncoding},
			"freq": {Arity: 3, Flags: engine.FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic",
				Handler: cmdObjectFreq},
			"idletime": {Arity: 3, Flags: engine.FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic",
				Handler: cmdObjectIdletime},
			"refcount": {Arity: 3, Flags: engine.FlagReadOnly, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic",
				Handler: cmdObjectRefcount},
			"help": {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "generic",
				Handler: cmdObjectHelp},
		}},
}

// getInt32 is getIntFromObjectOrReply: a string2ll integer within C int range.
func getInt32(arg []byte) (int, string) {
	n, ok := num.ParseInt(arg)
	if !ok {
		return 0, engine.ErrNotInt
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, engine.ErrIntRange32
	}
	return int(n), ""
}

func cmdDel(x *engine.Ctx) {
	var n int64
	for _, k := range x.Args[1:] {
		if x.DB.Delete(k, x.Now) {
			x.Modified(k)
			x.Notify(config.EvGeneric, "del", k)
			n++
		}
	}
	x.W.Int(n)
}

// cmdExists counts a key once per time it is named, as Redis does.
func cmdExists(x *engine.Ctx) {
	var n int64
	for _, k := range x.Args[1:] {
		if x.LookupNoTouch(k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

func cmdType(x *engine.Ctx) { x.W.Simple(engine.TypeName(x.LookupNoTouch(x.Args[1]))) }

func cmdTouch(x *engine.Ctx) {
	var n int64
	for _, k := range x.Args[1:] {
		if x.Lookup(k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

// cmdKeys lists live keys matching the pattern. Like Redis it skips expired
// keys without deleting them, and "*" alone matches every key without
// running the matcher (so it also returns the empty key, which
// stringmatchlen would not match).
func cmdKeys(x *engine.Ctx) {
	pat := x.Args[1]
	all := len(pat) == 1 && pat[0] == '*'
	off := x.W.ArrayPlaceholder()
	n := 0
	x.DB.ForEach(func(e *keyspace.Entry) bool {
		if all || glob.Match(pat, e.Key(), false) {
			if exp := e.Expiry(); exp == keyspace.NoExpiry || x.Now <= exp {
				x.W.BulkString(e.Key())
				n++
			}
		}
		return true
	})
	x.W.PatchArray(off, n)
}

func cmdScan(x *engine.Ctx) {
	cursor, ok := engine.ParseScanCursor(x.Args[1])
	if !ok {
		x.W.Error(engine.ErrInvalidCursor)
		return
	}
	o, ok := engine.ParseScanOptions(x, 2, true)
	if !ok {
		return
	}
	count, pat, usePat, typ, useType := o.Count, o.Pat, o.UsePat, o.Typ, o.UseType

	// Collect first, filter after: the filters may delete expired keys,
	// which must not happen while a bucket is being walked.
	var keys []string
	maxIter := count * 10 // wraps for huge COUNTs exactly as Redis's long does
	for {
		cursor = x.DB.Scan(cursor, func(e *keyspace.Entry) { keys = append(keys, e.Key()) })
		if cursor == 0 {
			break
		}
		left := maxIter
		maxIter--
		if left == 0 || int64(len(keys)) >= count {
			break
		}
	}

	x.W.Array(2)
	x.W.BulkString(strconv.FormatUint(cursor, 10))
	off := x.W.ArrayPlaceholder()
	n := 0
	for _, k := range keys {
		if usePat && !glob.Match(pat, k, false) {
			continue
		}
		if useType {
			// Redis looks the key up to name its type, which deletes it if
			// it expired, and then finds no deadline left to filter on: so
			// TYPE none returns expired keys. Kept for parity.
			if !engine.CEqualFold(typ, engine.TypeName(x.LookupNoTouch([]byte(k)))) {
				continue
			}
		} else if x.DB.GetNoTouch([]byte(k), x.Now) == nil {
			continue // expired: deleted now, as expireIfNeeded does
		}
		x.W.BulkString(k)
		n++
	}
	x.W.PatchArray(off, n)
}

// cmdRandomKey returns a random live key. An expired pick is deleted and
// another drawn, as Redis's dbRandomKey does on a master; every draw either
// returns or removes a key, so the loop ends.
func cmdRandomKey(x *engine.Ctx) {
	for {
		e := x.DB.Random()
		if e == nil {
			x.W.Null()
			return
		}
		if x.DB.ExpireIfDue(e, x.Now) {
			continue
		}
		x.W.BulkString(e.Key())
		return
	}
}

func cmdRename(x *engine.Ctx)   { renameGeneric(x, false) }
func cmdRenameNX(x *engine.Ctx) { renameGeneric(x, true) }

// renameGeneric moves the value, with its TTL, to the new name, dropping
// whatever the new name held. Renaming a key to itself checks only that it
// exists.
func renameGeneric(x *engine.Ctx, nx bool) {
	src, dst := x.Args[1], x.Args[2]
	e := x.DB.Get(src, x.Now)
	if e == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	if bytes.Equal(src, dst) {
		if nx {
			x.W.Int(0)
		} else {
			x.W.OK()
		}
		return
	}
	if old := x.DB.Get(dst, x.Now); old != nil {
		if nx {
			x.W.Int(0)
			return
		}
		x.DB.Remove(old)
	}
	ne := x.DB.MoveTo(e, x.DB, dst)
	x.SignalReadyIn(x.C.DB, ne)
	x.Modified(src)
	x.Modified(dst)
	x.Notify(config.EvGeneric, "rename_from", src)
	x.Notify(config.EvGeneric, "rename_to", dst)
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

func cmdCopy(x *engine.Ctx) {
	args := x.Args
	dbid, replace := x.C.DB, false
	for j := 3; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case engine.CEqualFold(args[j], "replace"):
			replace = true
		case engine.CEqualFold(args[j], "db") && more >= 1:
			n, msg := getInt32(args[j+1])
			if msg != "" {
				x.W.Error(msg)
				return
			}
			if n < 0 || n >= config.NumDBs {
				x.W.Error(engine.ErrDBIndex)
				return
			}
			dbid = n
			j++
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	src, dst := args[1], args[2]
	if x.E.Cfg.ClusterEnabled() && (x.C.DB != 0 || dbid != 0) {
		x.W.Error(errClusterCopy)
		return
	}
	if dbid == x.C.DB && bytes.Equal(src, dst) {
		x.W.Error(engine.ErrSameObject)
		return
	}
	e := x.Lookup(src)
	if e == nil {
		x.W.Int(0)
		return
	}
	to := x.E.DB(dbid)
	old := to.Get(dst, x.Now)
	if old != nil && !replace {
		x.W.Int(0)
		return
	}
	val, enc := engine.CopyValue(e)
	if old != nil {
		to.Remove(old)
	}
	ne := to.Add(dst, val)
	ne.Enc = enc
	to.SetExpiry(ne, e.Expiry())
	x.SignalReadyIn(dbid, ne)
	x.E.KeyModified(dbid, dst, x.C)
	x.Dirty()
	x.E.NotifyKeyspace(config.EvGeneric, "copy_to", dst, dbid)
	x.W.Int(1)
}

func cmdMove(x *engine.Ctx) {
	if x.E.Cfg.ClusterEnabled() {
		x.W.Error(errClusterMove)
		return
	}
	dbid, msg := getInt32(x.Args[2])
	if msg != "" {
		x.W.Error(msg)
		return
	}
	if dbid < 0 || dbid >= config.NumDBs {
		x.W.Error(engine.ErrDBIndex)
		return
	}
	if dbid == x.C.DB {
		x.W.Error(engine.ErrSameObject)
		return
	}
	key := x.Args[1]
	e := x.DB.Get(key, x.Now)
	if e == nil {
		x.W.Int(0)
		return
	}
	to := x.E.DB(dbid)
	if to.Get(key, x.Now) != nil {
		x.W.Int(0)
		return
	}
	ne := x.DB.MoveTo(e, to, key)
	x.SignalReadyIn(dbid, ne)
	x.Modified(key)
	x.E.KeyModified(dbid, key, x.C)
	x.Notify(config.EvGeneric, "move_from", key)
	x.E.NotifyKeyspace(config.EvGeneric, "move_to", key, dbid)
	x.W.Int(1)
}

func lfuPolicy(x *engine.Ctx) bool { return x.E.Cfg.Access.LFU }

func cmdObjectEncoding(x *engine.Ctx) {
	e := x.LookupNoNotify(x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	x.W.BulkString(engine.ValueEncoding(e))
}

func cmdObjectRefcount(x *engine.Ctx) {
	e := x.LookupNoNotify(x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	if v, ok := e.Val.([]byte); ok && e.Enc == keyspace.EncAuto && engine.SharedInt(v) && x.SharedIntsAllowed() {
		x.W.Int(1<<31 - 1) // OBJ_SHARED_REFCOUNT
		return
	}
	x.W.Int(1)
}

// cmdObjectIdletime reads the key's access field as an LRU clock, in whole
// seconds as Redis's clock counts them.
func cmdObjectIdletime(x *engine.Ctx) {
	e := x.LookupNoNotify(x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	if lfuPolicy(x) {
		x.W.Error(engine.ErrLFUSelected)
		return
	}
	x.W.Int(e.IdleMs(x.Now) / 1000)
}

func cmdObjectFreq(x *engine.Ctx) {
	e := x.LookupNoNotify(x.Args[2])
	if e == nil {
		x.W.Null()
		return
	}
	if !lfuPolicy(x) {
		x.W.Error(engine.ErrLFUNotSelected)
		return
	}
	x.W.Int(int64(x.DB.Freq(e, x.Now)))
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

func cmdObjectHelp(x *engine.Ctx) {
	x.W.Array(len(objectHelp))
	for _, l := range objectHelp {
		x.W.Simple(l)
	}
}

// cmdSwapDB is Redis's swapdbCommand: the two databases' contents change
// places while clients, their watched keys and their blocked commands stay
// with the database number they chose. A watch is invalidated as Redis's
// touchAllWatchedKeysInDb decides (the key exists on either side, with
// its rules for keys whose deadline has passed), clients blocked on a
// key the swap brings in are served, and XREADGROUP waiters whose stream
// the swap takes away get -UNBLOCKED.
func cmdSwapDB(x *engine.Ctx) {
	// Not allowed in cluster mode: there is database 0 only.
	if x.E.Cfg.ClusterEnabled() {
		x.W.Error(errClusterSwapDB)
		return
	}
	a, ok := swapDBIndex(x.Args[1])
	if !ok {
		x.W.Error(errSwapDBFirst)
		return
	}
	b, ok := swapDBIndex(x.Args[2])
	if !ok {
		x.W.Error(errSwapDBSecond)
		return
	}
	if a < 0 || a >= config.NumDBs || b < 0 || b >= config.NumDBs {
		x.W.Error(engine.ErrDBIndex)
		return
	}
	x.SwapDB(a, b)
	x.Dirty() // server.dirty++ even for a database swapped with itself
	x.W.OK()
}

// swapDBIndex is getIntFromObjectOrReply: an integer that fits in 32 bits.
func swapDBIndex(arg []byte) (int, bool) {
	n, ok := num.ParseInt(arg)
	if !ok || n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return int(n), true
}

// A cluster node has database 0 only.
const (
	errClusterMove   = "ERR MOVE is not allowed in cluster mode"
	errClusterCopy   = "ERR Copying to another database is not allowed in cluster mode"
	errClusterSwapDB = "ERR SWAPDB is not allowed in cluster mode"
)
