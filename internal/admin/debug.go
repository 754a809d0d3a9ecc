package admin

import (
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/zset"
)

// DEBUG, as Redis 7.0's debugCommand: one command whose first argument
// picks what it does (not a container: an unknown name or a wrong argument
// count both answer Redis's subcommand syntax error). It is refused unless
// enable-debug-command allows the client (checked in dispatch, after the
// arity and before AUTH, as processCommand does). The digest is in
// debug_digest.go.
var debugCommands = []*engine.Command{
	{Name: "debug", Arity: -2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdDebug},
}

// errDebugUnsupported answers the subcommands that exist in Redis but that
// limitkv cannot honour (crashing the process, jemalloc, AOF, C struct
// sizes).
func errDebugUnsupported(sub []byte) string {
	return "ERR DEBUG " + strings.ToUpper(string(engine.Cstr(sub))) + " is not supported by limitkv"
}

func errDebugSyntax(sub []byte) string {
	return fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP.", engine.Trunc(engine.Cstr(sub), 128))
}

// cmdDebug dispatches in debugCommand's order, each name with the argument
// counts Redis accepts for it; anything else is the syntax error.
func cmdDebug(x *engine.Ctx) {
	sub, n := x.Args[1], len(x.Args)
	is := func(name string) bool { return engine.CEqualFold(sub, name) }
	switch {
	case n == 2 && is("help"):
		engine.WriteHelp(x, debugHelp)
	case is("segfault"), is("panic"), is("assert"), is("oom"):
		x.W.Error(errDebugUnsupported(sub))
	case is("restart"), is("crash-and-recover"):
		if n >= 3 {
			if _, ok := num.ParseInt(x.Args[2]); !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
		}
		x.W.Error("ERR failed to restart the server. Check server logs.")
	case is("log") && n == 3:
		x.E.Log.Warn("DEBUG LOG: " + string(engine.Cstr(x.Args[2])))
		x.W.OK()
	case is("leak") && n == 3:
		x.W.OK() // nothing to leak under a garbage collector
	case is("reload"):
		debugReload(x)
	case is("loadaof"):
		debugLoadAOF(x)
	case is("drop-cluster-packet-filter") && n == 3:
		v, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		x.E.Debug.DropClusterFilter = v
		x.W.OK()
	case is("object") && n == 3:
		debugObject(x)
	case is("sdslen") && n == 3:
		ent := x.DB.Peek(x.Args[2])
		switch {
		case ent == nil:
			x.W.Error(engine.ErrNoSuchKey)
		case !isSDSString(ent):
			x.W.Error("ERR Not an sds encoded string.")
		default:
			x.W.Error(errDebugUnsupported(sub))
		}
	case is("listpack") && n == 3:
		debugListpack(x)
	case is("quicklist") && (n == 3 || n == 4):
		debugQuicklist(x)
	case is("populate") && n >= 3 && n <= 5:
		debugPopulate(x)
	case is("digest") && n == 2:
		debugDigest(x)
	case is("digest-value"):
		debugDigestValue(x)
	case is("protocol") && n == 3:
		debugProtocol(x)
	case is("sleep") && n == 3:
		secs, _ := StrtodPrefix(engine.Cstr(x.Args[2]))
		if us := int64(secs * 1e6); us > 0 {
			time.Sleep(time.Duration(us) * time.Microsecond) // holding the lock: the server stops, as Redis's does
		}
		x.W.OK()
	case is("set-active-expire") && n == 3:
		x.E.Debug.ActiveExpireOff.Store(engine.Atoi(x.Args[2]) == 0)
		x.W.OK()
	case is("quicklist-packed-threshold") && n == 3:
		sz, ok := config.Memtoull(string(engine.Cstr(x.Args[2])))
		if !ok || sz > 1<<32-1<<20 {
			x.W.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			return
		}
		if sz == 0 {
			sz = 1 << 30
		}
		x.E.Cfg.ListPackedThreshold.Store(int64(sz))
		x.W.OK()
	case is("set-skip-checksum-validation") && n == 3:
		x.E.Debug.SkipChecksum = engine.Atoi(x.Args[2]) != 0
		x.W.OK()
	case is("aof-flush-sleep") && n == 3:
		x.E.Debug.AofFlushSleep = int64(engine.Atoi(x.Args[2]))
		x.W.OK()
	case is("replicate") && n >= 3:
		x.W.OK() // no replicas to feed
	case is("error") && n == 3:
		x.W.Error(string(x.Args[2]))
	case is("structsize") && n == 2:
		x.W.Error(errDebugUnsupported(sub))
	case is("htstats") && n == 3:
		id, ok := num.ParseInt(x.Args[2])
		switch {
		case !ok:
			x.W.Error(engine.ErrNotInt)
		case id < 0 || id >= config.NumDBs:
			x.W.Error("ERR Out of range database")
		default:
			x.W.Error(errDebugUnsupported(sub))
		}
	case is("htstats-key") && n == 3:
		ent := x.LookupNoTouch(x.Args[2])
		switch {
		case ent == nil:
			x.W.Error(engine.ErrNoSuchKey)
		case engine.ValueEncoding(ent) != "hashtable" && engine.ValueEncoding(ent) != "skiplist":
			x.W.Error("ERR The value stored at the specified key is not represented using an hash table")
		default:
			x.W.Error(errDebugUnsupported(sub))
		}
	case is("change-repl-id") && n == 2:
		x.E.Log.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
		x.E.Debug.ReplID = engine.NewReplID()
		x.W.OK()
	case is("stringmatch-test") && n == 2:
		stringmatchFuzz()
		x.W.Simple("Apparently Redis did not crash: test passed")
	case is("set-disable-deny-scripts") && n == 3:
		x.E.Debug.DisableDenyScripts = engine.Atoi(x.Args[2]) != 0
		x.W.OK()
	case is("config-rewrite-force-all") && n == 2:
		// What Redis answers without a config file (fopen(NULL) fails
		// with EFAULT); limitkv never has one.
		x.W.Error("ERR CONFIG-REWRITE-FORCE-ALL failed: Bad address")
	case is("client-eviction") && n == 2:
		x.W.Error("ERR maxmemory-clients is disabled.")
	case (is("mallctl") || is("mallctl-str")) && n >= 3:
		x.W.Error(errDebugUnsupported(sub))
	case is("pause-cron") && n == 3:
		x.E.Debug.CronPaused.Store(engine.Atoi(x.Args[2]) != 0)
		x.W.OK()
	case is("replybuffer") && n == 4:
		debugReplyBuffer(x)
	case is("clusterlink") && n == 5 && engine.CEqualFold(x.Args[2], "kill"):
		if x.E.Cluster == nil {
			x.W.Error("ERR Debug option only available for cluster mode enabled setup!")
		} else if msg := x.E.Cluster.KillLink(x.Arg(3), x.Arg(4)); msg != "" {
			x.W.Error(msg)
		} else {
			x.W.OK()
		}
	default:
		x.W.Error(errDebugSyntax(sub))
	}
}

