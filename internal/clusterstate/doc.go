// Package clusterstate is a Redis Cluster node's view of the cluster, as
// data: the nodes it knows (clusterNode), the slot owner table, the slots
// being migrated or imported, the epochs, and the texts Redis writes for
// them (nodes.conf, CLUSTER NODES, CLUSTER INFO) with the values behind
// CLUSTER SLOTS and CLUSTER SHARDS.
//
// The specification is Redis 7.0.15's src/cluster.c and cluster.h: a limitkv
// node sits in a cluster beside real Redis nodes, which read its gossip and
// whose nodes.conf it may inherit, so the operations here do what the C
// functions they name do, to the flag and to the byte of output, and a file
// Redis wrote loads and saves back unchanged.
//
// What cluster.c does with sockets, timers and the database is left to the
// component that owns a State: the bus (links, PING/PONG, gossip, FAIL and
// UPDATE messages), clusterCron's timeouts, failover elections, replication
// and the keys of a slot. So nothing here reads a clock or a socket: every
// operation that needs the time takes now, in Unix milliseconds, as an
// argument; the things Redis defers to clusterBeforeSleep are recorded in
// State.Todo for the component to do; and the one effect on other data
// (dropping the shard channels of a slot this node stops serving) is a hook,
// State.OnShardSlotDeleted. Only the nodes.conf file functions (Load,
// LockConfig, ConfigFile.Save) touch the file system.
//
// A State is not safe for concurrent use: like server.cluster, it belongs to
// the goroutine that runs the cluster.
package clusterstate
