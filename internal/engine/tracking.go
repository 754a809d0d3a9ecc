package engine

import (
	"github.com/limitkv/limitkv/internal/keyspec"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
)

// Client-side caching, as Redis's tracking.c: CLIENT TRACKING, CACHING,
// GETREDIR, TRACKINGINFO, and the invalidation messages.
//
// A tracking client's reads are remembered in a table from key name to the
// ids of the clients that may cache it (keys are names only: the same key
// in two databases is one entry, as in Redis). A modification of a tracked
// key sends every such client an invalidation and forgets the entry. In
// BCAST mode nothing is remembered: modified keys matching a prefix are
// collected and sent to the prefix's clients when the batch of commands
// that modified them releases the executor lock (Engine.Unlock).
//
// A message for the client whose command is running waits until its reply
// is written (Redis's tracking_pending_keys), so pushes never land inside a
// reply (an EXEC's array, a script's).

var (
	trackingChannel = "__redis__:invalidate"
	respNull2       = []byte("$-1\r\n")
	respNull3       = []byte("_\r\n")
)

// clientTracking is one client's side (Redis's CLIENT_TRACKING_* flags).
type clientTracking struct {
	on, bcast, optin, optout, noloop bool
	caching                          bool // CLIENT CACHING given for the next command
	broken                           bool // the redirect client went away
	redir                            int64
	prefixes                         map[string]struct{}
}

// bcastState is a prefix's: the keys modified since the last broadcast,
// each with the client that modified it last (nil: the server), and the
// clients listening.
type bcastState struct {
	keys    map[string]*Client
	clients map[*Client]struct{}
}

// trackingState is the server's side.
type trackingState struct {
	Clients  int                           // clients with tracking on
	table    map[string]map[int64]struct{} // key -> ids of clients that may cache it; nil until tracking is first enabled
	items    int                           // ids across the table
	prefixes map[string]*bcastState
	dirty    bool // some prefix has keys to broadcast

	Depth      int     // call() nesting
	Current    *Client // the client whose command runs (Redis's current_client)
	caller     *Ctx    // the innermost command not run by a script: a script's reads remember its keys
	Pending    []pendingInvalidation
	limitRuns  int                            // Redis's timeout_counter of trackingLimitUsedSlots
	specs      map[*Command][]keyspec.KeySpec // key specs of the commands reads were remembered for
	keyScratch []int                          // key positions, reused from read to read
}

type pendingInvalidation struct {
	key  string
	null bool
}

// trackFrame is what trackingEnter saves for trackingLeave.
type trackFrame struct {
	outer  bool
	caller *Ctx
}

// trackingEnter runs at the start of every call(): the outermost call
// makes its client the current one and, as Redis's processCommand, keeps
// the tracking table within tracking-table-max-keys.
func (e *Engine) trackingEnter(x *Ctx) trackFrame {
	t := &e.Trk
	f := trackFrame{caller: t.caller}
	if t.Depth == 0 {
		f.outer = true
		t.Current = x.C
		if t.Clients > 0 {
			e.trackingLimit()
		}
	}
	if !x.C.InScript {
		t.caller = x
	}
	t.Depth++
	return f
}

// trackingLeave runs when call() returns: it remembers the keys a read
// served to a tracking client and, after the outermost command, sends the
// messages that waited for its reply.
func (e *Engine) trackingLeave(x *Ctx, f trackFrame) {
	t := &e.Trk
	t.Depth--
	if t.Clients > 0 && x.Cmd.Flags&FlagReadOnly != 0 {
		e.trackingRemember(x, t.caller)
	}
	t.caller = f.caller
	if !f.outer {
		return
	}
	c := t.Current
	if c.trk.caching && c.Multi == nil && !strings.HasPrefix(x.Cmd.Name, "client|") {
		// CLIENT CACHING lasts for the next command (or transaction).
		c.trk.caching = false
	}
	if len(t.Pending) > 0 {
		pending := t.Pending
		t.Pending = nil
		for _, p := range pending {
			if e.Clients[c.ID] != c {
				break
			}
			if p.null {
				e.sendTrackingNull(c)
			} else {
				e.sendTrackingKeys(c, KeyArray([]string{p.key}))
			}
		}
	}
	t.Current = nil
}

