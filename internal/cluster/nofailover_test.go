package cluster

import (
	"strings"
	"testing"
	"time"
)

// cluster-replica-no-failover yes: a replica whose master fails holds no
// election (its peers see it flagged nofailover), yet CLUSTER FAILOVER
// FORCE still promotes it.
func TestReplicaNoFailover(t *testing.T) {
	a, b, c, r := threeMastersAndReplica(t)
	aid, rid := a.id(), r.id()
	// As CONFIG SET would (the engine here has no CONFIG command): the
	// cron reads the setting at its next turn.
	r.e.Lock()
	known, errstr := r.e.Cfg.ApplyDirective("cluster-replica-no-failover", []string{"yes"}, nil)
	r.e.Unlock()
	if !known || errstr != "" {
		t.Fatalf("cluster-replica-no-failover yes: known %v, %s", known, errstr)
	}
	eventually(t, 5*time.Second, "b and c to see r flagged nofailover", func() bool {
		return strings.Contains(nodeLine(b.nodes(), rid), "slave,nofailover ") &&
			strings.Contains(nodeLine(c.nodes(), rid), "slave,nofailover ")
	})
	rlog := r.record()
	a.stopBus()
	eventually(t, 10*time.Second, "r to see a FAIL", func() bool {
		return strings.Contains(nodeLine(r.nodes(), aid), "master,fail ")
	})
	// With the same cluster and the setting off, TestFailoverElection's
	// replica is master in about 1.5 s after the FAIL (0.5-1 s of delay,
	// then the votes): three times that without an election is proof.
	failed := time.Now()
	for time.Since(failed) < 4*time.Second {
		if line := nodeLine(r.nodes(), rid); !strings.Contains(line, "myself,slave,nofailover ") {
			t.Fatalf("r changed role without being asked: %s", line)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, line := range []string{"Start of election delayed for ", "Starting a failover election"} {
		if rlog.has(line) {
			t.Errorf("r logged %q with cluster-replica-no-failover yes", line)
		}
	}
	if got := r.do("CLUSTER", "FAILOVER", "FORCE"); got != "+OK\r\n" {
		t.Fatalf("CLUSTER FAILOVER FORCE: %q", got)
	}
	eventually(t, 10*time.Second, "r to be master with a's slots", func() bool {
		for _, n := range []*testNode{b, c, r} {
			if line := nodeLine(n.nodes(), rid); !strings.Contains(line, "master,nofailover ") || !strings.HasSuffix(line, " 0-5461") {
				return false
			}
		}
		return true
	})
	if !rlog.has("Failover election won: I'm the new master.") {
		t.Errorf("r was not elected: %q", rlog.all())
	}
}
