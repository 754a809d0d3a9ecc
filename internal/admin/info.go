package admin

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
)

// INFO [section ...] in Redis 7.0's format and field names, so monitoring
// tools and client libraries that parse it work. Fields limitkv has no
// counterpart for (forks, replication, defragmentation...) are reported as
// an idle standalone Redis reports them. Commandstats, Errorstats and
// Latencystats come from cmdstats.go.

// infoSections is Redis's section order; "default" marks those INFO with no
// argument (or "default") prints.
var infoSections = []struct {
	name    string
	dflt    bool
	title   string
	produce func(x *engine.Ctx, b *engine.InfoBuf)
}{
	{"server", true, "Server", infoServer},
	{"clients", true, "Clients", infoClients},
	{"memory", true, "Memory", infoMemory},
	{"persistence", true, "Persistence", infoPersistence},
	{"stats", true, "Stats", infoStats},
	{"replication", true, "Replication", infoReplication},
	{"cpu", true, "CPU", infoCPU},
	{"modules", true, "Modules", func(*engine.Ctx, *engine.InfoBuf) {}},
	{"commandstats", false, "Commandstats", engine.InfoCommandStats},
	{"errorstats", true, "Errorstats", engine.InfoErrorStats},
	{"latencystats", false, "Latencystats", engine.InfoLatencyStats},
	{"cluster", true, "Cluster", infoCluster},
	{"keyspace", true, "Keyspace", infoKeyspace},
}

func infoCluster(x *engine.Ctx, b *engine.InfoBuf) {
	if x.E.Cluster != nil {
		b.I("cluster_enabled", 1)
	} else {
		b.I("cluster_enabled", 0)
	}
}

func CmdInfo(x *engine.Ctx) {
	want := map[string]bool{}
	all := false
	if len(x.Args) == 1 {
		want["default"] = true
	}
	for _, a := range x.Args[1:] {
		s := strings.ToLower(string(a))
		switch s {
		case "all", "everything":
			all = true
		case "module_list":
			s = "modules"
		}
		want[s] = true
	}
	b := &engine.InfoBuf{}
	n := 0
	for _, sec := range infoSections {
		if !all && !want[sec.name] && !(want["default"] && sec.dflt) {
			continue
		}
		if n > 0 {
			b.S = append(b.S, "\r\n"...)
		}
		n++
		b.S = append(b.S, "# "...)
		b.S = append(b.S, sec.title...)
		b.S = append(b.S, "\r\n"...)
		sec.produce(x, b)
	}
	x.W.Verbatim("txt", string(b.S))
}

func infoServer(x *engine.Ctx, b *engine.InfoBuf) {
	e := x.E
	now := e.Clock.Now()
	up := int64(now.Sub(e.Start).Seconds())
	exe, _ := os.Executable()
	b.Kv("redis_version", config.RedisVersion)
	b.Kv("redis_git_sha1", "00000000")
	b.I("redis_git_dirty", 0)
	b.Kv("redis_build_id", e.RunID[:16])
	if x.E.Cluster != nil {
		b.Kv("redis_mode", "cluster")
	} else {
		b.Kv("redis_mode", "standalone")
	}
	b.Kv("os", osName())
	b.I("arch_bits", strconv.IntSize)
	b.Kv("monotonic_clock", "POSIX clock_gettime")
	b.Kv("multiplexing_api", "epoll")
	b.Kv("atomicvar_api", "c11-builtin")
	b.Kv("gcc_version", "0.0.0")
	b.I("process_id", int64(os.Getpid()))
	b.Kv("process_supervised", "no")
	b.Kv("run_id", e.RunID)
	b.I("tcp_port", int64(e.Cfg.Port))
	b.I("server_time_usec", now.UnixMicro())
	b.I("uptime_in_seconds", up)
	b.I("uptime_in_days", up/86400)
	b.I("hz", 10)
	b.I("configured_hz", 10)
	b.I("lru_clock", now.Unix()&(1<<24-1))
	b.Kv("executable", exe)
	b.Kv("config_file", "")
	b.I("io_threads_active", 0)
	b.Kv("limitkv_version", config.LimitkvVersion)
}

