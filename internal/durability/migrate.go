package durability

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/propagate"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/rdb"
)

// MIGRATE, as Redis 7.0's migrateCommand: the keys are DUMPed and sent to
// the target as RESTORE commands over a connection the server keeps per
// host:port (and closes after 10 s unused), then deleted here unless COPY.
// Like Redis, the command holds the server while it talks to the target:
// every other client waits, for at most the timeout per operation.
// RESTORE-ASKING is RESTORE for a cluster's importing node; without a
// cluster it is plain RESTORE, as in Redis.
var migrateCommands = []*engine.Command{
	{Name: "migrate", Arity: -6, Flags: engine.FlagWrite, FirstKey: 3, LastKey: 3, Step: 1, Group: "generic", Handler: cmdMigrate},
	{Name: "restore-asking", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "server", Handler: cmdRestore},
}

// Redis's texts.
const (
	errMigrateKeysNotEmpty = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	errMigrateConnect      = "IOERR error or timeout connecting to the client"
	errMigrateWrite        = "IOERR error or timeout writing to target instance"
	errMigrateRead         = "IOERR error or timeout reading to target instance"
)

// migrateSocketTTL is MIGRATE_SOCKET_CACHE_TTL; migrateSocketMax is
// MIGRATE_SOCKET_CACHE_ITEMS.
const (
	migrateSocketTTL = 10 * time.Second
	migrateSocketMax = 64
)

func (d *Component) migrateCache() map[string]*migrateSocket {
	if d.migrate == nil {
		d.migrate = make(map[string]*migrateSocket)
	}
	return d.migrate
}

