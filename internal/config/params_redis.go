package config

import (
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/num"
)

// The rest of Redis 7.0.15's config table (config.c static_configs), so
// that every redis.conf Redis loads, limitkv loads too, and CONFIG GET, SET
// and REWRITE answer for every setting as Redis does: same defaults, bounds,
// enum values, error texts, immutability and aliases.
//
// These settings keep their value in Config.stored. Some are read by
// limitkv (enable-protected-configs by CONFIG SET; unixsocket and
// unixsocketperm by the listeners; the binary's own directives, daemonize,
// loglevel, logfile, pidfile and tls-*, are applied by internal/config and
// recorded here for CONFIG GET). The others concern machinery a Go server
// has no counterpart for, or that limitkv does not have; they are accepted,
// validated and shown, without effect (docs/config.md lists them):
//
//   - the C allocator, threads and process: activedefrag and
//     active-defrag-*, jemalloc-bg-thread, io-threads, io-threads-do-reads,
//     lazyfree-lazy-* (the Go collector frees), disable-thp, oom-score-adj,
//     oom-score-adj-values, server_cpulist, bio_cpulist,
//     aof_rewrite_cpulist, bgsave_cpulist, set-proc-title,
//     proc-title-template, crash-log-enabled, crash-memcheck-enabled,
//     use-exit-on-panic, watchdog-period, always-show-logo, supervised,
//     syslog-enabled, syslog-ident, syslog-facility, ignore-warnings,
//     socket-mark-id, tcp-backlog, bind-source-addr;
//   - the event loop's pacing: hz, dynamic-hz, active-expire-effort,
//     activerehashing, tcp-keepalive;
//   - persistence details: rdb-del-sync-files, rdb-save-incremental-fsync,
//     aof-rewrite-incremental-fsync, no-appendfsync-on-rewrite,
//     aof-timestamp-enabled, aof-disable-auto-gc, rdb-key-save-delay,
//     sanitize-dump-payload;
//   - replication details: repl-disable-tcp-nodelay, repl-diskless-load,
//     repl-diskless-sync-max-replicas, replica-lazy-flush,
//     replica-ignore-maxmemory, replica-ignore-disk-write-errors,
//     propagation-error-behavior;
//   - cluster mode, modules and their commands: cluster-*,
//     enable-module-command;
//   - client eviction and ACL defaults: maxmemory-clients,
//     acl-pubsub-default;
//   - shutdown-on-sigint, shutdown-on-sigterm;
//   - TLS settings the binary has no use for: tls-ca-cert-dir, tls-ciphers,
//     tls-ciphersuites, tls-protocols, tls-client-*, tls-dh-params-file,
//     tls-key-file-pass, tls-cluster, tls-replication,
//     tls-prefer-server-ciphers, tls-session-*.

// storedValue is a table setting kept as the text CONFIG GET shows.
func (c *Config) storedValue(name string) *atomic.Pointer[string] { return c.stored[name] }

// Stored returns the value of a setting kept in the stored table
// (unixsocket, loglevel, ...), "" for a name that is not one.
func (c *Config) Stored(name string) string {
	if p := c.stored[name]; p != nil {
		return *p.Load()
	}
	return ""
}

func (c *Config) initStored() {
	c.stored = map[string]*atomic.Pointer[string]{}
	for i := range ConfigParams {
		p := &ConfigParams[i]
		if p.storedDef != nil {
			v := *p.storedDef
			var ap atomic.Pointer[string]
			ap.Store(&v)
			c.stored[p.Name] = &ap
		}
	}
}

// storedParam is the common part: Get reads the stored text, and parse's
// canonical text is what is stored.
func storedParam(name, alias, def string, parse func(v string) (string, string)) ConfigParam {
	return ConfigParam{
		Name: name, Alias: alias, storedDef: &def,
		Get: func(c *Config) string { return *c.storedValue(name).Load() },
		Parse: func(c *Config, v string) (func(), string) {
			canon, err := parse(v)
			if err != "" {
				return nil, err
			}
			return func() { c.storedValue(name).Store(&canon) }, ""
		},
	}
}