// osName is uname's "sysname release machine", as Redis prints it.
func osName() string {
	sys := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD", "windows": "Windows"}[runtime.GOOS]
	if sys == "" {
		sys = runtime.GOOS
	}
	machine := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if machine == "" {
		machine = runtime.GOARCH
	}
	release := "unknown"
	if r, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		release = strings.TrimSpace(string(r))
	}
	return sys + " " + release + " " + machine
}

func infoClients(x *engine.Ctx, b *engine.InfoBuf) {
	e := x.E
	var blocked, timed int64
	for _, c := range e.Clients {
		if c.Blocked != nil {
			blocked++
			if !c.Blocked.Deadline.IsZero() {
				timed++
			}
		}
	}
	b.I("connected_clients", int64(len(e.Clients)))
	b.I("cluster_connections", 0)
	b.I("maxclients", e.Cfg.MaxClients.Load())
	b.I("client_recent_max_input_buffer", engine.ClientQueryBuf)
	b.I("client_recent_max_output_buffer", 0)
	b.I("blocked_clients", blocked)
	b.I("tracking_clients", int64(e.Trk.Clients))
	b.I("clients_in_timeout_table", timed)
}

func infoMemory(x *engine.Ctx, b *engine.InfoBuf) {
	mo := memoryOverhead(x.E)
	ms, used, peak, rss, startup, overhead, dataset := mo.ms, mo.used, mo.peak, mo.rss, mo.startup, mo.overhead, mo.dataset
	pct := func(a, b uint64) string {
		if b == 0 {
			return "0.00%"
		}
		return strconv.FormatFloat(float64(a)*100/float64(b), 'f', 2, 64) + "%"
	}
	ratio := func(a, b uint64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	total := totalSystemMemory()
	maxmem := uint64(x.E.Cfg.MaxMemory.Load())
	u := func(k string, v uint64) { b.Kv(k, strconv.FormatUint(v, 10)) }
	u("used_memory", used)
	b.Kv("used_memory_human", BytesToHuman(used))
	u("used_memory_rss", rss)
	b.Kv("used_memory_rss_human", BytesToHuman(rss))
	u("used_memory_peak", peak)
	b.Kv("used_memory_peak_human", BytesToHuman(peak))
	b.Kv("used_memory_peak_perc", pct(used, peak))
	u("used_memory_overhead", overhead)
	u("used_memory_startup", startup)
	u("used_memory_dataset", dataset)
	b.Kv("used_memory_dataset_perc", pct(dataset, max(used, startup)-startup))
	u("allocator_allocated", ms.HeapAlloc)
	u("allocator_active", ms.HeapInuse)
	u("allocator_resident", ms.HeapSys-ms.HeapReleased)
	u("total_system_memory", total)
	b.Kv("total_system_memory_human", BytesToHuman(total))
	// limitkv's Lua lives in the Go heap; these are Redis's idle values.
	b.I("used_memory_lua", 32768)
	b.I("used_memory_vm_eval", 32768)
	b.Kv("used_memory_lua_human", "32.00K")
	b.I("used_memory_scripts_eval", 0)
	b.I("number_of_cached_scripts", 0)
	nFuncs, nLibs := x.E.Scripts.FunctionCounts()
	b.I("number_of_functions", int64(nFuncs))
	b.I("number_of_libraries", int64(nLibs))
	b.I("used_memory_vm_functions", 32768)
	b.I("used_memory_vm_total", 65536)
	b.Kv("used_memory_vm_total_human", "64.00K")
	b.I("used_memory_functions", 0)
	b.I("used_memory_scripts", 0)
	b.Kv("used_memory_scripts_human", "0B")
	u("maxmemory", maxmem)
	b.Kv("maxmemory_human", BytesToHuman(maxmem))
	b.Kv("maxmemory_policy", *x.E.Cfg.MaxMemoryPolicy.Load())
	b.F("allocator_frag_ratio", ratio(ms.HeapInuse, ms.HeapAlloc), 2)
	i64 := func(k string, a, c uint64) { b.I(k, int64(a)-int64(c)) }
	i64("allocator_frag_bytes", ms.HeapInuse, ms.HeapAlloc)
	b.F("allocator_rss_ratio", ratio(ms.HeapSys-ms.HeapReleased, ms.HeapInuse), 2)
	i64("allocator_rss_bytes", ms.HeapSys-ms.HeapReleased, ms.HeapInuse)
	b.F("rss_overhead_ratio", ratio(rss, ms.HeapSys-ms.HeapReleased), 2)
	i64("rss_overhead_bytes", rss, ms.HeapSys-ms.HeapReleased)
	b.F("mem_fragmentation_ratio", ratio(rss, used), 2)
	i64("mem_fragmentation_bytes", rss, used)
	b.I("mem_not_counted_for_evict", int64(durability.Of(x.E).ReplOutputBytes()))
	backlog := durability.Of(x.E).BacklogSize()
	b.I("mem_replication_backlog", backlog)
	b.I("mem_total_replication_buffers", backlog+int64(durability.Of(x.E).ReplOutputBytes()))
	b.I("mem_clients_slaves", int64(durability.Of(x.E).ReplOutputBytes()))
	b.I("mem_clients_normal", int64(len(x.E.Clients))*engine.ClientBaseMem)
	b.I("mem_cluster_links", 0)
	b.I("mem_aof_buffer", 0)
	b.Kv("mem_allocator", runtime.Version())
	b.I("active_defrag_running", 0)
	b.I("lazyfree_pending_objects", 0)
	b.I("lazyfreed_objects", 0)
}

// bytesToHuman is Redis's bytesToHuman.
func BytesToHuman(n uint64) string {
	units := []string{"K", "M", "G", "T", "P"}
	if n < 1024 {
		return strconv.FormatUint(n, 10) + "B"
	}
	d := float64(n)
	for _, u := range units {
		d /= 1024
		if d < 1024 {
			return fmt.Sprintf("%.2f%s", d, u)
		}
	}
	return strconv.FormatUint(n, 10) + "B"
}

// procRSS reads the resident set size on Linux; 0 elsewhere.
func procRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

var sysMem = sync.OnceValue(func() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
})

