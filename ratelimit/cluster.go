package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrCrossSlot is AllowAll's answer, before any round trip, for charges
// whose keys have different hash tags on a ClusterClient or a Ring: a
// cluster would refuse the step (CROSSSLOT), which a FailOpen policy would
// then admit unchecked, and a Ring would run it on the first key's shard,
// keeping the other keys where no single check of theirs would look.
var ErrCrossSlot = errors.New("ratelimit: AllowAll on a ClusterClient or Ring needs every key in one hash tag (one tenant's keys, with DefaultKey)")

// sharded reports whether rdb spreads keys over several servers by their
// hash tag: every key of one atomic step must then share one.
func sharded(rdb redis.UniversalClient) bool {
	switch rdb.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return true
	}
	return false
}

// hashTag is the part of key a cluster hashes: the text between the first
// '{' and the first '}' after it, if that is not empty; else the whole key.
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// detect asks the servers whether they have RL.CHECK. One client asks its
// server. A ClusterClient or a Ring would send a keyless COMMAND INFO to
// whichever node its picker chose, and in a cluster mixing limitkv and
// Redis masters that node would decide for all: so every node is asked,
// and RL.CHECK is used only if none lacks it. Replicas are asked too (a
// Redis replica promoted by a failover would refuse RL.CHECK); one that
// does not answer is left out, since only a master's failure stops a
// check.
func detect(ctx context.Context, rdb redis.UniversalClient) (Backend, error) {
	var v nodeVotes
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		if err := c.ForEachMaster(ctx, v.ask(true)); err != nil {
			return BackendAuto, fmt.Errorf("detecting the backend: %w", err)
		}
		// ForEachSlave fails only with the cluster's state; its nodes'
		// failures are recorded in v.
		_ = c.ForEachSlave(ctx, v.ask(false))
	case *redis.Ring:
		if err := c.ForEachShard(ctx, v.ask(true)); err != nil {
			return BackendAuto, fmt.Errorf("detecting the backend: %w", err)
		}
	default:
		return detectOne(ctx, rdb)
	}
	switch {
	case v.script:
		return BackendScript, nil
	case v.err != nil:
		return BackendAuto, v.err
	case v.masters == 0:
		return BackendAuto, errors.New("detecting the backend: no master to ask")
	}
	return BackendLimitkv, nil
}

// nodeVotes gathers the nodes' answers; ForEachMaster asks them at once.
type nodeVotes struct {
	mu      sync.Mutex
	script  bool  // a node lacks RL.CHECK
	err     error // a master's failure
	masters int   // masters that answered
}

func (v *nodeVotes) ask(master bool) func(context.Context, *redis.Client) error {
	return func(ctx context.Context, c *redis.Client) error {
		b, err := detectOne(ctx, c)
		v.mu.Lock()
		defer v.mu.Unlock()
		switch {
		case err != nil && master && v.err == nil:
			v.err = fmt.Errorf("%s: %w", c.Options().Addr, err)
		case err != nil:
		case b == BackendScript:
			v.script = true
		case master:
			v.masters++
		}
		return nil
	}
}

// detectOne asks one server. COMMAND INFO answers a nil entry for a
// command the server lacks (Redis, Valkey, Dragonfly) and the command's
// description on limitkv.
func detectOne(ctx context.Context, rdb interface {
	Do(context.Context, ...any) *redis.Cmd
}) (Backend, error) {
	v, err := rdb.Do(ctx, "COMMAND", "INFO", "rl.check").Slice()
	if err != nil {
		var rerr redis.Error
		if errors.As(err, &rerr) && !errors.Is(err, redis.Nil) {
			// The server answered, with an error (COMMAND renamed or denied
			// by an ACL): the script is what every server runs.
			return BackendScript, nil
		}
		return BackendAuto, fmt.Errorf("detecting the backend: %w", err)
	}
	if len(v) == 1 && v[0] != nil {
		return BackendLimitkv, nil
	}
	return BackendScript, nil
}

// serverTime is TIME on the server that holds key: on a ClusterClient or
// a Ring a keyless TIME goes to any node, whose clock is not the one the
// key's twins ran on.
func (st *store) serverTime(ctx context.Context, key string) (time.Time, error) {
	var c redis.Cmdable = st.rdb
	switch r := st.rdb.(type) {
	case *redis.ClusterClient:
		n, err := r.MasterForKey(ctx, key)
		if err != nil {
			return time.Time{}, err
		}
		c = n
	case *redis.Ring:
		n, err := r.GetShardClientForKey(key)
		if err != nil {
			return time.Time{}, err
		}
		c = n
	}
	return c.Time(ctx).Result()
}
