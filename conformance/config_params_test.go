package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Every setting of Redis 7.0.15 (CONFIG GET * on the oracle, plus the
// hidden ones, which patterns do not match) read by name, then CONFIG SET
// of each to a valid and an invalid value and back to its default,
// comparing every reply and the value read back.

// hiddenParams are config.c's HIDDEN_CONFIG settings.
var hiddenParams = []string{"use-exit-on-panic", "rdb-key-save-delay", "key-load-delay", "watchdog-period",
	"loading-process-events-interval-bytes"}

var hiddenDefaults = map[string]string{"use-exit-on-panic": "no", "loading-process-events-interval-bytes": "2097152"}

// paramsApart are settings whose value differs between the two servers by
// how the harness starts them (the oracle's free port and temporary dir).
var paramsApart = map[string]bool{"port": true, "dir": true}

// paramsNotSet are left out of the CONFIG SET sweep: they would cut the
// shared servers off from the other tests (a password, the listeners), or
// start work that outlives the step (appendonly's rewrite, the watchdog).
var paramsNotSet = map[string]bool{"requirepass": true, "port": true, "bind": true, "appendonly": true,
	"watchdog-period": true, "rdb-key-save-delay": true, "key-load-delay": true}

// setDivergent are the settings limitkv refuses values of on purpose.
var setDivergent = map[string]string{}

// setValues are a valid and an invalid value for settings whose type the
// generic choice below does not fit.
var setValues = map[string][2]string{
	"save":                              {"100 10", "a b"},
	"client-output-buffer-limit":        {"pubsub 32mb 8mb 61", "normal 1mb"},
	"oom-score-adj-values":              {"0 200 800", "1 2"},
	"oom-score-adj":                     {"no", "sometimes"},
	"latency-tracking-info-percentiles": {"50 99", "101"},
	"notify-keyspace-events":            {"KEA", "!"},
	"shutdown-on-sigint":                {"save now", "save nosave"},
	"shutdown-on-sigterm":               {"nosave force", "bogus"},
	"proc-title-template":               {"{title} x", "{nosuch}"},
	"cluster-announce-hostname":         {"host-1.example", "a_b"},
	"hz":                                {"600", "x"},
	"maxmemory-clients":                 {"10%", "101%"},
	"unixsocketperm":                    {"700", "9"},
	"dbfilename":                        {"x.rdb", "a/b"},
	"dir":                               {"/", "/nonexistent"},
	"replica-announce-ip":               {"10.0.0.1", ""},
	"bind-source-addr":                  {"127.0.0.1", ""},
	"slowlog-log-slower-than":           {"-1", "-2"},
	"maxmemory":                         {"1gb", "1xb"},
	"list-max-listpack-size":            {"-3", "x"},
	"loglevel":                          {"warning", "loud"},
	"maxmemory-policy":                  {"allkeys-lru", "nosuch"},
	"appendfsync":                       {"always", "sometimes"},
	"acl-pubsub-default":                {"allchannels", "x"},
	"repl-diskless-load":                {"swapdb", "x"},
	"sanitize-dump-payload":             {"clients", "x"},
	"cluster-preferred-endpoint-type":   {"hostname", "x"},
	"propagation-error-behavior":        {"panic-on-replicas", "x"},
	"tls-auth-clients":                  {"optional", "x"},
	"tls-port":                          {"0", "65536"},
	// Above the process's open-file limit Redis refuses maxclients with a
	// figure from its rlimit; limitkv does not refuse.
	"maxclients": {"100", "0"},
}

// setValue picks a valid and an invalid value from the default's shape.
func setValue(name, def string) (valid, invalid string) {
	if v, ok := setValues[name]; ok {
		return v[0], v[1]
	}
	switch def {
	case "yes":
		return "no", "maybe"
	case "no":
		return "yes", "maybe"
	}
	if def != "" && strings.Trim(def, "0123456789") == "" {
		return "1048576", "abc"
	}
	return "x", ""
}

func TestConfigEveryParam(t *testing.T) {
	requireServers(t)
	rc := dialRaw(t, "redis", redisAddr)
	all := rc.MustDo(t, "CONFIG", "GET", "*")
	rc.Close()
	defaults := map[string]string{}
	for i := 0; i+1 < len(all.Elems); i += 2 {
		defaults[all.Elems[i].Str] = all.Elems[i+1].Str
	}
	if len(defaults) < 190 {
		t.Fatalf("CONFIG GET * on redis-server: %d settings", len(defaults))
	}
	names := make([]string, 0, len(defaults)+len(hiddenParams))
	for k := range defaults {
		names = append(names, k)
	}
	sort.Strings(names)
	names = append(names, hiddenParams...)

	var get []Cmd
	var sets []Case
	get = append(get, C("CONFIG", "GET", "*").Check("every name", func(rds, lkv *Reply) error {
		return sameConfigNames(rds, lkv)
	}))
	for _, n := range names {
		if paramsApart[n] {
			continue
		}
		get = append(get, C("CONFIG", "GET", n))
		if paramsNotSet[n] {
			continue
		}
		def, ok := defaults[n]
		if !ok {
			def = hiddenDefaults[n]
		}
		valid, invalid := setValue(n, def)
		c := Case{Name: "set " + n, Skip: setDivergent[n], Cmds: []Cmd{C("CONFIG", "SET", n, valid), C("CONFIG", "GET", n),
			C("CONFIG", "SET", n, invalid), C("CONFIG", "GET", n),
			C("CONFIG", "SET", n, def), C("CONFIG", "GET", n)}}
		sets = append(sets, c)
	}
	runCases(t, append([]Case{{Name: "get every param", Cmds: get}}, sets...))
}

// sameConfigNames compares the names CONFIG GET * lists (the values are
// compared one by one, but for paramsApart).
func sameConfigNames(rds, lkv *Reply) error {
	names := func(r *Reply) []string {
		var out []string
		for i := 0; i+1 < len(r.Elems); i += 2 {
			out = append(out, r.Elems[i].Str)
		}
		sort.Strings(out)
		return out
	}
	a, b := names(rds), names(lkv)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		return fmt.Errorf("names differ:\nredis:   %v\nlimitkv: %v", diff(a, b), diff(b, a))
	}
	return nil
}

// diff is what a has that b lacks.
func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
