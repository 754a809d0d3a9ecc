package cluster

import "testing"

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
