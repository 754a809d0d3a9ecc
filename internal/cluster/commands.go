package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/num"
)

// errDisabled answers every cluster command on a server not in cluster mode.
const errDisabled = "ERR This instance has cluster support disabled"

// Commands are CLUSTER and its subcommands, ASKING, READONLY and READWRITE,
// with Redis 7.0's arities and flags.
var Commands = []*engine.Command{
	{Name: "cluster", Arity: -2, Group: "cluster", Sub: map[string]*engine.Command{
		"addslots":              sub(-3, admin|noAsync, cmdAddSlots),
		"addslotsrange":         sub(-4, admin|noAsync, cmdAddSlotsRange),
		"bumpepoch":             sub(2, admin|noAsync, cmdBumpEpoch),
		"count-failure-reports": sub(3, admin, cmdCountFailureReports),
		"countkeysinslot":       sub(3, 0, cmdCountKeysInSlot),
		"delslots":              sub(-3, admin|noAsync, cmdDelSlots),
		"delslotsrange":         sub(-4, admin|noAsync, cmdDelSlotsRange),
		"failover":              sub(-2, admin|noAsync, cmdFailover),
		"flushslots":            sub(2, admin|noAsync, cmdFlushSlots),
		"forget":                sub(3, admin|noAsync, cmdForget),
		"getkeysinslot":         sub(4, 0, cmdGetKeysInSlot),
		"help":                  sub(2, engine.FlagLoading, cmdHelp),
		"info":                  sub(2, 0, cmdInfo),
		"keyslot":               sub(3, 0, cmdKeySlot),
		"links":                 sub(2, 0, cmdLinks),
		"meet":                  sub(-4, admin|noAsync, cmdMeet),
		"myid":                  sub(2, 0, cmdMyID),
		"nodes":                 sub(2, 0, cmdNodes),
		"replicas":              sub(3, admin, cmdReplicas),
		"replicate":             sub(3, admin|noAsync, cmdReplicate),
		"reset":                 sub(-2, admin|engine.FlagNoScript, cmdReset),
		"saveconfig":            sub(2, admin|noAsync, cmdSaveConfig),
		"set-config-epoch":      sub(3, admin|noAsync, cmdSetConfigEpoch),
		"setslot":               sub(-4, admin|noAsync, cmdSetSlot),
		"shards":                sub(2, 0, cmdShards),
		"slaves":                sub(3, admin, cmdReplicas),
		"slots":                 sub(2, 0, cmdSlots),
	}},
	{Name: "asking", Arity: 1, Flags: engine.FlagFast, Group: "cluster", Handler: cmdAsking},
	{Name: "readonly", Arity: 1, Flags: engine.FlagFast | engine.FlagLoading | engine.FlagStale, Group: "cluster", Handler: cmdReadOnly},
	{Name: "readwrite", Arity: 1, Flags: engine.FlagFast | engine.FlagLoading | engine.FlagStale, Group: "cluster", Handler: cmdReadWrite},
}

const (
	admin = engine.FlagAdmin
	// noAsync stands for no_async_loading, which limitkv does not need
	// (it never serves reads while loading a replica's payload).
	noAsync engine.Flags = 0
)

// sub is a CLUSTER subcommand: stale always, and refused on a server not
// in cluster mode before anything else; the settings are read first.
func sub(arity int, flags engine.Flags, h func(x *engine.Ctx, c *Cluster)) *engine.Command {
	return &engine.Command{Arity: arity, Flags: flags | engine.FlagStale, Group: "cluster", Handler: func(x *engine.Ctx) {
		c := of(x.E)
		if c == nil {
			x.W.Error(errDisabled)
			return
		}
		// A CONFIG SET of what myself announces shows at once, as
		// Redis applies it when set (not at the next cron).
		c.applySettings()
		h(x, c)
		c.afterChange()
	}}
}

// clientFlag is ASKING, READONLY and READWRITE: set or clear one of the
// connection's cluster flags, refused outside cluster mode.
func clientFlag(flag func(c *engine.Client) *bool, on bool) func(x *engine.Ctx) {
	return func(x *engine.Ctx) {
		if of(x.E) == nil {
			x.W.Error(errDisabled)
			return
		}
		*flag(x.C) = on
		x.W.OK()
	}
}

