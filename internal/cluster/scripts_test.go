package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/keyslot"
)

// TestNoClusterScripts: a script or function flagged no-cluster does not
// run on a cluster node (scriptPrepareForRun; tests/cluster's 00-base);
// one without the flag, or without a shebang, does.
func TestNoClusterScripts(t *testing.T) {
	n := startNode(t)
	const refused = "-ERR Can not run script on cluster, 'no-cluster' flag is set.\r\n"
	if got := n.do("FUNCTION", "LOAD", "#!lua name=test\n"+
		"redis.register_function{function_name='f1', callback=function() return 'hello' end, flags={'no-cluster'}}\n"+
		"redis.register_function{function_name='f2', callback=function() return 'hello' end}"); got != "$4\r\ntest\r\n" {
		t.Fatalf("FUNCTION LOAD: %q", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"FCALL", "f1", "0"}, refused},
		{[]string{"FCALL_RO", "f1", "0"}, refused},
		{[]string{"FCALL", "f2", "0"}, "$5\r\nhello\r\n"},
		{[]string{"EVAL", "#!lua flags=no-cluster\nreturn 1", "0"}, refused},
		{[]string{"EVAL", "#!lua flags=no-writes,no-cluster\nreturn 1", "0"}, refused},
		{[]string{"EVAL", "#!lua\nreturn 1", "0"}, ":1\r\n"},
		{[]string{"EVAL", "return 1", "0"}, ":1\r\n"},
	} {
		if got := n.do(tc.args...); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestScriptClusterKeys: on a cluster node a script's commands must have
// their keys served here and, unless the script is in EVAL compatibility
// mode (no shebang) or flagged allow-cross-slot-keys, in one slot, the
// slot of the keys it declared if it did (scriptVerifyClusterState;
// tests/unit/cluster-scripting.tcl).
func TestScriptClusterKeys(t *testing.T) {
	// The slot of "away" is served by no node: not here.
	n := startNode(t, "cluster-require-full-coverage", "no")
	away := int(keyslot.Slot([]byte("away")))
	n.locked(func(st *clusterstate.State) {
		for j := 0; j < clusterstate.Slots; j++ {
			if j != away {
				st.AddSlot(st.Myself, j)
			}
		}
		st.Todo |= clusterstate.TodoUpdateState
	})
	eventually(t, 4*time.Second, "cluster_state:ok", func() bool {
		return strings.Contains(n.do("CLUSTER", "INFO"), "cluster_state:ok")
	})
	const (
		crossSlot = "-ERR Script attempted to access keys that do not hash to the same slot"
		nonLocal  = "-ERR Script attempted to access a non local key in a cluster node"
		twoSets   = "redis.call('set', 'foo', 'bar'); redis.call('set', 'bar', 'foo'); return 'OK'"
	)
	lib := func(flags string) string {
		return "#!lua name=crossslot\nredis.register_function{function_name='f', flags={" + flags + "}, " +
			"callback=function(keys, args) " + twoSets + " end}"
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // the reply's start
	}{
		{"shebang", []string{"EVAL", "#!lua\n" + twoSets, "0"}, crossSlot},
		{"no shebang", []string{"EVAL", twoSets, "0"}, "$2\r\nOK"},
		{"allow-cross-slot-keys", []string{"EVAL", "#!lua flags=allow-cross-slot-keys\n" + twoSets, "0"}, "$2\r\nOK"},
		{"declared another slot", []string{"EVAL", "#!lua\nredis.call('set', 'foo', 'bar') return 'OK'", "1", "bar"}, crossSlot},
		{"declared the slot", []string{"EVAL", "#!lua\nredis.call('set', '{bar}2', 'x') return 'OK'", "1", "bar"}, "$2\r\nOK"},
		{"function", []string{"FUNCTION", "LOAD", "REPLACE", lib("")}, "$9\r\ncrossslot"},
		{"function called", []string{"FCALL", "f", "0"}, crossSlot},
		{"function allowed", []string{"FUNCTION", "LOAD", "REPLACE", lib("'allow-cross-slot-keys'")}, "$9\r\ncrossslot"},
		{"function allowed called", []string{"FCALL", "f", "0"}, "$2\r\nOK"},
		{"a key served elsewhere", []string{"EVAL", "return redis.call('get', 'away')", "0"}, nonLocal},
		{"pcall", []string{"EVAL", "return redis.pcall('get', 'away')", "0"}, nonLocal},
	} {
		if got := n.do(tc.args...); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.name, got, tc.want)
		}
	}
}