func sBool(name, alias string, def bool) ConfigParam {
	d := "no"
	if def {
		d = "yes"
	}
	return storedParam(name, alias, d, func(v string) (string, string) {
		switch strings.ToLower(v) {
		case "yes":
			return "yes", ""
		case "no":
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	})
}

// sString is a string setting; nullIfEmpty is EMPTY_STRING_IS_NULL: an
// empty value writes no line in CONFIG REWRITE.
func sString(name, alias, def string, nullIfEmpty bool, valid func(string) string) ConfigParam {
	p := storedParam(name, alias, def, func(v string) (string, string) {
		if valid != nil {
			if err := valid(v); err != "" {
				return "", err
			}
		}
		return v, ""
	})
	p.rewrite = func(c *Config) []string {
		v := *c.storedValue(name).Load()
		if nullIfEmpty && v == "" {
			return nil
		}
		return []string{name + " " + QuoteArg(v)}
	}
	return p
}

// sEnum is an enum setting; a multi one (MULTI_ARG_CONFIG) is a set of
// flags, shown in the enum's order (configEnumGetName), "default" for none.
func sEnum(name, alias, def string, values []string, multi bool) ConfigParam {
	p := storedParam(name, alias, def, func(v string) (string, string) {
		words := []string{v}
		if multi {
			words = strings.Split(v, " ")
		}
		seen := make([]bool, len(values))
		for _, w := range words {
			found := false
			for i, e := range values {
				if strings.EqualFold(w, e) {
					seen[i], found = true, true
				}
			}
			if !found || w == "" && !multi {
				return "", "argument(s) must be one of the following: " + strings.Join(values, ", ")
			}
		}
		if !multi {
			for i, s := range seen {
				if s {
					return values[i], ""
				}
			}
		}
		// shutdown-on-sig*: values[0] is "default" (no flag).
		var out []string
		for i, s := range seen[1:] {
			if s {
				out = append(out, values[i+1])
			}
		}
		if len(out) == 0 {
			return values[0], ""
		}
		joined := " " + strings.Join(out, " ") + " "
		if strings.Contains(joined, " save ") && strings.Contains(joined, " nosave ") {
			return "", "shutdown options SAVE and NOSAVE can't be used simultaneously"
		}
		return strings.Join(out, " "), ""
	})
	p.multi = multi
	return p
}

// sNum is a numeric setting shown as Redis shows it: bytes for memory
// settings, octal for OCTAL_CONFIG, "N%" for a percentage.
func sNum(name, alias string, spec numSpec, def int64) ConfigParam {
	p := storedParam(name, alias, spec.format(def), func(v string) (string, string) {
		n, err := spec.parseNumber(v)
		if err != "" {
			return "", err
		}
		return spec.format(n), ""
	})
	if spec.memory || spec.octal || spec.percent {
		p.rewrite = func(c *Config) []string {
			v := *c.storedValue(name).Load()
			if spec.memory && !strings.HasSuffix(v, "%") {
				n, _ := strconv.ParseUint(v, 10, 64)
				v = formatMemory(int64(n))
			}
			return []string{name + " " + v}
		}
	}
	return p
}

func (s numSpec) format(n int64) string {
	switch {
	case s.percent && n < 0:
		return strconv.FormatInt(-n, 10) + "%"
	case s.memory:
		return strconv.FormatUint(uint64(n), 10)
	case s.octal:
		return strconv.FormatUint(uint64(n), 8)
	}
	return strconv.FormatInt(n, 10)
}

func immutable(p ConfigParam) ConfigParam { p.Immutable = true; return p }

// tlsFixed refuses CONFIG SET to another value than the one the binary
// started with while TLS is on (tls-port set): Redis reconfigures TLS at
// run time (applyTlsCfg), limitkv's listener takes its files at start.
// With TLS off, Redis only stores the value, and so does limitkv.
func tlsFixed(p ConfigParam) ConfigParam {
	get := p.Get
	p.Check = func(c *Config, v string) string {
		if c.Stored("tls-port") != "0" && v != get(c) {
			return errTLS
		}
		return ""
	}
	return p
}

// tlsNeedsCert: turning TLS on for links without a certificate fails in
// Redis's tlsConfigure, with errTLS.
func tlsNeedsCert(p ConfigParam) ConfigParam {
	p.Check = func(c *Config, v string) string {
		if strings.EqualFold(v, "yes") && c.Stored("tls-cert-file") == "" {
			return errTLS
		}
		return ""
	}
	return p
}

// tlsPort: a TLS listener needs the certificate the binary loaded at
// start; without one Redis's applyTLSPort fails with errTLS too.
func tlsPort() ConfigParam {
	p := sNum("tls-port", "", numSpec{lo: 0, hi: 65535}, 0)
	get := p.Get
	p.Check = func(c *Config, v string) string {
		if n, _ := num.ParseInt([]byte(v)); strconv.FormatInt(n, 10) != get(c) {
			if get(c) == "0" {
				return errTLS
			}
			return "Unable to listen on this port. Check server logs."
		}
		return ""
	}
	return p
}

var protectedActions = []string{"no", "yes", "local"}

const errTLS = "Unable to update TLS configuration. Check server logs."

var redisOnlyParams = []ConfigParam{
	// Bool configs.
	immutable(sBool("daemonize", "", false)),
	immutable(sBool("io-threads-do-reads", "", false)),
	immutable(sBool("always-show-logo", "", false)),
	sBool("rdb-del-sync-files", "", false),
	sBool("activerehashing", "", true),
	immutable(sBool("set-proc-title", "", true)),
	sBool("dynamic-hz", "", true),
	sBool("lazyfree-lazy-eviction", "", false),
	sBool("lazyfree-lazy-expire", "", false),
	sBool("lazyfree-lazy-server-del", "", false),
	sBool("lazyfree-lazy-user-del", "", false),
	sBool("lazyfree-lazy-user-flush", "", false),
	sBool("repl-disable-tcp-nodelay", "", false),
	sBool("aof-rewrite-incremental-fsync", "", true),
	sBool("no-appendfsync-on-rewrite", "", false),
	sBool("cluster-require-full-coverage", "", true),
	sBool("rdb-save-incremental-fsync", "", true),
	sBool("aof-timestamp-enabled", "", false),
	sBool("cluster-replica-no-failover", "cluster-slave-no-failover", false),
	sBool("replica-lazy-flush", "slave-lazy-flush", false),
	sBool("replica-ignore-maxmemory", "slave-ignore-maxmemory", true),
	sBool("jemalloc-bg-thread", "", true),
	activeDefrag(),
	immutable(sBool("syslog-enabled", "", false)),
	immutable(sBool("cluster-enabled", "", false)),
	sBool("cluster-allow-reads-when-down", "", false),
	sBool("cluster-allow-pubsubshard-when-down", "", true),
	sBool("crash-log-enabled", "", true),
	sBool("crash-memcheck-enabled", "", true),
	hide(sBool("use-exit-on-panic", "", false)),
	immutable(sBool("disable-thp", "", true)),
	sBool("cluster-allow-replica-migration", "", true),
	sBool("aof-disable-auto-gc", "", false),
	sBool("replica-ignore-disk-write-errors", "", false),

	// String configs.
	immutable(sString("unixsocket", "", "", true, nil)),
	immutable(sString("pidfile", "", "", true, nil)),
	sString("cluster-announce-ip", "", "", true, nil),
	immutable(sString("cluster-config-file", "", "nodes.conf", false, nil)),
	sString("cluster-announce-hostname", "", "", true, validHostname),
	immutable(sString("syslog-ident", "", "redis", false, nil)),
	immutable(sString("server_cpulist", "", "", true, nil)),
	immutable(sString("bio_cpulist", "", "", true, nil)),
	immutable(sString("aof_rewrite_cpulist", "", "", true, nil)),
	immutable(sString("bgsave_cpulist", "", "", true, nil)),
	sString("ignore-warnings", "", "", false, nil),
	sString("proc-title-template", "", "{title} {listen-addr} {server-mode}", false, validProcTitle),
	sString("bind-source-addr", "", "", true, nil),
	immutable(sString("logfile", "", "", false, nil)),

	// Enum configs.
	immutable(sEnum("supervised", "", "no", []string{"upstart", "systemd", "auto", "no"}, false)),
	immutable(sEnum("syslog-facility", "", "local0",
		[]string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}, false)),
	sEnum("repl-diskless-load", "", "disabled", []string{"disabled", "on-empty-db", "swapdb"}, false),
	logLevelParam(sEnum("loglevel", "", "notice", []string{"debug", "verbose", "notice", "warning"}, false)),
	sEnum("oom-score-adj", "", "no", []string{"no", "yes", "relative", "absolute"}, false),
	sEnum("acl-pubsub-default", "", "resetchannels", []string{"allchannels", "resetchannels"}, false),
	sEnum("sanitize-dump-payload", "", "no", []string{"no", "yes", "clients"}, false),
	immutable(sEnum("enable-protected-configs", "", "no", protectedActions, false)),
	immutable(sEnum("enable-module-command", "", "no", protectedActions, false)),
	sEnum("cluster-preferred-endpoint-type", "", "ip", []string{"ip", "hostname", "unknown-endpoint"}, false),
	sEnum("propagation-error-behavior", "", "ignore", []string{"ignore", "panic", "panic-on-replicas"}, false),
	sEnum("shutdown-on-sigint", "", "default", []string{"default", "save", "nosave", "now", "force"}, true),
	sEnum("shutdown-on-sigterm", "", "default", []string{"default", "save", "nosave", "now", "force"}, true),

	// Numeric configs.
	immutable(sNum("io-threads", "", numSpec{lo: 1, hi: 128}, 1)),
	sNum("cluster-replica-validity-factor", "cluster-slave-validity-factor", numSpec{lo: 0, hi: intMax}, 10),
	sNum("tcp-keepalive", "", numSpec{lo: 0, hi: intMax}, 300),
	sNum("cluster-migration-barrier", "", numSpec{lo: 0, hi: intMax}, 1),
	sNum("active-defrag-cycle-min", "", numSpec{lo: 1, hi: 99}, 1),
	sNum("active-defrag-cycle-max", "", numSpec{lo: 1, hi: 99}, 25),
	sNum("active-defrag-threshold-lower", "", numSpec{lo: 0, hi: 1000}, 10),
	sNum("active-defrag-threshold-upper", "", numSpec{lo: 0, hi: 1000}, 100),
	immutable(sNum("tcp-backlog", "", numSpec{lo: 0, hi: intMax}, 511)),
	immutable(sNum("cluster-port", "", numSpec{lo: 0, hi: 65535}, 0)),
	sNum("cluster-announce-bus-port", "", numSpec{lo: 0, hi: 65535}, 0),
	sNum("cluster-announce-port", "", numSpec{lo: 0, hi: 65535}, 0),
	sNum("cluster-announce-tls-port", "", numSpec{lo: 0, hi: 65535}, 0),
	hide(sNum("rdb-key-save-delay", "", numSpec{lo: uint64(intMinSigned), hi: intMax}, 0)),
	sNum("active-expire-effort", "", numSpec{lo: 1, hi: 10}, 1),
	hzParam(),
	hide(sNum("watchdog-period", "", numSpec{lo: 0, hi: intMax}, 0)),
	sNum("repl-diskless-sync-max-replicas", "", numSpec{lo: 0, hi: intMax}, 0),
	immutable(sNum("unixsocketperm", "", numSpec{octal: true, unsigned: true, lo: 0, hi: 0o777}, 0)),
	immutable(sNum("socket-mark-id", "", numSpec{unsigned: true, lo: 0, hi: uintMax}, 0)),
	sNum("active-defrag-max-scan-fields", "", numSpec{unsigned: true, lo: 1, hi: longMax}, 1000),
	sNum("cluster-node-timeout", "", numSpec{lo: 0, hi: longMax}, 15000),
	sNum("cluster-link-sendbuf-limit", "", numSpec{memory: true, unsigned: true, lo: 0, hi: math.MaxUint64}, 0),
	sNum("active-defrag-ignore-bytes", "", numSpec{memory: true, unsigned: true, lo: 1, hi: longMax}, 100<<20),
	sNum("maxmemory-clients", "", numSpec{memory: true, percent: true, lo: uint64(minusHundred), hi: longMax}, 0),

	// TLS: the binary reads tls-port and the files at start
	// (internal/config); CONFIG SET may not move them.
	tlsPort(),
	sNum("tls-session-cache-size", "", numSpec{lo: 0, hi: intMax}, 20*1024),
	sNum("tls-session-cache-timeout", "", numSpec{lo: 0, hi: intMax}, 300),
	tlsNeedsCert(sBool("tls-cluster", "", false)),
	tlsNeedsCert(sBool("tls-replication", "", false)),
	sEnum("tls-auth-clients", "", "yes", []string{"no", "yes", "optional"}, false),
	sBool("tls-prefer-server-ciphers", "", false),
	sBool("tls-session-caching", "", true),
	tlsFixed(sString("tls-cert-file", "", "", true, nil)),
	tlsFixed(sString("tls-key-file", "", "", true, nil)),
	sString("tls-key-file-pass", "", "", true, nil),
	sString("tls-client-cert-file", "", "", true, nil),
	sString("tls-client-key-file", "", "", true, nil),
	sString("tls-client-key-file-pass", "", "", true, nil),
	sString("tls-dh-params-file", "", "", true, nil),
	tlsFixed(sString("tls-ca-cert-file", "", "", true, nil)),
	sString("tls-ca-cert-dir", "", "", true, nil),
	sString("tls-protocols", "", "", true, nil),
	sString("tls-ciphers", "", "", true, nil),
	sString("tls-ciphersuites", "", "", true, nil),

	oomScoreAdjValues(),
}

