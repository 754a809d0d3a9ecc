package cluster

import (
	"bytes"
	"strconv"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyslot"
)

// clusterRedirectClient's words.
const (
	errCrossSlot   = "CROSSSLOT Keys in request don't hash to the same slot"
	errTryAgain    = "TRYAGAIN Multiple keys request during rehashing of slot"
	errDown        = engine.ErrClusterDown
	errDownRO      = engine.ErrClusterDownRO
	errDownUnbound = "CLUSTERDOWN Hash slot not served"
)

// Redirect is getNodeByQuery (engine.Cluster): every key in one slot, that
// slot served here, or the error that sends the client where it is. While
// a slot migrates, keys still here are served and missing ones are asked
// of the target (ASK); a request for several keys of which only some moved
// gets TRYAGAIN.
func (c *Cluster) Redirect(q *engine.SlotQuery) string {
	st := c.st
	me := st.Myself
	var (
		n                    *clusterstate.Node
		first                []byte
		slot                 int
		multiple             bool
		migrating, importing bool
		missing, existing    int
	)
	for _, k := range q.Keys {
		s := int(keyslot.Slot(k))
		if first == nil {
			first, slot = k, s
			n = st.SlotOwner(s)
			if n == nil {
				return errDownUnbound
			}
			if n == me && st.MigratingTo(s) != nil {
				migrating = true
			} else if st.ImportingFrom(s) != nil {
				importing = true
			}
		} else if !bytes.Equal(first, k) {
			if s != slot {
				return errCrossSlot
			}
			multiple = true
		}
		// A shard channel is served where its slot was until the
		// migration ends: no lookup for it.
		if (migrating || importing) && !q.PubSubShard {
			if q.Exists(k) {
				existing++
			} else {
				missing++
			}
		}
	}
	if n == nil {
		return ""
	}
	if st.Health != clusterstate.StateOK {
		switch {
		case q.PubSubShard:
			if c.e.Cfg.Stored("cluster-allow-pubsubshard-when-down") != "yes" {
				return errDown
			}
		case c.e.Cfg.Stored("cluster-allow-reads-when-down") != "yes":
			return errDown
		case q.Write:
			return errDownRO
		}
	}
	if (migrating || importing) && q.Migrate {
		return ""
	}
	if migrating && missing > 0 {
		if existing > 0 {
			return errTryAgain
		}
		return c.redirectTo("ASK", slot, st.MigratingTo(slot))
	}
	if importing && q.Asking {
		if multiple && missing > 0 {
			return errTryAgain
		}
		return ""
	}
	if (q.ReadOnly || q.PubSubShard) && !q.Write && me.IsReplica() && me.Master() == n {
		return ""
	}
	if n != me {
		return c.redirectTo("MOVED", slot, n)
	}
	return ""
}

// redirectTo is the MOVED or ASK error naming n's preferred endpoint.
func (c *Cluster) redirectTo(kind string, slot int, n *clusterstate.Node) string {
	b := make([]byte, 0, 64)
	b = append(b, kind...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(slot), 10)
	b = append(b, ' ')
	b = append(b, c.preferredEndpoint(n)...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(n.Port), 10)
	return string(b)
}

// preferredEndpoint is getPreferredEndpoint: the node's IP, its hostname
// ("?" when it announced none), or nothing for unknown-endpoint, as
// cluster-preferred-endpoint-type says.
func (c *Cluster) preferredEndpoint(n *clusterstate.Node) string {
	switch c.e.Cfg.Stored("cluster-preferred-endpoint-type") {
	case "hostname":
		if n.Hostname != "" {
			return n.Hostname
		}
		return "?"
	case "unknown-endpoint":
		return ""
	}
	return n.IP
}

// redirectBlocked is clusterRedirectBlockedClientIfNeeded for a client
// blocked on key (engine.RedirectBlocked): CLUSTERDOWN when the cluster is
// down (even with reads allowed then, as a write that would unblock it may
// never come), or when the key's slot has no owner; MOVED when another node
// serves it, unless this node imports it, or serves it as the replica of its
// owner to a READONLY client that only reads.
func (c *Cluster) redirectBlocked(key []byte, readOnly, write bool) string {
	st := c.st
	if st.Health == clusterstate.StateFail {
		return errDown
	}
	slot := int(keyslot.Slot(key))
	n := st.SlotOwner(slot)
	me := st.Myself
	if readOnly && !write && me.IsReplica() && me.Master() == n {
		n = me
	}
	if n == me || st.ImportingFrom(slot) != nil {
		return ""
	}
	if n == nil {
		return errDownUnbound
	}
	return c.redirectTo("MOVED", slot, n)
}
