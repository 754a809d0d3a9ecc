package admin

import (
	"math"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/num"
)

// MEMORY: USAGE, STATS, DOCTOR, PURGE, MALLOC-STATS, HELP (object.c's
// memoryCommand). The figures are INFO memory's: the Go heap stands for
// Redis's allocator, and a key's usage is the estimate maxmemory's
// eviction credits (entryMemory), not jemalloc's size classes, so values
// differ from Redis's while their shapes and rules do not.

var memoryCommand = &engine.Command{
	Name: "memory", Arity: -2, Group: "server",
	Sub: map[string]*engine.Command{
		"usage":        {Arity: -3, Flags: engine.FlagReadOnly, Group: "server", FirstKey: 2, LastKey: 2, Step: 1, Handler: cmdMemoryUsage},
		"stats":        {Arity: 2, Group: "server", Handler: cmdMemoryStats},
		"doctor":       {Arity: 2, Group: "server", Handler: cmdMemoryDoctor},
		"purge":        {Arity: 2, Group: "server", Handler: cmdMemoryPurge},
		"malloc-stats": {Arity: 2, Group: "server", Handler: cmdMemoryMallocStats},
		"help":         {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdMemoryHelp},
	},
}

// memOverhead is getMemoryOverheadData's figures, shared with INFO memory.
type memOverhead struct {
	ms                                 runtime.MemStats
	used, peak, rss, startup, overhead uint64
	dataset, clientsNormal             uint64
}

func memoryOverhead(e *engine.Engine) *memOverhead {
	mo := &memOverhead{}
	runtime.ReadMemStats(&mo.ms) // for the allocator_* fields; not a hot path
	// used_memory is the figure maxmemory is checked against.
	mo.used = e.UsedMemory()
	e.MemPeak = max(e.MemPeak, mo.used)
	mo.peak = e.MemPeak
	mo.rss = procRSS()
	if mo.rss == 0 {
		mo.rss = mo.ms.Sys
	}
	mo.startup = 512 << 10
	mo.clientsNormal = uint64(len(e.Clients)) * engine.ClientBaseMem
	mo.overhead = mo.startup + mo.clientsNormal
	if mo.used > mo.overhead {
		mo.dataset = mo.used - mo.overhead
	}
	return mo
}

func cmdMemoryUsage(x *engine.Ctx) {
	samples := engine.DefaultMemorySamples
	for i := 3; i < len(x.Args); i++ {
		if engine.CEqualFold(x.Args[i], "samples") && i+1 < len(x.Args) {
			n, ok := num.ParseInt(x.Args[i+1])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if n < 0 {
				x.W.Error(engine.ErrSyntax)
				return
			}
			// 0 samples everything (LLONG_MAX); so does any count
			// beyond an int.
			samples = int(min(n, math.MaxInt))
			i++
			continue
		}
		x.W.Error(engine.ErrSyntax)
		return
	}
	// dictFind, as Redis: a key past its deadline not yet reclaimed is
	// still measured.
	ent := x.DB.Peek(x.Args[2])
	if ent == nil {
		x.W.Null()
		return
	}
	x.W.Int(int64(engine.EntryMemorySampled(ent, samples)))
}

