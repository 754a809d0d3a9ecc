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
	DB     int
	Args   [][]byte
	Target Target // the readers it is for
}

// Target is which readers an operation goes to: Redis's PROPAGATE_AOF and
// PROPAGATE_REPL (the values of a script's redis.set_repl).
type Target uint8

const (
	ToAOF      Target = 1
	ToReplicas Target = 2
	ToAll             = ToAOF | ToReplicas
)

// Reader consumes the stream. Feed is called under the engine lock for
// every operation meant for it, in order; op's slices are valid only
// during the call. A reader is a replica's unless it says otherwise
// (TargetReader).
type Reader interface {
	Feed(op Op)
}

// BatchReader is a Reader told when a flush's operations are all fed, so
// it can hand them on at once (a replica link writes one command's effects
// in one piece).
type BatchReader interface {
	Reader
	Flushed()
}

// TargetReader is a reader that tells what it is (the AOF: ToAOF).
type TargetReader interface {
	Reader
	Target() Target
}

func readerTarget(r Reader) Target {
	if t, ok := r.(TargetReader); ok {
		return t.Target()
	}
	return ToReplicas
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
	off     Target // targets Add leaves out (SetTarget)
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

// Mute takes every reader off the stream until the returned function puts
// them back: a replay of the AOF (DEBUG LOADAOF) runs commands that must
// reach neither the AOF they come from nor the replicas, as Redis's
// loading client calls the commands' procs without propagating.
func (s *Stream) Mute() (restore func()) {
	readers := s.readers
	s.readers = nil
	return func() { s.readers = readers }
}

// Pending is the number of operations added since the last Flush.
func (s *Stream) Pending() int { return len(s.ops) }

// Add records one operation; args are copied, so the caller may reuse
// them at once.
func (s *Stream) Add(db int, args ...[]byte) { s.AddTo(ToAll, db, args...) }

// AddTo records an operation for the readers of t only (less those
// SetTarget turned off).
func (s *Stream) AddTo(t Target, db int, args ...[]byte) {
	t &^= s.off
	if len(s.readers) == 0 || t == 0 {
		return
	}
	start := len(s.argv)
	for _, a := range args {
		off := len(s.arena)
		s.arena = append(s.arena, a...)
		s.argv = append(s.argv, s.arena[off:len(s.arena):len(s.arena)])
	}
	s.ops = append(s.ops, Op{DB: db, Args: s.argv[start:len(s.argv):len(s.argv)], Target: t})
}

// SetTarget limits what Add and AddTo record to the readers of t (a
// script's redis.set_repl) and returns the previous setting, to restore.
func (s *Stream) SetTarget(t Target) (prev Target) {
	prev = ToAll &^ s.off
	s.off = ToAll &^ t
	return prev
}

// Flush feeds the pending operations to the readers they are for and
// forgets them. With wrap, two or more operations that go to some reader
// go inside MULTI ... EXEC, for every reader (MULTI in the first one's
// database, EXEC in the last one's, so no SELECT comes between them that
// Redis would not send).
func (s *Stream) Flush(wrap bool) {
	if len(s.ops) == 0 {
		return
	}
	// The arena may have moved as it grew: the ops' slices still point at
	// the bytes they were made from, which stay alive until the reset.
	// Redis counts the operations that go anywhere and wraps them for
	// every reader (MULTI and EXEC are for all targets).
	var to Target
	for _, r := range s.readers {
		to |= readerTarget(r)
	}
	first, last, n := -1, -1, 0
	for i, op := range s.ops {
		if op.Target&to != 0 {
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
	}
	wrap = wrap && n > 1
	for _, r := range s.readers {
		rt := readerTarget(r)
		if wrap {
			r.Feed(Op{DB: s.ops[first].DB, Args: multi, Target: ToAll})
		}
		for _, op := range s.ops {
			if op.Target&rt != 0 {
				r.Feed(op)
			}
		}
		if wrap {
			r.Feed(Op{DB: s.ops[last].DB, Args: exec, Target: ToAll})
		}
		if b, ok := r.(BatchReader); ok {
			b.Flushed()
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
