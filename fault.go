package limitkv

import (
	"strings"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// Fault makes the server misbehave for commands of its clients, to test
// what an application does when its store fails: fail open or fail closed
// when commands error, stall past the client's timeout, or lose the
// connection.
type Fault struct {
	// Command limits the fault to one command, by name, any case
	// ("EVALSHA", "rl.check"); "" matches every command.
	Command string
	// Times is how many matching commands the fault hits before it goes
	// away; 0: every one until the fault is cleared.
	Times int
	// Stall holds the command this long before it runs (or fails). As with
	// Redis's DEBUG SLEEP, the whole server waits: every client, and
	// direct access.
	Stall time.Duration
	// Err, if set, is the error the command answers instead of running,
	// in Redis's form ("READONLY You can't write against a read only
	// replica.", "ERR injected").
	Err string
	// Drop closes the client's connection instead of running the command:
	// the client sees EOF with no reply.
	Drop bool
}

type activeFault struct {
	Fault
	left int // commands left to hit; -1: no limit
}

type faultList struct {
	mu   sync.Mutex
	list []*activeFault
}

// InjectFault adds a fault; faults are tried in the order they were added,
// and a command meets at most one. The returned function removes it.
func (s *Server) InjectFault(f Fault) (remove func()) {
	af := &activeFault{Fault: f, left: f.Times}
	if f.Times <= 0 {
		af.left = -1
	}
	s.faults.mu.Lock()
	s.faults.list = append(s.faults.list, af)
	s.faults.mu.Unlock()
	return func() {
		s.faults.mu.Lock()
		defer s.faults.mu.Unlock()
		for i, x := range s.faults.list {
			if x == af {
				s.faults.list = append(s.faults.list[:i], s.faults.list[i+1:]...)
				return
			}
		}
	}
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	s.faults.list = nil
	s.faults.mu.Unlock()
}

// take finds the fault for a command and counts it.
func (l *faultList) take(name string) *Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, af := range l.list {
		if af.Command != "" && !strings.EqualFold(af.Command, name) {
			continue
		}
		if af.left > 0 {
			af.left--
			if af.left == 0 {
				l.list = append(l.list[:i:i], l.list[i+1:]...)
			}
		}
		f := af.Fault
		return &f
	}
	return nil
}

// fault is the engine's hook, called with its lock held.
func (s *Server) fault(c *engine.Client, args [][]byte, w *resp.Writer) (engine.Outcome, bool) {
	if c == s.direct || len(args) == 0 {
		return engine.Continue, false
	}
	f := s.faults.take(string(args[0]))
	if f == nil {
		return engine.Continue, false
	}
	if f.Stall > 0 {
		time.Sleep(f.Stall)
	}
	switch {
	case f.Drop:
		c.CloseAfterReply = true
		return engine.Close, true
	case f.Err != "":
		w.Error(f.Err)
		return engine.Continue, true
	}
	return engine.Continue, false
}
