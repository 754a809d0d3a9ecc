package acl

import (
	"strings"

	"github.com/limitkv/limitkv/internal/glob"
)

// Result is a permission check's outcome, valued as Redis's ACL_* codes:
// of several selectors' refusals the highest is reported.
type Result int

const (
	OK            Result = 0
	DeniedCommand Result = 1
	DeniedKey     Result = 2
	DeniedAuth    Result = 3
	DeniedChannel Result = 4
)

// KeyRef is a key argument and the access the command makes to it.
type KeyRef struct {
	Pos  int
	Need Perm
}

// ChanRef is a channel argument a command publishes or subscribes to;
// Pattern for PSUBSCRIBE's, which match ACL patterns literally.
type ChanRef struct {
	Pos     int
	Pattern bool
}

// Request is one command to check. Keys and Channels are asked for only
// if a selector restricts them, at most once each.
type Request struct {
	Cmd      *Command
	Args     [][]byte
	HasKeys  bool
	Keys     func() []KeyRef
	Channels func() []ChanRef // nil: the command names no channel

	keys     []KeyRef
	keysDone bool
}

func (r *Request) keyRefs() []KeyRef {
	if !r.keysDone {
		r.keysDone = true
		if r.Keys != nil {
			r.keys = r.Keys()
		}
	}
	return r.keys
}

// match is Redis's glob match, case-sensitive, as ACLSetSelector's
// patterns are.
func match(pattern, s []byte) bool { return glob.Match(pattern, s, false) }

func (s *selector) checkKey(key []byte, need Perm) bool {
	if s.flags&selAllKeys != 0 {
		return true
	}
	for _, p := range s.patterns {
		if p.Perm&need == need && match(p.b, key) {
			return true
		}
	}
	return false
}

func channelAllowed(pats []string, ch []byte, pattern bool) bool {
	for _, p := range pats {
		if pattern && p == string(ch) || !pattern && match([]byte(p), ch) {
			return true
		}
	}
	return false
}

// check is ACLSelectorCheckCmd.
func (s *selector) check(r *Request) (Result, int) {
	c := r.Cmd
	if s.flags&selAllCommands == 0 && !c.NoAuth && !s.bit(c.ID) {
		args := s.firstArgs[c.ID]
		if len(r.Args) < 2 || args == nil {
			return DeniedCommand, 0
		}
		idx := 1
		if c.Parent != nil {
			idx = 2
		}
		found := false
		for _, a := range args {
			if idx < len(r.Args) && strings.EqualFold(string(r.Args[idx]), a) {
				found = true
				break
			}
		}
		if !found {
			return DeniedCommand, 0
		}
	}
	if s.flags&selAllKeys == 0 && r.HasKeys {
		for _, k := range r.keyRefs() {
			if !s.checkKey(r.Args[k.Pos], k.Need) {
				return DeniedKey, k.Pos
			}
		}
	}
	if s.flags&selAllChannels == 0 && r.Channels != nil {
		for _, ch := range r.Channels() {
			if !channelAllowed(s.channels, r.Args[ch.Pos], ch.Pattern) {
				return DeniedChannel, ch.Pos
			}
		}
	}
	return OK, 0
}

// Check is ACLCheckAllUserCommandPerm: OK if any selector allows the
// command; otherwise the refusal to report and, for a key or channel, its
// argument position.
func (u *User) Check(r *Request) (Result, int) {
	if u.Unrestricted {
		return OK, 0
	}
	relevant, last := DeniedCommand, 0
	for _, s := range u.sels {
		res, pos := s.check(r)
		if res == OK {
			return OK, 0
		}
		if res > relevant || res == relevant && pos > last {
			relevant, last = res, pos
		}
	}
	return relevant, last
}

// CanChannel reports whether the user may use a channel (or, with pattern,
// subscribe to a pattern), for the connections a rule change must drop.
func (u *User) CanChannel(ch string, pattern bool) bool {
	if u.hasAllChannels() {
		return true
	}
	for _, s := range u.sels {
		if channelAllowed(s.channels, []byte(ch), pattern) {
			return true
		}
	}
	return false
}