func totalSystemMemory() uint64 { return sysMem() }

// infoPersistence and infoReplication are the durability component's to
// write: the state they show is its own.
func infoPersistence(x *engine.Ctx, b *engine.InfoBuf) { durability.Of(x.E).InfoPersistence(b) }

// opsPerSec estimates the command rate since the previous INFO (at least
// 100ms apart, like one of Redis's samples).
func opsPerSec(e *engine.Engine) int64 {
	now := time.Now()
	s := &e.Ops
	if s.At.IsZero() {
		*s = engine.OpsSample{At: now, Cmds: e.Stats.Commands}
		return 0
	}
	if d := now.Sub(s.At); d >= 100*time.Millisecond {
		s.Rate = int64(float64(e.Stats.Commands-s.Cmds) / d.Seconds())
		s.At, s.Cmds = now, e.Stats.Commands
	}
	return s.Rate
}

func infoStats(x *engine.Ctx, b *engine.InfoBuf) {
	e := x.E
	st := &e.Stats
	var expired int64
	for i := range config.NumDBs {
		expired += e.DB(i).Expired
	}
	b.I("total_connections_received", st.Connections.Load())
	b.I("total_commands_processed", st.Commands)
	b.I("instantaneous_ops_per_sec", opsPerSec(e))
	b.I("total_net_input_bytes", st.NetInput.Load())
	b.I("total_net_output_bytes", st.NetOutput.Load())
	b.I("total_net_repl_input_bytes", 0)
	b.I("total_net_repl_output_bytes", 0)
	b.Kv("instantaneous_input_kbps", "0.00")
	b.Kv("instantaneous_output_kbps", "0.00")
	b.Kv("instantaneous_input_repl_kbps", "0.00")
	b.Kv("instantaneous_output_repl_kbps", "0.00")
	b.I("rejected_connections", st.RejectedConns.Load())
	full, partialOK, partialErr := durability.Of(e).SyncCounts()
	b.I("sync_full", full)
	b.I("sync_partial_ok", partialOK)
	b.I("sync_partial_err", partialErr)
	b.I("expired_keys", expired)
	b.F("expired_stale_perc", st.ExpiredStalePerc, 2)
	b.I("expired_time_cap_reached_count", 0)
	b.I("expire_cycle_cpu_milliseconds", st.ExpireCycleMicros/1000)
	b.I("evicted_keys", st.EvictedKeys)
	b.I("evicted_clients", 0)
	b.I("total_eviction_exceeded_time", 0)
	b.I("current_eviction_exceeded_time", 0)
	b.I("keyspace_hits", st.KeyspaceHits)
	b.I("keyspace_misses", st.KeyspaceMisses)
	for _, k := range []string{
		"pubsub_channels", "pubsub_patterns", "pubsubshard_channels", "latest_fork_usec", "total_forks",
		"migrate_cached_sockets", "slave_expires_tracked_keys", "active_defrag_hits", "active_defrag_misses",
		"active_defrag_key_hits", "active_defrag_key_misses", "total_active_defrag_time",
		"current_active_defrag_time",
	} {
		b.I(k, 0)
	}
	_, tkeys, titems, tprefixes := x.E.TrackingInfo()
	b.I("tracking_total_keys", int64(tkeys))
	b.I("tracking_total_items", int64(titems))
	b.I("tracking_total_prefixes", int64(tprefixes))
	b.I("unexpected_error_replies", 0)
	b.I("total_error_replies", e.Obs.TotalErrors)
	b.I("dump_payload_sanitizations", 0)
	b.I("total_reads_processed", st.Commands)
	b.I("total_writes_processed", st.Commands)
	for _, k := range []string{
		"io_threaded_reads_processed", "io_threaded_writes_processed", "reply_buffer_shrinks", "reply_buffer_expands",
	} {
		b.I(k, 0)
	}
}