var (
	cmdAsking    = clientFlag(func(c *engine.Client) *bool { return &c.Asking }, true)
	cmdReadOnly  = clientFlag(func(c *engine.Client) *bool { return &c.ReadOnly }, true)
	cmdReadWrite = clientFlag(func(c *engine.Client) *bool { return &c.ReadOnly }, false)
)

var help = []string{
	"CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ADDSLOTS <slot> [<slot> ...]",
	"    Assign slots to current node.",
	"ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Assign slots which are between <start-slot> and <end-slot> to current node.",
	"BUMPEPOCH",
	"    Advance the cluster config epoch.",
	"COUNT-FAILURE-REPORTS <node-id>",
	"    Return number of failure reports for <node-id>.",
	"COUNTKEYSINSLOT <slot>",
	"    Return the number of keys in <slot>.",
	"DELSLOTS <slot> [<slot> ...]",
	"    Delete slots information from current node.",
	"DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Delete slots information which are between <start-slot> and <end-slot> from current node.",
	"FAILOVER [FORCE|TAKEOVER]",
	"    Promote current replica node to being a master.",
	"FORGET <node-id>",
	"    Remove a node from the cluster.",
	"GETKEYSINSLOT <slot> <count>",
	"    Return key names stored by current node in a slot.",
	"FLUSHSLOTS",
	"    Delete current node own slots information.",
	"INFO",
	"    Return information about the cluster.",
	"KEYSLOT <key>",
	"    Return the hash slot for <key>.",
	"MEET <ip> <port> [<bus-port>]",
	"    Connect nodes into a working cluster.",
	"MYID",
	"    Return the node id.",
	"NODES",
	"    Return cluster configuration seen by node. Output format:",
	"    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
	"REPLICATE <node-id>",
	"    Configure current node as replica to <node-id>.",
	"RESET [HARD|SOFT]",
	"    Reset current node (default: soft).",
	"SET-CONFIG-EPOCH <epoch>",
	"    Set config epoch of current node.",
	"SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
	"    Set slot state.",
	"REPLICAS <node-id>",
	"    Return <node-id> replicas.",
	"SAVECONFIG",
	"    Force saving cluster configuration on disk.",
	"SLOTS",
	"    Return information about slots range mappings. Each range is made of:",
	"    start, end, master and replicas IP addresses, ports and ids",
	"SHARDS",
	"    Return information about slot range mappings and the nodes associated with them.",
	"LINKS",
	"    Return information about all network links between this node and its peers.",
	"    Output format is an array where each array element is a map containing attributes of a link",
	"HELP",
	"    Prints this help.",
}

func cmdHelp(x *engine.Ctx, _ *Cluster) { engine.WriteHelp(x, help) }

// getSlot is getSlotOrReply.
func getSlot(x *engine.Ctx, arg []byte) (int, bool) {
	n, ok := num.ParseInt(arg)
	if !ok || n < 0 || n >= keyslot.Slots {
		x.W.Error("ERR Invalid or out of range slot")
		return 0, false
	}
	return int(n), true
}

// checkSlots is checkSlotAssignmentsOrReply over start..end, marking seen.
func checkSlots(x *engine.Ctx, c *Cluster, seen []bool, del bool, start, end int) bool {
	for s := start; s <= end; s++ {
		owner := c.st.SlotOwner(s)
		switch {
		case del && owner == nil:
			x.W.Error(fmt.Sprintf("ERR Slot %d is already unassigned", s))
			return false
		case !del && owner != nil:
			x.W.Error(fmt.Sprintf("ERR Slot %d is already busy", s))
			return false
		case seen[s]:
			x.W.Error(fmt.Sprintf("ERR Slot %d specified multiple times", s))
			return false
		}
		seen[s] = true
	}
	return true
}

// updateSlots is clusterUpdateSlots: the slots marked become myself's, or
// nobody's; an import of one of them is over.
func (c *Cluster) updateSlots(seen []bool, del bool) {
	st := c.st
	for s, on := range seen {
		if !on {
			continue
		}
		st.SetImporting(s, nil)
		if del {
			st.DelSlot(s)
		} else {
			st.AddSlot(st.Myself, s)
		}
	}
	st.Todo |= clusterstate.TodoUpdateState | clusterstate.TodoSaveConfig
}