// trackingRejected: a command refused before it ran also ends a CLIENT
// CACHING (Redis's resetClient runs after it), unless inside MULTI or the
// command was a known CLIENT subcommand.
func (e *Engine) trackingRejected(x *Ctx) {
	c := x.C
	if !c.trk.caching || c.Multi != nil {
		return
	}
	if CEqualFold(x.Args[0], "client") && len(x.Args) >= 2 && LookupSub(Lookup([]byte("client")), x.Args[1]) != nil {
		return
	}
	c.trk.caching = false
}

// trackingBroadcastPending sends the BCAST invalidations collected since
// the last ones, if any: when a connection's batch releases the lock
// (Redis's beforeSleep, once per event-loop turn).
func (e *Engine) trackingBroadcastPending() {
	if e.Trk.dirty {
		e.trackingBroadcast()
	}
}

// trackingCron is the periodic part (Redis's serverCron and beforeSleep):
// the table limit, and broadcasts of keys the expiry cycle removed.
func (e *Engine) TrackingCron() {
	if e.Trk.Clients == 0 {
		return
	}
	e.trackingLimit()
	e.trackingBroadcastPending()
}

// trackingRemember is Redis's trackingRememberKeys, after a read-only
// command x; caller is the command whose keys count (a script's, for the
// commands it calls).
func (e *Engine) trackingRemember(x, caller *Ctx) {
	switch x.Cmd.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	if !x.C.InScript || caller == nil {
		caller = x
	}
	c := caller.C
	tr := &c.trk
	if !tr.on || tr.bcast || (tr.optin && !tr.caching) || (tr.optout && tr.caching) {
		return
	}
	if caller.Cmd.Flags&FlagPubSub != 0 {
		return
	}
	t := &e.Trk
	t.keyScratch = e.commandKeys(caller.Cmd, caller.Args, t.keyScratch[:0])
	for _, pos := range t.keyScratch {
		ids := t.table[string(caller.Args[pos])] // no copy of the key for a lookup
		if ids == nil {
			ids = make(map[int64]struct{}, 1)
			t.table[string(caller.Args[pos])] = ids
		}
		if _, ok := ids[c.ID]; !ok {
			ids[c.ID] = struct{}{}
			t.items++
		}
	}
}

// commandKeys is Redis's getKeysFromCommand: the positions of cmd's keys
// in args, from the command's getkeys procedure where it has one (the
// key specs stand for those here), else its legacy key range.
func (e *Engine) commandKeys(cmd *Command, args [][]byte, out []int) []int {
	if cmd.Name == "sort_ro" || cmd.Name == "sort" {
		for _, k := range keyspec.SortGetKeys(args, cmd.Name == "sort_ro") {
			out = append(out, k.Pos)
		}
		return out
	}
	if cmd.Name == "migrate" {
		// Its first-key triple names the key argument, which is "" in the
		// KEYS form redis-cli's resharding sends: read as a key, it routed
		// the MIGRATE by slot 0 (a MOVED from a node not serving it).
		for _, k := range keyspec.MigrateGetKeys(args) {
			out = append(out, k.Pos)
		}
		return out
	}
	if cmd.FirstKey > 0 {
		last := cmd.LastKey
		if last < 0 {
			last += len(args)
		}
		for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
			out = append(out, i)
		}
		return out
	}
	t := &e.Trk
	specs, ok := t.specs[cmd]
	if !ok {
		if t.specs == nil {
			t.specs = make(map[*Command][]keyspec.KeySpec)
		}
		specs, _ = CommandKeySpecs(cmd)
		t.specs[cmd] = specs
	}
	keys, ok := keyspec.FromSpecs(specs, args)
	if !ok {
		return out
	}
	for _, k := range keys {
		out = append(out, k.Pos)
	}
	return out
}

// trackingInvalidate is signalModifiedKey's tracking part: key changed,
// by is the client that changed it (nil: the server).
func (e *Engine) trackingInvalidate(db int, key []byte, by *Client) {
	if e.Trk.table == nil {
		return // no client tracks: spare every write the key's copy
	}
	e.invalidateKey(string(key), by, true)
}

// invalidateKey is Redis's trackingInvalidateKey; bcast says whether BCAST
// clients hear of it too (not when the table limit forgets a key).
func (e *Engine) invalidateKey(key string, by *Client, bcast bool) {
	t := &e.Trk
	if t.table == nil {
		return
	}
	if bcast && len(t.prefixes) > 0 {
		for p, bs := range t.prefixes {
			if !strings.HasPrefix(key, p) {
				continue
			}
			bs.keys[key] = by
			t.dirty = true
		}
	}
	ids, ok := t.table[key]
	if !ok {
		return
	}
	delete(t.table, key)
	t.items -= len(ids)
	for _, id := range sortedIDs(ids) {
		target := e.Clients[id]
		if target == nil || !target.trk.on || target.trk.bcast {
			continue
		}
		if target.trk.noloop && target == t.Current {
			continue
		}
		if target == t.Current && t.Depth > 0 {
			t.Pending = append(t.Pending, pendingInvalidation{key: key})
			continue
		}
		e.sendTrackingKeys(target, KeyArray([]string{key}))
	}
}

