// Package propagate is limitkv's write stream: what Redis calls
// propagation (server.c alsoPropagate / propagatePendingCommands). Every
// write is recorded once, as the commands that reproduce its effect, and
// handed to the stream's readers: the AOF now, replicas later.
//
// The engine collects the operations of one top-level command (a command
// run by a client, an EXEC with its queue, a script with the commands it
// called, or one key expired or evicted by the server itself) with Add,
// then hands them over with Flush. Flush wraps two or more operations in
// MULTI/EXEC, as Redis does, so that a reader applies them atomically.
// Readers are fed under the engine lock, in the order the writes happened;
// each keeps its own selected database (Encoder), as the AOF and every
// replica link do in Redis.
package propagate

import "strconv"

// Op is one command of the stream, to run in database DB.
type Op struct {
	DB   int
	Args [][]byte
	// ReplOnly: for replicas, not the AOF (Redis's PROPAGATE_REPL target,
	// PUBLISH's).
	ReplOnly bool
}

// Reader consumes the stream. Feed is called under the engine lock for
// every operation, in order; op's slices are valid only during the call.
type Reader interface {
	Feed(op Op)
}

var (
	multi = [][]byte{[]byte("MULTI")}
	exec  = [][]byte{[]byte("EXEC")}
)

// Stream collects the pending operations and feeds them to the readers.
// It is not safe for concurrent use: the engine lock guards it.
type Stream struct {
	ops     []Op
	arena   []byte
	argv    [][]byte
	readers []Reader
}

// Active reports whether anyone reads the stream; the engine skips the
// work of recording when nobody does.
func (s *Stream) Active() bool { return len(s.readers) > 0 }

// Attach adds a reader.
func (s *Stream) Attach(r Reader) { s.readers = append(s.readers, r) }

// Detach removes a reader.
func (s *Stream) Detach(r Reader) {
	for i, o := range s.readers {
		if o == r {
			s.readers = append(s.readers[:i], s.readers[i+1:]...)
			return
		}
	}
}

// Pending is the number of operations added since the last Flush.
func (s *Stream) Pending() int { return len(s.ops) }

// Add records one operation; args are copied, so the caller may reuse
// them at once.
func (s *Stream) Add(db int, args ...[]byte) { s.add(db, false, args) }

// AddReplOnly records an operation for the replicas only.
func (s *Stream) AddReplOnly(db int, args ...[]byte) { s.add(db, true, args) }

func (s *Stream) add(db int, replOnly bool, args [][]byte) {
	if len(s.readers) == 0 {
		return
	}
	start := len(s.argv)
	for _, a := range args {
		off := len(s.arena)
		s.arena = append(s.arena, a...)
		s.argv = append(s.argv, s.arena[off:len(s.arena):len(s.arena)])
	}
	s.ops = append(s.ops, Op{DB: db, Args: s.argv[start:len(s.argv):len(s.argv)], ReplOnly: replOnly})
}

// Flush feeds the pending operations to the readers and forgets them.
// With wrap, two or more operations go inside MULTI ... EXEC (MULTI in the
// first one's database, EXEC in the last one's, so no SELECT comes between
// them that Redis would not send).
func (s *Stream) Flush(wrap bool) {
	if len(s.ops) == 0 {
		return
	}
	// The arena may have moved as it grew: the ops' slices still point at
	// the bytes they were made from, which stay alive until the reset.
	wrap = wrap && len(s.ops) > 1
	for _, r := range s.readers {
		if wrap {
			r.Feed(Op{DB: s.ops[0].DB, Args: multi})
		}
		for _, op := range s.ops {
			r.Feed(op)
		}
		if wrap {
			r.Feed(Op{DB: s.ops[len(s.ops)-1].DB, Args: exec})
		}
	}
	s.Discard()
}

// Discard forgets the pending operations without feeding them.
func (s *Stream) Discard() {
	clear(s.argv) // no reference to an old arena outlives its round
	s.ops, s.arena, s.argv = s.ops[:0], s.arena[:0], s.argv[:0]
	if cap(s.arena) > 1<<20 {
		s.arena = nil // one huge write does not pin its buffer for good
	}
}

// AppendCommand appends args as a RESP array of bulk strings, the form
// both the AOF and the replication link carry.
func AppendCommand(dst []byte, args [][]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// Encoder turns operations into RESP for one reader, inserting SELECT
// where the database changes (Redis's aof_selected_db and slaveseldb).
type Encoder struct {
	db int // the reader's selected database; -1: none yet
}

// NewEncoder returns an encoder whose reader has no database selected, so
// the first operation is preceded by SELECT.
func NewEncoder() Encoder { return Encoder{db: -1} }

// Reset forgets the selected database (a new AOF file, a new link).
func (e *Encoder) Reset() { e.db = -1 }

// Append appends op, after a SELECT if op is for another database.
func (e *Encoder) Append(dst []byte, op Op) []byte {
	if op.DB != e.db {
		var n [20]byte
		dst = AppendCommand(dst, [][]byte{[]byte("SELECT"), strconv.AppendInt(n[:0], int64(op.DB), 10)})
		e.db = op.DB
	}
	return AppendCommand(dst, op.Args)
}

// DB is the reader's selected database, -1 if none yet.
func (e *Encoder) DB() int { return e.db }