func cmdAddSlots(x *engine.Ctx, c *Cluster) { slotsCmd(x, c, false) }
func cmdDelSlots(x *engine.Ctx, c *Cluster) { slotsCmd(x, c, true) }

func slotsCmd(x *engine.Ctx, c *Cluster, del bool) {
	slots := make([]int, 0, len(x.Args)-2)
	for _, a := range x.Args[2:] {
		s, ok := getSlot(x, a)
		if !ok {
			return
		}
		slots = append(slots, s)
	}
	seen := make([]bool, keyslot.Slots)
	for _, s := range slots {
		if !checkSlots(x, c, seen, del, s, s) {
			return
		}
	}
	c.updateSlots(seen, del)
	x.W.OK()
}

func cmdAddSlotsRange(x *engine.Ctx, c *Cluster) { slotsRangeCmd(x, c, false) }
func cmdDelSlotsRange(x *engine.Ctx, c *Cluster) { slotsRangeCmd(x, c, true) }

func slotsRangeCmd(x *engine.Ctx, c *Cluster, del bool) {
	if len(x.Args)%2 == 1 {
		x.W.Error(engine.ErrWrongArgs("cluster|" + strings.ToLower(string(x.Args[1]))))
		return
	}
	seen := make([]bool, keyslot.Slots)
	for j := 2; j < len(x.Args); j += 2 {
		start, ok := getSlot(x, x.Args[j])
		if !ok {
			return
		}
		end, ok := getSlot(x, x.Args[j+1])
		if !ok {
			return
		}
		if start > end {
			x.W.Error(fmt.Sprintf("ERR start slot number %d is greater than end slot number %d", start, end))
			return
		}
		if !checkSlots(x, c, seen, del, start, end) {
			return
		}
	}
	c.updateSlots(seen, del)
	x.W.OK()
}

func cmdBumpEpoch(x *engine.Ctx, c *Cluster) {
	word := "STILL"
	if c.st.BumpConfigEpochWithoutConsensus() {
		word = "BUMPED"
		c.log.Warn(fmt.Sprintf("New configEpoch set to %d", c.st.Myself.ConfigEpoch))
	}
	x.W.Simple(word + " " + strconv.FormatUint(c.st.Myself.ConfigEpoch, 10))
}

func cmdCountFailureReports(x *engine.Ctx, c *Cluster) {
	n := c.lookup(x, x.Args[2], "ERR Unknown node ")
	if n == nil {
		return
	}
	x.W.Int(int64(c.st.FailureReportsCount(n, c.now())))
}

// lookup is clusterLookupNode with the error it answers when the node is
// not known (prefix is followed by the name as given).
func (c *Cluster) lookup(x *engine.Ctx, arg []byte, prefix string) *clusterstate.Node {
	n := c.st.LookupID(string(arg))
	if n == nil {
		x.W.Error(prefix + string(arg))
	}
	return n
}

func cmdCountKeysInSlot(x *engine.Ctx, _ *Cluster) {
	slot, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if slot < 0 || slot >= keyslot.Slots {
		x.W.Error("ERR Invalid slot")
		return
	}
	x.W.Int(int64(x.E.SlotIndex().Count(int(slot))))
}

func cmdGetKeysInSlot(x *engine.Ctx, _ *Cluster) {
	slot, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	max, ok := num.ParseInt(x.Args[3])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if slot < 0 || slot >= keyslot.Slots || max < 0 {
		x.W.Error("ERR Invalid slot or number of keys")
		return
	}
	keys := x.E.SlotIndex().Keys(nil, int(slot), int(min(max, 1<<31)))
	x.W.Array(len(keys))
	for _, k := range keys {
		x.W.BulkString(k)
	}
}