func cmdMemoryStats(x *engine.Ctx) {
	e := x.E
	mo := memoryOverhead(e)
	ms := &mo.ms
	var dbs []int
	for i := range config.NumDBs {
		if e.Dbs[i].Len() > 0 {
			dbs = append(dbs, i)
		}
	}
	keys := uint64(e.TotalKeys())
	perKey := uint64(0)
	if keys > 0 {
		perKey = (mo.used - mo.startup) / keys
	}
	ratio := func(a, b uint64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	resident := ms.HeapSys - ms.HeapReleased
	w := x.W
	w.Map(27 + len(dbs))
	kv := func(k string, v int64) { w.BulkString(k); w.Int(v) }
	kd := func(k string, v float64) { w.BulkString(k); w.Double(v) }
	kv("peak.allocated", int64(mo.peak))
	kv("total.allocated", int64(mo.used))
	kv("startup.allocated", int64(mo.startup))
	kv("replication.backlog", 0)
	kv("clients.slaves", 0)
	kv("clients.normal", int64(mo.clientsNormal))
	kv("cluster.links", 0)
	kv("aof.buffer", 0)
	kv("lua.caches", 0)
	kv("functions.caches", 0)
	for _, i := range dbs {
		w.BulkString("db." + strconv.Itoa(i))
		w.Map(3)
		// The keyspace's buckets and expiry index live in the heap with
		// the keys: entryMemory already counts them, per key.
		kv("overhead.hashtable.main", 0)
		kv("overhead.hashtable.expires", 0)
		kv("overhead.hashtable.slot-to-keys", 0)
	}
	kv("overhead.total", int64(mo.overhead))
	kv("keys.count", int64(keys))
	kv("keys.bytes-per-key", int64(perKey))
	kv("dataset.bytes", int64(mo.dataset))
	dataPerc := 0.0
	if mo.used > mo.startup {
		dataPerc = float64(mo.dataset) * 100 / float64(mo.used-mo.startup)
	}
	kd("dataset.percentage", dataPerc)
	kd("peak.percentage", ratio(mo.used, mo.peak)*100)
	kv("allocator.allocated", int64(ms.HeapAlloc))
	kv("allocator.active", int64(ms.HeapInuse))
	kv("allocator.resident", int64(resident))
	kd("allocator-fragmentation.ratio", ratio(ms.HeapInuse, ms.HeapAlloc))
	kv("allocator-fragmentation.bytes", int64(ms.HeapInuse)-int64(ms.HeapAlloc))
	kd("allocator-rss.ratio", ratio(resident, ms.HeapInuse))
	kv("allocator-rss.bytes", int64(resident)-int64(ms.HeapInuse))
	kd("rss-overhead.ratio", ratio(mo.rss, resident))
	kv("rss-overhead.bytes", int64(mo.rss)-int64(resident))
	kd("fragmentation", ratio(mo.rss, mo.used))
	kv("fragmentation.bytes", int64(mo.rss)-int64(mo.used))
}

// Memory doctor: getMemoryDoctorReport's checks and texts.
const (
	doctorNone  = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
	doctorEmpty = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. " +
		"Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
	doctorHead      = "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
	doctorPeak      = " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n"
	doctorFrag      = " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"%s\".\n\n"
	doctorAllocFrag = " * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n"
	doctorAllocRSS  = " * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n"
	doctorProcRSS   = " * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the Redis process is much larger than the RSS the allocator holds). This problem may be due to Lua scripts or Modules.\n\n"
	doctorClients   = " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n"
	doctorScripts   = " * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n"
	doctorTail      = "I'm here to keep you safe, Sam. I want to help you.\n"
)

func memoryDoctor(e *engine.Engine) string {
	mo := memoryOverhead(e)
	ms := &mo.ms
	if mo.used < 5<<20 {
		return doctorEmpty
	}
	resident := ms.HeapSys - ms.HeapReleased
	over := func(a, b uint64, r float64) bool { return b > 0 && float64(a)/float64(b) > r && a-b > 10<<20 }
	var s string
	if float64(mo.peak)/float64(mo.used) > 1.5 {
		s += doctorPeak
	}
	if over(mo.rss, mo.used, 1.4) {
		s += replacePct(doctorFrag, runtime.Version())
	}
	if over(ms.HeapInuse, ms.HeapAlloc, 1.1) {
		s += doctorAllocFrag
	}
	if over(resident, ms.HeapInuse, 1.1) {
		s += doctorAllocRSS
	}
	if over(mo.rss, resident, 1.1) {
		s += doctorProcRSS
	}
	if n := uint64(len(e.Clients)); n > 0 && mo.clientsNormal/n > 200<<10 {
		s += doctorClients
	}
	if e.Scripts.ScriptCount() > 1000 {
		s += doctorScripts
	}
	if s == "" {
		return doctorNone
	}
	return doctorHead + s + doctorTail
}

func replacePct(format, arg string) string {
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' && format[i+1] == 's' {
			return format[:i] + arg + format[i+2:]
		}
	}
	return format
}

func cmdMemoryDoctor(x *engine.Ctx) { x.W.Verbatim("txt", memoryDoctor(x.E)) }

// cmdMemoryPurge returns freed heap to the system: Go's counterpart of
// jemalloc's purge of dirty pages.
func cmdMemoryPurge(x *engine.Ctx) {
	debug.FreeOSMemory()
	x.W.OK()
}

// cmdMemoryMallocStats answers as Redis built without jemalloc does.
func cmdMemoryMallocStats(x *engine.Ctx) {
	x.W.BulkString("Stats not supported for the current allocator")
}

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

func cmdMemoryHelp(x *engine.Ctx) { engine.WriteHelp(x, memoryHelp) }