func infoReplication(x *engine.Ctx, b *engine.InfoBuf) { durability.Of(x.E).InfoReplication(b) }

// procCPU reads the process's user and system CPU seconds on Linux.
func procCPU() (user, sys float64) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 12th and 13th of them, in clock ticks (100 per second on Linux).
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0, 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return ut / 100, st / 100
}

func infoCPU(_ *engine.Ctx, b *engine.InfoBuf) {
	user, sys := procCPU()
	b.F("used_cpu_sys", sys, 6)
	b.F("used_cpu_user", user, 6)
	b.F("used_cpu_sys_children", 0, 6)
	b.F("used_cpu_user_children", 0, 6)
	b.F("used_cpu_sys_main_thread", sys, 6)
	b.F("used_cpu_user_main_thread", user, 6)
}

func infoKeyspace(x *engine.Ctx, b *engine.InfoBuf) {
	for i := range config.NumDBs {
		db := x.E.DB(i)
		keys := db.Len()
		if keys == 0 {
			continue
		}
		b.Kv("db"+strconv.Itoa(i), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", keys, db.ExpiresLen(), avgTTL(db, x.Now)))
	}
}

// avgTTL estimates the average remaining TTL in ms from a bounded sample of
// the keys with one, as Redis's estimate comes from the expiry cycle's samples.
func avgTTL(db *keyspace.DB, now int64) int64 {
	if db.ExpiresLen() == 0 {
		return 0
	}
	var sum, n int64
	visited := 0
	db.ForEach(func(e *keyspace.Entry) bool {
		visited++
		if exp := e.Expiry(); exp != keyspace.NoExpiry && exp > now {
			sum += exp - now
			n++
		}
		return n < 100 && visited < 10000
	})
	if n == 0 {
		return 0
	}
	return sum / n
}