var minusHundred int64 = -100

// activeDefrag is isValidActiveDefrag on a Redis built without jemalloc's
// defragmentation hint (Debian's): the Go runtime has none either.
func activeDefrag() ConfigParam {
	return storedParam("activedefrag", "", "no", func(v string) (string, string) {
		switch strings.ToLower(v) {
		case "yes":
			return "", "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"
		case "no":
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	})
}

// hzParam: Redis caps hz to 1..500 after setting it (updateHZ).
func hzParam() ConfigParam {
	spec := numSpec{lo: 0, hi: intMax}
	return storedParam("hz", "", "10", func(v string) (string, string) {
		n, err := spec.parseNumber(v)
		if err != "" {
			return "", err
		}
		n = max(1, min(n, 500))
		return strconv.FormatInt(n, 10), ""
	})
}

// oomScoreAdjValues is setConfigOOMScoreAdjValuesOption: three integers in
// -2000..2000.
func oomScoreAdjValues() ConfigParam {
	p := storedParam("oom-score-adj-values", "", "0 200 800", func(v string) (string, string) {
		words := strings.Split(v, " ")
		if len(words) != 3 {
			return "", "wrong number of arguments"
		}
		out := make([]string, 3)
		for i, w := range words {
			n, ok := Strtoll(w)
			if !ok || n < -2000 || n > 2000 {
				return "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
			}
			out[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(out, " "), ""
	})
	p.multi = true
	return p
}

// validHostname is isValidAnnouncedHostname.
func validHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// validProcTitle is validateProcTitleTemplate: the template expanded
// (sdstemplate: {var} from Redis's list, "{{" and "}}" literal) with an
// empty title must not be blank. Variables that may expand to "" on a
// plain server ({title}, {server-mode}, {config-file}, {unixsocket}) are
// counted as such.
func validProcTitle(v string) string {
	const errText = "template format is invalid or contains unknown variables"
	vars := map[string]bool{"listen-addr": true, "port": true, "tls-port": true,
		"title": false, "server-mode": false, "config-file": false, "unixsocket": false}
	var out strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '{' && i+1 < len(v) && v[i+1] == '{', v[i] == '}' && i+1 < len(v) && v[i+1] == '}':
			out.WriteByte(v[i])
			i++
		case v[i] == '{':
			j := strings.IndexByte(v[i:], '}')
			if j < 0 {
				return errText
			}
			nonEmpty, ok := vars[v[i+1:i+j]]
			if !ok {
				return errText
			}
			if nonEmpty {
				out.WriteByte('x')
			}
			i += j
		case v[i] == '}':
			return errText
		default:
			out.WriteByte(v[i])
		}
	}
	if strings.Trim(out.String(), " ") == "" {
		return errText
	}
	return ""
}

func init() { ConfigParams = append(ConfigParams, redisOnlyParams...) }

// logLevelParam makes a change of loglevel reach the log at once
// (Config.LogLevel), as Redis reads server.verbosity for every line.
func logLevelParam(p ConfigParam) ConfigParam {
	parse := p.Parse
	p.Parse = func(c *Config, v string) (func(), string) {
		apply, err := parse(c, v)
		if err != "" {
			return nil, err
		}
		return func() {
			apply()
			c.LogLevel.Set(RedisLogLevel(c.Stored("loglevel")))
		}, ""
	}
	return p
}

// RedisLogLevel is a loglevel name's slog level: verbose sits between
// debug and info, notice is info, warning is warn.
func RedisLogLevel(name string) slog.Level {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug
	case "verbose":
		return slog.Level(-2)
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