// strtodPrefix is strtod(s, NULL): the longest prefix of s that reads as a
// decimal float (0 if none).
func StrtodPrefix(s []byte) (float64, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		rest := strings.ToLower(string(s[start:]))
		rest = strings.TrimLeft(rest, "+-")
		if strings.HasPrefix(rest, "inf") {
			if s[start] == '-' {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		}
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	f, err := strconv.ParseFloat(string(s[start:i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// isSDSString reports whether Redis would hold the value as an sds string
// (raw or embstr, not int).
func isSDSString(ent *keyspace.Entry) bool {
	v, ok := ent.Val.([]byte)
	return ok && engine.StringEncoding(v, ent.Enc) != "int"
}

// debugObject is DEBUG OBJECT's status line. The address is the entry's
// (meaningless outside the process, as Redis's). serializedlength is the
// value's RDB encoding as DUMP writes it (type byte and footer aside), and
// the quicklist fields describe the nodes Redis builds for the list's
// elements pushed at the tail. Like Redis it finds keys past their
// deadline that are not reclaimed yet.
func debugObject(x *engine.Ctx) {
	ent := x.DB.Peek(x.Args[2])
	if ent == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	refcount := 1
	if v, ok := ent.Val.([]byte); ok && ent.Enc == keyspace.EncAuto && engine.SharedInt(v) && x.SharedIntsAllowed() {
		refcount = 1<<31 - 1
	}
	var conv durability.ToRDB
	rv := durability.RDBValue(&conv, ent)
	payload, err := rdb.EncodeDump(rv, x.E.Cfg.DumpOptions())
	if err != nil {
		x.W.Error(engine.ErrInternal)
		return
	}
	serialized := len(payload) - 1 - 10 // the type byte; version and CRC
	lru := int64(ent.LRU())
	idle := ent.IdleMs(x.Now) / 1000
	var b strings.Builder
	fmt.Fprintf(&b, "Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
		ent, refcount, engine.ValueEncoding(ent), serialized, lru, idle)
	if l, ok := ent.Val.(*list.List); ok {
		nodes, size := rdb.QuicklistShape(rv.List, x.E.Cfg.RdbLimits())
		avg := math.NaN()
		if nodes > 0 {
			avg = float64(l.Len()) / float64(nodes)
		}
		compressed := 0
		if x.E.Cfg.ListCompressDepth.Load() != 0 {
			compressed = 1
		}
		fmt.Fprintf(&b, " ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			nodes, avg, x.E.Cfg.ListMaxListpackSize.Load(), compressed, size)
	}
	x.W.Simple(b.String())
}

// debugListpack and debugQuicklist print a value's structure where Redis
// prints to stdout: limitkv writes it to its log.
func debugListpack(x *engine.Ctx) {
	ent := x.LookupNoTouch(x.Args[2])
	if ent == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	if engine.ValueEncoding(ent) != "listpack" {
		x.W.Error("ERR Not a listpack encoded object.")
		return
	}
	var conv durability.ToRDB
	rv := durability.RDBValue(&conv, ent)
	x.E.Log.Info("DEBUG LISTPACK", "key", string(x.Args[2]), "type", rv.Type.String(), "entries", listpackEntries(ent))
	x.W.Simple("Listpack structure printed on stdout")
}

func listpackEntries(ent *keyspace.Entry) int {
	switch v := ent.Val.(type) {
	case *hash.Hash:
		return 2 * v.Len()
	case *zset.Set:
		return 2 * v.Len()
	}
	return 0
}

func debugQuicklist(x *engine.Ctx) {
	ent := x.LookupNoTouch(x.Args[2])
	if ent == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	l, ok := ent.Val.(*list.List)
	if !ok {
		x.W.Error("ERR Not a quicklist encoded object.")
		return
	}
	var conv durability.ToRDB
	rv := durability.RDBValue(&conv, ent)
	nodes, size := rdb.QuicklistShape(rv.List, x.E.Cfg.RdbLimits())
	x.E.Log.Info("DEBUG QUICKLIST", "key", string(x.Args[2]), "count", l.Len(), "nodes", nodes, "size", size)
	x.W.Simple("Quicklist structure printed on stdout")
}

// debugPopulate creates count string keys prefix:N = "value:N" (padded or
// cut to size bytes when given), skipping names that exist.
func debugPopulate(x *engine.Ctx) {
	// getPositiveLongFromObjectOrReply: one message for both failures.
	const errPositive = "ERR value is out of range, must be positive"
	count, ok := num.ParseInt(x.Args[2])
	if !ok || count < 0 {
		x.W.Error(errPositive)
		return
	}
	var size int64
	if len(x.Args) == 5 {
		if size, ok = num.ParseInt(x.Args[4]); !ok || size < 0 {
			x.W.Error(errPositive)
			return
		}
	}
	prefix := "key"
	if len(x.Args) >= 4 {
		prefix = string(engine.Cstr(x.Args[3]))
	}
	var kb, vb []byte
	for j := int64(0); j < count; j++ {
		kb = append(append(kb[:0], prefix...), ':')
		kb = strconv.AppendInt(kb, j, 10)
		if len(kb) > 127 {
			kb = kb[:127] // snprintf into a 128-byte buffer
		}
		if x.DB.Get(kb, x.Now) != nil {
			continue
		}
		vb = strconv.AppendInt(append(vb[:0], "value:"...), j, 10)
		var val []byte
		if size == 0 {
			val = append([]byte(nil), vb...)
		} else {
			val = make([]byte, size)
			copy(val, vb)
		}
		// createStringObject: embstr up to 44 bytes, no integer detection.
		x.DB.Add(kb, val).Enc = keyspace.EncEmbstr
		x.E.TouchWatched(x.C.DB, kb)
	}
	x.W.OK()
}

// debugProtocol answers a sample of each reply type, as Redis does in the
// client's protocol.
func debugProtocol(x *engine.Ctx) {
	w, name := x.W, x.Args[2]
	is := func(s string) bool { return engine.CEqualFold(name, s) }
	switch {
	case is("string"):
		w.BulkString("Hello World")
	case is("integer"):
		w.Int(12345)
	case is("double"):
		w.Double(3.141)
	case is("bignum"):
		w.BigNumber("1234567999999999999999999999999999999")
	case is("null"):
		w.Null()
	case is("array"):
		w.Array(3)
		for j := range 3 {
			w.Int(int64(j))
		}
	case is("set"):
		w.Set(3)
		for j := range 3 {
			w.Int(int64(j))
		}
	case is("map"):
		w.Map(3)
		for j := range 3 {
			w.Int(int64(j))
			w.Bool(j == 1)
		}
	case is("attrib"):
		if w.RESP3() {
			w.Attribute(1)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case is("push"):
		if !w.RESP3() {
			w.Error("ERR RESP2 is not supported by this command")
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case is("true"):
		w.Bool(true)
	case is("false"):
		w.Bool(false)
	case is("verbatim"):
		w.Verbatim("txt", "This is a verbatim\nstring")
	default:
		w.Error("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

func debugReplyBuffer(x *engine.Ctx) {
	what, v := x.Args[2], x.Args[3]
	switch {
	case engine.CEqualFold(what, "peak-reset-time"):
		switch {
		case engine.CEqualFold(v, "never"):
			x.E.Debug.ReplyPeakReset = -1
		case engine.CEqualFold(v, "reset"):
			x.E.Debug.ReplyPeakReset = 5000 // REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME
		default:
			n, ok := num.ParseInt(v)
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			x.E.Debug.ReplyPeakReset = n
		}
	case engine.CEqualFold(what, "resizing"):
		x.E.Debug.ReplyResizing = engine.Atoi(v) != 0
	default:
		x.W.Error(errDebugSyntax(x.Args[1]))
		return
	}
	x.W.OK()
}

// debugReload is DEBUG RELOAD: save (unless NOSAVE), empty every database
// (unless NOFLUSH), and load dbfilename back; with MERGE a key of the file
// replaces one in memory, without it a duplicate is a load error (Redis
// stops the server there; limitkv answers the error, keeping what loaded).
func debugReload(x *engine.Ctx) {
	save, flush, merge := true, true, false
	for _, opt := range x.Args[2:] {
		switch {
		case engine.CEqualFold(opt, "merge"):
			merge = true
		case engine.CEqualFold(opt, "noflush"):
			flush = false
		case engine.CEqualFold(opt, "nosave"):
			save = false
		default:
			x.W.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	e := x.E
	if e.StartLoad.On {
		// Redis would save the half-loaded dataset over the file it is
		// loading: refused instead.
		x.W.Error(engine.ErrLoading)
		return
	}
	if save {
		// rdbSave, as SAVE's, but without SAVE's refusal while a
		// background save runs.
		if err := durability.SaveLocked(e); err != nil {
			x.W.Error("ERR")
			return
		}
	}
	if flush {
		for _, db := range e.Dbs {
			db.Flush()
		}
	}
	if err := durability.ReloadFile(e, e.Cfg.RDBPath(), merge); err != nil {
		e.Log.Warn("DEBUG RELOAD failed", "err", err)
		x.W.Error("ERR Error trying to load the RDB dump")
		return
	}
	e.Log.Warn("DB reloaded by DEBUG RELOAD")
	x.W.OK()
}

// debugLoadAOF is DEBUG LOADAOF. The replay changes the dataset but is
// no change of its own: neither it nor the command reaches the AOF or
// the replicas.
func debugLoadAOF(x *engine.Ctx) {
	x.NoPropagate()
	e := x.E
	if e.StartLoad.On {
		x.W.Error(engine.ErrLoading) // the start's own load is not done
		return
	}
	if err := durability.ReloadAOF(e); err != nil {
		// Redis exits here; an error leaves the process to the operator.
		e.Log.Warn("DEBUG LOADAOF failed", "err", err)
		x.W.Error("ERR Error loading the AOF, check server logs.")
		return
	}
	x.W.OK()
}

// stringmatchFuzz is stringmatchlen_fuzz_test: random patterns against
// random strings, to show the matcher survives any input (a panic would
// be answered as an internal error instead of the test's "passed").
func stringmatchFuzz() {
	var str, pat [32]byte
	for range 1_000_000 {
		sl, pl := mrand.IntN(len(str)), mrand.IntN(len(pat))
		for j := range sl {
			str[j] = byte(mrand.IntN(128))
		}
		for j := range pl {
			pat[j] = byte(mrand.IntN(128))
		}
		glob.Match(pat[:pl], string(str[:sl]), false)
	}
}

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"AOF-FLUSH-SLEEP <microsec>",
	"    Server will sleep before flushing the AOF, this is used for testing.",
	"ASSERT",
	"    Crash by assertion failed.",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"CONFIG-REWRITE-FORCE-ALL",
	"    Like CONFIG REWRITE but writes all configuration options, including",
	"    keywords not listed in original configuration file or default values.",
	"CRASH-AND-RECOVER [<milliseconds>]",
	"    Hard crash and restart after a <milliseconds> delay (default 0).",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LEAK <string>",
	"    Create a memory leak of the input string.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"HTSTATS <dbid>",
	"    Return hash table statistics of the specified Redis database.",
	"HTSTATS-KEY <key>",
	"    Like HTSTATS but for the hash table stored at <key>'s value.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"REPLICATE <string>",
	"    Replicates the provided string to replicas, allowing data divergence.",
	"MALLCTL <key> [<val>]",
	"    Get or set a malloc tuning integer.",
	"MALLCTL-STR <key> [<val>]",
	"    Get or set a malloc tuning string.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"DROP-CLUSTER-PACKET-FILTER <packet-type>",
	"    Drop all packets that match the filtered type. Set to -1 allow all packets.",
	"OOM",
	"    Crash the server simulating an out-of-memory error.",
	"PANIC",
	"    Crash the server simulating a panic.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"RESTART [<milliseconds>]",
	"    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
	"SDSLEN <key>",
	"    Show low level SDS string info representing `key` and value.",
	"SEGFAULT",
	"    Crash the server with sigsegv.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"STRUCTSIZE",
	"    Return the size of different Redis core C structures.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
	"CLIENT-EVICTION",
	"    Show low level client eviction pools info (maxmemory-clients).",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"CLUSTERLINK KILL <to|from|all> <node-id>",
	"    Kills the link based on the direction to/from (both) with the provided node.",
	"HELP",
	"    Prints this help.",
}