func cmdFailover(x *engine.Ctx, c *Cluster) {
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	force, takeover := false, false
	if len(x.Args) == 3 {
		switch strings.ToLower(string(x.Args[2])) {
		case "force":
			force = true
		case "takeover":
			force, takeover = true, true
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	me := c.st.Myself
	switch {
	case me.IsMaster():
		x.W.Error("ERR You should send CLUSTER FAILOVER to a replica")
	case me.Master() == nil:
		x.W.Error("ERR I'm a replica but my master is unknown to me")
	case !force && (me.Master().Failed() || c.bus == nil || c.bus.out[me.Master()] == nil):
		// The default failover needs the master to pause for it.
		x.W.Error("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE")
	default:
		c.manualFailover(force, takeover)
		x.W.OK()
	}
}

func cmdFlushSlots(x *engine.Ctx, c *Cluster) {
	if x.E.DB(0).Len() != 0 {
		x.W.Error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.")
		return
	}
	c.st.DelNodeSlots(c.st.Myself)
	c.st.Todo |= clusterstate.TodoUpdateState | clusterstate.TodoSaveConfig
	x.W.OK()
}

func cmdForget(x *engine.Ctx, c *Cluster) {
	n := c.lookup(x, x.Args[2], "ERR Unknown node ")
	if n == nil {
		return
	}
	me := c.st.Myself
	switch {
	case n == me:
		x.W.Error("ERR I tried hard but I can't forget myself...")
		return
	case me.IsReplica() && me.Master() == n:
		x.W.Error("ERR Can't forget my master!")
		return
	}
	c.st.BlacklistAdd(n.Name(), c.now())
	c.forgetNode(n)
	c.st.Todo |= clusterstate.TodoUpdateState | clusterstate.TodoSaveConfig
	x.W.OK()
}

func cmdInfo(x *engine.Ctx, c *Cluster) { x.W.Verbatim("txt", c.st.Info()) }

func cmdKeySlot(x *engine.Ctx, _ *Cluster) { x.W.Int(int64(keyslot.Slot(x.Args[2]))) }

func cmdLinks(x *engine.Ctx, c *Cluster) {
	links := c.linksInfo()
	x.W.Array(len(links))
	for _, l := range links {
		x.W.Map(6)
		x.W.BulkString("direction")
		x.W.BulkString(l.Direction)
		x.W.BulkString("node")
		x.W.BulkString(l.Node)
		x.W.BulkString("create-time")
		x.W.Int(l.CreateTime)
		x.W.BulkString("events")
		x.W.BulkString(l.Events)
		x.W.BulkString("send-buffer-allocated")
		x.W.Int(l.SendBufferAllocated)
		x.W.BulkString("send-buffer-used")
		x.W.Int(l.SendBufferUsed)
	}
}

func cmdMeet(x *engine.Ctx, c *Cluster) {
	if len(x.Args) > 5 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	port, ok := num.ParseInt(x.Args[3])
	if !ok {
		x.W.Error("ERR Invalid TCP base port specified: " + string(x.Args[3]))
		return
	}
	cport := port + clusterstate.PortIncr
	if len(x.Args) == 5 {
		if cport, ok = num.ParseInt(x.Args[4]); !ok {
			x.W.Error("ERR Invalid TCP bus port specified: " + string(x.Args[4]))
			return
		}
	}
	_, err := c.st.StartHandshake(string(x.Args[2]), int(port), int(cport), c.now())
	if err == clusterstate.ErrInvalidAddress {
		x.W.Error("ERR Invalid node address specified: " + string(x.Args[2]) + ":" + string(x.Args[3]))
		return
	}
	x.W.OK()
}

func cmdMyID(x *engine.Ctx, c *Cluster) { x.W.BulkString(c.st.Myself.ID()) }

func cmdNodes(x *engine.Ctx, c *Cluster) { x.W.Verbatim("txt", c.st.ClusterNodes(false)) }

func cmdReplicas(x *engine.Ctx, c *Cluster) {
	n := c.lookup(x, x.Args[2], "ERR Unknown node ")
	if n == nil {
		return
	}
	if n.IsReplica() {
		x.W.Error("ERR The specified node is not a master")
		return
	}
	reps := n.Replicas()
	x.W.Array(len(reps))
	for _, r := range reps {
		x.W.BulkString(c.st.NodeDescription(r, false))
	}
}

func cmdReplicate(x *engine.Ctx, c *Cluster) {
	n := c.lookup(x, x.Args[2], "ERR Unknown node ")
	if n == nil {
		return
	}
	me := c.st.Myself
	switch {
	case n == me:
		x.W.Error("ERR Can't replicate myself")
		return
	case n.IsReplica():
		x.W.Error("ERR I can only replicate a master, not a replica.")
		return
	case me.IsMaster() && (me.NumSlots() != 0 || x.E.DB(0).Len() != 0):
		x.W.Error("ERR To set a master the node must be empty and without assigned slots.")
		return
	}
	c.setMaster(n)
	x.W.OK()
}

func cmdReset(x *engine.Ctx, c *Cluster) {
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	hard := false
	if len(x.Args) == 3 {
		switch strings.ToLower(string(x.Args[2])) {
		case "hard":
			hard = true
		case "soft":
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	if c.st.Myself.IsMaster() && x.DB.Len() != 0 {
		x.W.Error("ERR CLUSTER RESET can't be called with master nodes containing keys")
		return
	}
	c.reset(hard)
	x.W.OK()
}

func cmdSaveConfig(x *engine.Ctx, c *Cluster) {
	if err := c.cf.Save(c.st, true); err != nil {
		msg := err.Error()
		var errno syscall.Errno
		if asErrno(err, &errno) {
			msg = errno.Error()
		}
		x.W.Error("ERR error saving the cluster node config: " + msg)
		return
	}
	x.W.OK()
}

func cmdSetConfigEpoch(x *engine.Ctx, c *Cluster) {
	epoch, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	st := c.st
	switch {
	case epoch < 0:
		x.W.Error(fmt.Sprintf("ERR Invalid config epoch specified: %d", epoch))
	case st.NumNodes() > 1:
		x.W.Error("ERR The user can assign a config epoch only when the node does not know any other node.")
	case st.Myself.ConfigEpoch != 0:
		x.W.Error("ERR Node config epoch is already non-zero")
	default:
		st.Myself.ConfigEpoch = uint64(epoch)
		c.log.Warn(fmt.Sprintf("configEpoch set to %d via CLUSTER SET-CONFIG-EPOCH", epoch))
		if st.CurrentEpoch < uint64(epoch) {
			st.CurrentEpoch = uint64(epoch)
		}
		st.Todo |= clusterstate.TodoUpdateState | clusterstate.TodoSaveConfig
		x.W.OK()
	}
}

func cmdSetSlot(x *engine.Ctx, c *Cluster) {
	st := c.st
	me := st.Myself
	if me.IsReplica() {
		x.W.Error("ERR Please use SETSLOT only with masters.")
		return
	}
	slot, ok := getSlot(x, x.Args[2])
	if !ok {
		return
	}
	action := strings.ToLower(string(x.Args[3]))
	switch {
	case action == "migrating" && len(x.Args) == 5:
		if st.SlotOwner(slot) != me {
			x.W.Error(fmt.Sprintf("ERR I'm not the owner of hash slot %d", slot))
			return
		}
		n := c.lookup(x, x.Args[4], "ERR I don't know about node ")
		if n == nil {
			return
		}
		if n.IsReplica() {
			x.W.Error("ERR Target node is not a master")
			return
		}
		st.SetMigrating(slot, n)
	case action == "importing" && len(x.Args) == 5:
		if st.SlotOwner(slot) == me {
			x.W.Error(fmt.Sprintf("ERR I'm already the owner of hash slot %d", slot))
			return
		}
		n := c.lookup(x, x.Args[4], "ERR I don't know about node ")
		if n == nil {
			return
		}
		if n.IsReplica() {
			x.W.Error("ERR Target node is not a master")
			return
		}
		st.SetImporting(slot, n)
	case action == "stable" && len(x.Args) == 4:
		st.SetImporting(slot, nil)
		st.SetMigrating(slot, nil)
	case action == "node" && len(x.Args) == 5:
		n := c.lookup(x, x.Args[4], "ERR Unknown node ")
		if n == nil {
			return
		}
		if n.IsReplica() {
			x.W.Error("ERR Target node is not a master")
			return
		}
		keys := x.E.SlotIndex().Count(slot)
		if st.SlotOwner(slot) == me && n != me && keys != 0 {
			x.W.Error(fmt.Sprintf("ERR Can't assign hashslot %d to a different node while I still hold keys for this hash slot.", slot))
			return
		}
		if keys == 0 && st.MigratingTo(slot) != nil {
			st.SetMigrating(slot, nil)
		}
		wasMine := st.SlotOwner(slot) == me
		st.DelSlot(slot)
		st.AddSlot(n, slot)
		if wasMine && n != me && me.NumSlots() == 0 && c.e.Cfg.Stored("cluster-allow-replica-migration") == "yes" {
			c.log.Warn(fmt.Sprintf("Configuration change detected. Reconfiguring myself as a replica of %s", n.ID()))
			c.setMaster(n)
			st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState | clusterstate.TodoFsyncConfig
		}
		if n == me && st.ImportingFrom(slot) != nil {
			// A slot migrated by hand: a new epoch, so the cluster takes
			// this node's claim over the old owner's.
			if st.BumpConfigEpochWithoutConsensus() {
				c.log.Warn(fmt.Sprintf("configEpoch updated after importing slot %d", slot))
			}
			st.SetImporting(slot, nil)
			c.broadcastPong(true)
		}
	default:
		x.W.Error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP")
		return
	}
	st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
	x.W.OK()
}

func cmdShards(x *engine.Ctx, c *Cluster) {
	shards := c.st.Shards(c.replyOptions())
	x.W.Array(len(shards))
	for _, sh := range shards {
		x.W.Map(2)
		x.W.BulkString("slots")
		x.W.Array(len(sh.Slots))
		for _, s := range sh.Slots {
			x.W.Int(int64(s))
		}
		x.W.BulkString("nodes")
		x.W.Array(len(sh.Nodes))
		for _, n := range sh.Nodes {
			fields := 6 // id, ip, endpoint, role, replication-offset, health
			if n.Port != 0 {
				fields++
			}
			if n.TLSPort != 0 {
				fields++
			}
			if n.Hostname != "" {
				fields++
			}
			x.W.Map(fields)
			x.W.BulkString("id")
			x.W.BulkString(n.ID)
			if n.Port != 0 {
				x.W.BulkString("port")
				x.W.Int(int64(n.Port))
			}
			if n.TLSPort != 0 {
				x.W.BulkString("tls-port")
				x.W.Int(int64(n.TLSPort))
			}
			x.W.BulkString("ip")
			x.W.BulkString(n.IP)
			x.W.BulkString("endpoint")
			x.W.BulkString(n.Endpoint)
			if n.Hostname != "" {
				x.W.BulkString("hostname")
				x.W.BulkString(n.Hostname)
			}
			x.W.BulkString("role")
			x.W.BulkString(n.Role)
			x.W.BulkString("replication-offset")
			x.W.Int(n.ReplOffset)
			x.W.BulkString("health")
			x.W.BulkString(n.Health)
		}
	}
}

func cmdSlots(x *engine.Ctx, c *Cluster) {
	ranges := c.st.Slots(c.replyOptions())
	x.W.Array(len(ranges))
	for _, r := range ranges {
		x.W.Array(2 + len(r.Nodes))
		x.W.Int(int64(r.Start))
		x.W.Int(int64(r.End))
		for _, n := range r.Nodes {
			x.W.Array(4)
			if n.NullEndpoint {
				x.W.Null()
			} else {
				x.W.BulkString(n.Endpoint)
			}
			x.W.Int(int64(n.Port))
			x.W.BulkString(n.ID)
			x.W.Map(len(n.Meta))
			for _, f := range n.Meta {
				x.W.BulkString(f.Name)
				x.W.BulkString(f.Value)
			}
		}
	}
}

// replyOptions is what CLUSTER SLOTS and SHARDS need beyond the state.
func (c *Cluster) replyOptions() clusterstate.ReplyOptions {
	o := clusterstate.ReplyOptions{MyReplOffset: c.replOffset()}
	switch c.e.Cfg.Stored("cluster-preferred-endpoint-type") {
	case "hostname":
		o.Endpoint = clusterstate.EndpointHostname
	case "unknown-endpoint":
		o.Endpoint = clusterstate.EndpointUnknown
	}
	return o
}

// asErrno finds the errno under err, for strerror's text.
func asErrno(err error, errno *syscall.Errno) bool { return errors.As(err, errno) }