func sortedIDs(ids map[int64]struct{}) []int64 {
	out := make([]int64, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// keyArray is the RESP array of keys an invalidation carries (an array in
// RESP3 too, as Redis writes it).
func KeyArray(keys []string) []byte {
	var w resp.Writer
	w.Array(len(keys))
	for _, k := range keys {
		w.BulkString(k)
	}
	return append([]byte(nil), w.Bytes()...)
}

// trackingFlushed is signalFlushedDb's tracking part
// (trackingInvalidateKeysOnFlush): every tracking client is told that all
// its keys are invalid with a null, and the table is emptied. Call before
// the flush removes the keys.
func (e *Engine) TrackingFlushed() {
	t := &e.Trk
	if t.table == nil {
		return
	}
	if t.Clients > 0 {
		ids := make([]int64, 0, t.Clients)
		for id, c := range e.Clients {
			if c.trk.on {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			c := e.Clients[id]
			if c == t.Current && t.Depth > 0 {
				t.Pending = append(t.Pending, pendingInvalidation{null: true})
			} else {
				e.sendTrackingNull(c)
			}
		}
	}
	t.table = make(map[string]map[int64]struct{})
	t.items = 0
}

// sendTrackingNull sends the null invalidation, in the tracking client's
// protocol (Redis writes shared.null[c->resp], whichever connection the
// message goes to).
func (e *Engine) sendTrackingNull(c *Client) {
	if c.Resp() == 3 {
		e.sendTrackingKeys(c, respNull3)
	} else {
		e.sendTrackingKeys(c, respNull2)
	}
}

// sendTrackingKeys is Redis's sendTrackingMessage: payload (an array of
// keys, or a null) goes to c as an invalidate push, or to its redirect
// client: a push in RESP3, a __redis__:invalidate message in RESP2 if it
// listens to anything. A RESP2 client without a redirect gets nothing.
func (e *Engine) sendTrackingKeys(c *Client, payload []byte) {
	target, redirected := c, false
	if id := c.trk.redir; id != 0 {
		r := e.Clients[id]
		if r == nil {
			c.trk.broken = true
			if c.Resp() == 3 {
				e.push(c, func(w *resp.Writer) {
					w.Push(2)
					w.BulkString("tracking-redir-broken")
					w.Int(id)
				})
			}
			return
		}
		target, redirected = r, true
	}
	switch {
	case target.Resp() == 3:
		e.push(target, func(w *resp.Writer) {
			w.Push(2)
			w.BulkString("invalidate")
			w.Raw(payload)
		})
	case redirected && target.InPubSub():
		e.push(target, func(w *resp.Writer) {
			w.Array(3)
			w.BulkString("message")
			w.BulkString(trackingChannel)
			w.Raw(payload)
		})
	}
}

// trackingBroadcast is Redis's trackingBroadcastInvalidationMessages: each
// prefix's modified keys, in key order, to each of its clients (a NOLOOP
// client without the keys it modified itself).
func (e *Engine) trackingBroadcast() {
	t := &e.Trk
	t.dirty = false
	if t.Clients == 0 {
		for _, bs := range t.prefixes {
			clear(bs.keys)
		}
		return
	}
	names := make([]string, 0, len(t.prefixes))
	for p, bs := range t.prefixes {
		if len(bs.keys) > 0 {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	for _, p := range names {
		bs := t.prefixes[p]
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		all := KeyArray(keys)
		clients := make([]*Client, 0, len(bs.clients))
		for c := range bs.clients {
			clients = append(clients, c)
		}
		slices.SortFunc(clients, func(a, b *Client) int { return int(a.ID - b.ID) })
		for _, c := range clients {
			if !c.trk.noloop {
				e.sendTrackingKeys(c, all)
				continue
			}
			own := keys[:0:0]
			for _, k := range keys {
				if bs.keys[k] != c {
					own = append(own, k)
				}
			}
			if len(own) > 0 {
				e.sendTrackingKeys(c, KeyArray(own))
			}
		}
		clear(bs.keys)
	}
}

// trackingLimit is Redis's trackingLimitUsedSlots: over
// tracking-table-max-keys, keys are forgotten at random (their clients
// are told, as if the keys had changed), with an effort that grows while
// the table stays over the limit.
func (e *Engine) trackingLimit() {
	t := &e.Trk
	maxKeys := int(e.Cfg.TrackingTableMaxKeys.Load())
	if t.table == nil || maxKeys == 0 {
		return
	}
	if len(t.table) <= maxKeys {
		t.limitRuns = 0
		return
	}
	effort := 100 * (t.limitRuns + 1)
	for k := range t.table { // map order: a random walk
		if effort == 0 {
			break
		}
		effort--
		e.invalidateKey(k, nil, false)
		if len(t.table) <= maxKeys {
			t.limitRuns = 0
			return
		}
	}
	t.limitRuns++
}

// enableTracking is Redis's enableTracking; the options were validated.
func (e *Engine) enableTracking(c *Client, redir int64, o trackingOpts) {
	t := &e.Trk
	tr := &c.trk
	if !tr.on {
		t.Clients++
	}
	tr.on = true
	tr.broken, tr.bcast, tr.optin, tr.optout, tr.noloop = false, false, false, false, false
	tr.redir = redir
	if t.table == nil {
		t.table = make(map[string]map[int64]struct{})
		t.prefixes = make(map[string]*bcastState)
	}
	if o.bcast {
		tr.bcast = true
		if len(o.prefixes) == 0 {
			e.bcastPrefix(c, "")
		}
		for _, p := range o.prefixes {
			e.bcastPrefix(c, p)
		}
	}
	tr.optin, tr.optout, tr.noloop = o.optin, o.optout, o.noloop
}

func (e *Engine) bcastPrefix(c *Client, p string) {
	bs := e.Trk.prefixes[p]
	if bs == nil {
		bs = &bcastState{keys: map[string]*Client{}, clients: map[*Client]struct{}{}}
		e.Trk.prefixes[p] = bs
	}
	if _, ok := bs.clients[c]; !ok {
		bs.clients[c] = struct{}{}
		if c.trk.prefixes == nil {
			c.trk.prefixes = map[string]struct{}{}
		}
		c.trk.prefixes[p] = struct{}{}
	}
}

// disableTracking is Redis's disableTracking: the client's entries in the
// table are left to be dropped lazily, as its id no longer tracks.
func (e *Engine) DisableTracking(c *Client) {
	tr := &c.trk
	if tr.bcast {
		for p := range tr.prefixes {
			if bs := e.Trk.prefixes[p]; bs != nil {
				delete(bs.clients, c)
				if len(bs.clients) == 0 {
					delete(e.Trk.prefixes, p)
				}
			}
		}
	}
	// Redis frees the prefix set only for BCAST clients; prefixes cannot
	// exist otherwise.
	tr.prefixes = nil
	if tr.on {
		e.Trk.Clients--
		*tr = clientTracking{redir: tr.redir}
	}
}

type trackingOpts struct {
	bcast, optin, optout, noloop bool
	prefixes                     []string
}

// cmdClientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], with Redis's checks in
// Redis's order: options first, then their compatibility.
func CmdClientTracking(x *Ctx) {
	c := x.C
	var o trackingOpts
	var redir int64
	args := x.Args
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case CEqualFold(args[j], "redirect") && more > 0:
			j++
			if redir != 0 {
				x.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			n, ok := num.ParseInt(args[j])
			if !ok {
				x.W.Error(ErrNotInt)
				return
			}
			redir = n
			if x.E.Clients[redir] == nil {
				x.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
		case CEqualFold(args[j], "bcast"):
			o.bcast = true
		case CEqualFold(args[j], "optin"):
			o.optin = true
		case CEqualFold(args[j], "optout"):
			o.optout = true
		case CEqualFold(args[j], "noloop"):
			o.noloop = true
		case CEqualFold(args[j], "prefix") && more > 0:
			j++
			o.prefixes = append(o.prefixes, string(args[j]))
		default:
			x.W.Error(ErrSyntax)
			return
		}
	}
	switch {
	case CEqualFold(args[2], "on"):
		tr := &c.trk
		switch {
		case !o.bcast && len(o.prefixes) > 0:
			x.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
		case tr.on && tr.bcast != o.bcast:
			x.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
		case o.bcast && (o.optin || o.optout):
			x.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		case o.optin && o.optout:
			x.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		case (o.optin && tr.optout) || (o.optout && tr.optin):
			x.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
		default:
			if o.bcast && !prefixesDisjoint(x, o.prefixes) {
				return
			}
			x.E.enableTracking(c, redir, o)
			x.W.OK()
		}
	case CEqualFold(args[2], "off"):
		x.E.DisableTracking(c)
		x.W.OK()
	default:
		x.W.Error(ErrSyntax)
	}
}

// prefixesDisjoint is Redis's checkPrefixCollisionsOrReply: no two
// prefixes, new or already registered, may both match one key. Redis
// names the prefixes with %s, so a NUL byte ends a name in the message.
// It reports whether to go on (see the quirk below).
func prefixesDisjoint(x *Ctx, ps []string) bool {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	cstr := func(s string) string {
		if i := strings.IndexByte(s, 0); i >= 0 {
			return s[:i]
		}
		return s
	}
	for i, p := range ps {
		existing := make([]string, 0, len(x.C.trk.prefixes))
		for q := range x.C.trk.prefixes {
			existing = append(existing, q)
		}
		slices.Sort(existing)
		for _, q := range existing {
			if overlap(q, p) {
				x.W.Error("ERR Prefix '" + cstr(p) + "' overlaps with an existing prefix '" + cstr(q) + "'. Prefixes for a single client must not overlap.")
				return false
			}
		}
		for _, q := range ps[i+1:] {
			if overlap(p, q) {
				x.W.Error("ERR Prefix '" + cstr(p) + "' overlaps with another provided prefix '" + cstr(q) + "'. Prefixes for a single client must not overlap.")
				// Redis 7.0 returns the index here, so past the first
				// prefix the "failure" counts as success: tracking is
				// enabled and OK follows the error (two replies).
				return i > 0
			}
		}
	}
	return true
}

func CmdClientCaching(x *Ctx) {
	tr := &x.C.trk
	if !tr.on {
		x.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case CEqualFold(x.Args[2], "yes"):
		if !tr.optin {
			x.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case CEqualFold(x.Args[2], "no"):
		if !tr.optout {
			x.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.W.Error(ErrSyntax)
		return
	}
	tr.caching = true
	x.W.OK()
}

// trackingRedir is the redirect CLIENT GETREDIR, TRACKINGINFO and the
// redir= field of CLIENT LIST show: -1 when tracking is off.
func (c *Client) trackingRedir() int64 {
	if !c.trk.on {
		return -1
	}
	return c.trk.redir
}

// trackingFlags are the t, R and B letters of CLIENT LIST's flags.
func (c *Client) trackingFlags(flags []byte) []byte {
	if c.trk.on {
		flags = append(flags, 't')
	}
	if c.trk.broken {
		flags = append(flags, 'R')
	}
	if c.trk.bcast {
		flags = append(flags, 'B')
	}
	return flags
}

func CmdClientGetRedir(x *Ctx) { x.W.Int(x.C.trackingRedir()) }

func CmdClientTrackingInfo(x *Ctx) {
	tr := &x.C.trk
	x.W.Map(3)
	x.W.BulkString("flags")
	var flags []string
	if tr.on {
		flags = append(flags, "on")
	} else {
		flags = append(flags, "off")
	}
	if tr.bcast {
		flags = append(flags, "bcast")
	}
	if tr.optin {
		flags = append(flags, "optin")
		if tr.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if tr.optout {
		flags = append(flags, "optout")
		if tr.caching {
			flags = append(flags, "caching-no")
		}
	}
	if tr.noloop {
		flags = append(flags, "noloop")
	}
	if tr.broken {
		flags = append(flags, "broken_redirect")
	}
	x.W.Set(len(flags))
	for _, f := range flags {
		x.W.BulkString(f)
	}
	x.W.BulkString("redirect")
	x.W.Int(x.C.trackingRedir())
	x.W.BulkString("prefixes")
	ps := make([]string, 0, len(tr.prefixes))
	for p := range tr.prefixes {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	x.W.Array(len(ps))
	for _, p := range ps {
		x.W.BulkString(p)
	}
}

// trackingInfo is INFO's tracking fields: tracking_clients (Clients) and
// tracking_total_keys, _items and _prefixes (Stats).
func (e *Engine) TrackingInfo() (clients, keys, items, prefixes int) {
	t := &e.Trk
	return t.Clients, len(t.table), t.items, len(t.prefixes)
}