// migrateGetSocket is migrateGetSocket: the cached connection, or a new
// one (dropping a random one when the cache is full).
func (d *Component) migrateGetSocket(host, port []byte, timeout time.Duration) (*migrateSocket, bool) {
	e := d.e
	cache := d.migrateCache()
	name := string(host) + ":" + string(port)
	if cs := cache[name]; cs != nil {
		cs.idle.Reset(migrateSocketTTL)
		return cs, true
	}
	if len(cache) >= migrateSocketMax {
		for k := range cache { // map order is random enough
			d.migrateCloseSocket(k)
			break
		}
	}
	nc, err := net.DialTimeout("tcp", net.JoinHostPort(string(engine.Cstr(host)), strconv.Itoa(engine.Atoi(port))), timeout)
	if err != nil {
		// Redis's blocking connect only fails when the address does not
		// resolve; a refused or timed-out connection counts as made, and
		// the write that follows fails. A closed connection does that here.
		var dnsErr *net.DNSError
		var addrErr *net.AddrError
		if errors.As(err, &dnsErr) || errors.As(err, &addrErr) {
			return nil, false
		}
		c1, c2 := net.Pipe()
		c2.Close()
		nc = c1
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	cs := &migrateSocket{nc: nc, br: bufio.NewReader(nc), lastDB: -1}
	cs.idle = time.AfterFunc(migrateSocketTTL, func() {
		e.LockBare()
		defer e.UnlockBare()
		if d.migrate[name] == cs {
			d.migrateCloseSocket(name)
		}
	})
	cache[name] = cs
	return cs, true
}

func (d *Component) migrateCloseSocket(name string) {
	if cs := d.migrate[name]; cs != nil {
		cs.idle.Stop()
		cs.nc.Close()
		delete(d.migrate, name)
	}
}

// readLine is syncReadLine: one line without its CRLF, within timeout. An
// empty line is an error too (Redis tests the length for > 0).
func readLine(cs *migrateSocket, timeout time.Duration) (string, error) {
	cs.nc.SetReadDeadline(time.Now().Add(timeout))
	line, err := cs.br.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	s := string(line)
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	if len(s) > 1023 { // Redis reads into 1 KB buffers
		s = s[:1023]
	}
	if s == "" {
		return "", errors.New("empty reply line")
	}
	return s, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

func cmdMigrate(x *engine.Ctx) {
	d := Of(x.E)
	args := x.Args
	var copyOpt, replace bool
	var username, password []byte
	firstKey, numKeys := 3, 1
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case engine.CEqualFold(args[j], "copy"):
			copyOpt = true
		case engine.CEqualFold(args[j], "replace"):
			replace = true
		case engine.CEqualFold(args[j], "auth"):
			if more < 1 {
				x.W.Error(engine.ErrSyntax)
				return
			}
			j++
			password = args[j]
		case engine.CEqualFold(args[j], "auth2"):
			if more < 2 {
				x.W.Error(engine.ErrSyntax)
				return
			}
			username, password = args[j+1], args[j+2]
			j += 2
		case engine.CEqualFold(args[j], "keys"):
			if len(args[3]) != 0 {
				x.W.Error(errMigrateKeysNotEmpty)
				return
			}
			firstKey, numKeys = j+1, len(args)-j-1
			j = len(args)
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	timeoutMs, ok1 := num.ParseInt(args[5])
	if !ok1 {
		x.W.Error(engine.ErrNotInt)
		return
	}
	dbid, ok2 := num.ParseInt(args[4])
	if !ok2 {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if timeoutMs <= 0 {
		timeoutMs = 1000
	}
	timeout := time.Duration(timeoutMs) * time.Millisecond

	type item struct {
		key []byte
		ent *keyspace.Entry
	}
	var items []item
	for _, k := range args[firstKey : firstKey+numKeys] {
		if ent := x.Lookup(k); ent != nil {
			items = append(items, item{k, ent})
		}
	}
	if len(items) == 0 {
		x.W.Simple("NOKEY")
		return
	}

	e := x.E
	name := string(args[1]) + ":" + string(args[2])
	mayRetry := true
	for {
		cs, ok := d.migrateGetSocket(args[1], args[2], timeout)
		if !ok {
			x.W.Error(errMigrateConnect)
			return
		}
		var cmd []byte
		if password != nil {
			if username != nil {
				cmd = propagate.AppendCommand(cmd, [][]byte{[]byte("AUTH"), username, password})
			} else {
				cmd = propagate.AppendCommand(cmd, [][]byte{[]byte("AUTH"), password})
			}
		}
		sel := cs.lastDB != dbid
		if sel {
			cmd = propagate.AppendCommand(cmd, [][]byte{[]byte("SELECT"), strconv.AppendInt(nil, dbid, 10)})
		}
		var sent []item
		var conv ToRDB
		for _, it := range items {
			var ttl int64
			if exp := it.ent.Expiry(); exp != keyspace.NoExpiry {
				ttl = exp - e.NowMs()
				if ttl < 0 {
					continue
				}
				ttl = max(ttl, 1)
			}
			payload, err := rdb.EncodeDump(RDBValue(&conv, it.ent), x.E.Cfg.DumpOptions())
			if err != nil {
				x.W.Error(engine.ErrInternal)
				return
			}
			// The target of a slot's move imports it: a plain RESTORE
			// there is sent back with MOVED to this node.
			restoreCmd := "RESTORE"
			if e.Cluster != nil {
				restoreCmd = "RESTORE-ASKING"
			}
			restore := [][]byte{[]byte(restoreCmd), it.key, strconv.AppendInt(nil, ttl, 10), payload}
			if replace {
				restore = append(restore, []byte("REPLACE"))
			}
			cmd = propagate.AppendCommand(cmd, restore)
			sent = append(sent, it)
		}

		writeErr, sockErr := false, error(nil)
		for pos := 0; pos < len(cmd); {
			n := min(len(cmd)-pos, 64<<10)
			cs.nc.SetWriteDeadline(time.Now().Add(timeout))
			if _, err := cs.nc.Write(cmd[pos : pos+n]); err != nil {
				writeErr, sockErr = true, err
				break
			}
			pos += n
		}
		var authReply, selReply string
		if sockErr == nil && password != nil {
			authReply, sockErr = readLine(cs, timeout)
		}
		if sockErr == nil && sel {
			selReply, sockErr = readLine(cs, timeout)
		}
		if sockErr != nil {
			// socket_err before any RESTORE reply: reconnect once unless
			// it was a timeout.
			d.migrateCloseSocket(name)
			if !isTimeout(sockErr) && mayRetry {
				mayRetry = false
				continue
			}
			if writeErr {
				x.W.Error(errMigrateWrite)
			} else {
				x.W.Error(errMigrateRead)
			}
			return
		}

		targetErr := ""
		j := 0
		var readErr error
		deleted := int64(0)
		var migrated [][]byte
		for ; j < len(sent); j++ {
			line, err := readLine(cs, timeout)
			if err != nil {
				readErr = err
				break
			}
			var bad string
			switch {
			case password != nil && authReply[0] == '-':
				bad = authReply
			case sel && selReply[0] == '-':
				bad = selReply
			case line[0] == '-':
				bad = line
			}
			if bad != "" {
				if targetErr == "" {
					cs.lastDB = -1
					targetErr = "ERR Target instance replied with error: " + bad[1:]
				}
				continue
			}
			if !copyOpt {
				if x.DB.Delete(sent[j].key, x.Now) {
					deleted++
					// Propagated as DEL of the keys the target took.
					if len(migrated) == 0 {
						migrated = append(migrated, engine.ArgDel)
					}
					migrated = append(migrated, sent[j].key)
				}
			}
		}
		e.AddDirty(deleted)
		if deleted > 0 {
			x.Dirty()
			x.Rewrite(migrated...)
		}
		if targetErr == "" && readErr != nil && j == 0 && mayRetry && !isTimeout(readErr) {
			d.migrateCloseSocket(name)
			mayRetry = false
			continue
		}
		if readErr != nil {
			d.migrateCloseSocket(name)
			if targetErr == "" {
				x.W.Error(errMigrateRead)
				return
			}
		}
		if targetErr != "" {
			x.W.Error(targetErr)
			return
		}
		cs.lastDB = dbid
		x.W.OK()
		return
	}
}
