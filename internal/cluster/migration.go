package cluster

// Replica migration, as cluster.c's clusterCron counts orphaned masters
// and clusterHandleSlaveMigration decides: a replica of a master that has
// replicas to spare moves to a master serving slots with none left, so
// that one more failure does not take that master's slots down with it.

import (
	"fmt"
	"strconv"

	"github.com/limitkv/limitkv/internal/clusterstate"
)

// migrationDelay is CLUSTER_SLAVE_MIGRATION_DELAY: how long a master must
// stay orphaned before a replica moves to it, in ms. During a failover its
// old master's other replicas need a few pings to announce that they
// follow the new master: moving at the first sight of an orphan would
// give it one replica too many.
const migrationDelay = 5000

// migrationSettings are cluster-migration-barrier (how many working
// replicas a master keeps when one of its replicas migrates away) and
// cluster-allow-replica-migration.
func (c *Cluster) migrationSettings() (barrier int, allow bool) {
	barrier, err := strconv.Atoi(c.e.Cfg.Stored("cluster-migration-barrier"))
	if err != nil {
		barrier = 1 // the default; the config table accepts only numbers
	}
	return barrier, c.e.Cfg.Stored("cluster-allow-replica-migration") == "yes"
}

// handleReplicaMigration is clusterCron's last step on a replica: when
// migrationTarget picks a master for this node, it becomes its replica.
// Call with the lock held.
func (c *Cluster) handleReplicaMigration(now int64) {
	if !c.st.Myself.IsReplica() {
		return
	}
	barrier, allow := c.migrationSettings()
	target := migrationTarget(c.st, barrier, allow, now)
	if target == nil {
		return
	}
	c.log.Warn(fmt.Sprintf("Migrating to orphaned master %.40s", target.ID()))
	c.setMaster(target)
}

// orphaned reports whether n is a master that clusterHandleSlaveMigration
// counts as orphaned: working, with no working replica, and that had
// replicas once or took over from a master that had (MIGRATE_TO). Only
// one serving slots is a target; the others still have their orphaned
// time tracked, as in Redis.
func orphaned(n *clusterstate.Node) bool {
	return n.IsMaster() && !n.Failed() && n.Flags&clusterstate.FlagMigrateTo != 0 &&
		n.CountNonFailingReplicas() == 0
}

// migrationTarget decides, for myself, a replica, which orphaned master it
// should move to (nil: stay). It is clusterCron's count (some master is
// orphaned, some master has at least two working replicas, and ours has
// as many as any) and clusterHandleSlaveMigration's rules: the cluster is
// ok; our master keeps more than barrier replicas neither FAIL nor PFAIL;
// among the replicas of the masters with the most working replicas,
// myself has the smallest node ID; and the target has been orphaned for
// longer than migrationDelay. It records when each master was first seen
// orphaned (OrphanedTime) and forgets it when it is not.
//
// The smallest ID is taken over all those masters' replicas, the FAIL
// ones too, as Redis 7.0 does: every node of the cluster, Redis or
// limitkv, then names the same candidate (a replica back from a FAIL
// loses the flag at once, so the candidate ends up able to move).
func migrationTarget(st *clusterstate.State, barrier int, allow bool, now int64) *clusterstate.Node {
	me := st.Myself
	mine := me.Master()
	if !me.IsReplica() || mine == nil {
		return nil
	}
	orphans, maxReplicas, ours := 0, 0, 0
	for _, n := range st.Nodes() {
		if n.Flags&(clusterstate.FlagMyself|clusterstate.FlagNoAddr|clusterstate.FlagHandshake) != 0 ||
			!n.IsMaster() || n.Failed() {
			continue
		}
		ok := n.CountNonFailingReplicas()
		if ok == 0 && n.NumSlots() > 0 && n.Flags&clusterstate.FlagMigrateTo != 0 {
			orphans++
		}
		// Redis sets orphaned_time only when it goes on to the decision,
		// and clears it only there: a master seen orphaned once, then
		// given a replica while no decision ran, would keep its old time
		// and be migrated to at once when orphaned again. Clearing it
		// whenever the master is not orphaned keeps the delay honest.
		if !orphaned(n) {
			n.OrphanedTime = 0
		}
		maxReplicas = max(maxReplicas, ok)
		if n == mine {
			ours = ok
		}
	}
	// One replica per master is no spare: no migration unless some master
	// has two.
	if orphans == 0 || maxReplicas < 2 || ours != maxReplicas || !allow {
		return nil
	}
	if st.Health != clusterstate.StateOK {
		return nil
	}
	working := 0
	for _, r := range mine.Replicas() {
		if !r.Failed() && !r.TimedOut() {
			working++
		}
	}
	if working <= barrier {
		return nil
	}
	var target *clusterstate.Node
	candidate := me
	for _, n := range st.Nodes() {
		if orphaned(n) {
			if target == nil && n.NumSlots() > 0 {
				target = n
			}
			if n.OrphanedTime == 0 {
				n.OrphanedTime = now
			}
		} else {
			n.OrphanedTime = 0
		}
		if n.IsMaster() && n.CountNonFailingReplicas() == maxReplicas {
			for _, r := range n.Replicas() {
				if r.ID() < candidate.ID() {
					candidate = r
				}
			}
		}
	}
	if target == nil || candidate != me || now-target.OrphanedTime <= migrationDelay {
		return nil
	}
	return target
}
