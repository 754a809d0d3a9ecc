package acl

import (
	"slices"
	"strings"
)

// Perm is what a key pattern grants, and what a key access needs.
type Perm uint8

const (
	PermRead  Perm = 1
	PermWrite Perm = 2
	PermAll        = PermRead | PermWrite
)

// KeyPattern is a ~pattern (PermAll), %R~ or %W~ rule.
type KeyPattern struct {
	Perm    Perm
	Pattern string
	b       []byte // Pattern, for Match
}

func (p KeyPattern) String() string {
	switch p.Perm {
	case PermRead:
		return "%R~" + p.Pattern
	case PermWrite:
		return "%W~" + p.Pattern
	}
	return "~" + p.Pattern
}

const (
	selRoot = 1 << iota
	selAllKeys
	selAllChannels
	selAllCommands
)

// selector is Redis's aclSelector: a set of commands, key and channel
// patterns. A user's first selector is its root one (the rules outside
// parentheses); a command is allowed if any selector allows it.
type selector struct {
	t     *Table
	flags uint8
	// bits has a bit per command id; future is Redis's reserved last bit,
	// set only by +@all, which tells whether rules start from +@all.
	bits      []uint64
	future    bool
	firstArgs map[int][]string // +cmd|arg for an otherwise denied command
	patterns  []KeyPattern
	channels  []string
}

func newSelector(t *Table, flags uint8) *selector {
	return &selector{t: t, flags: flags, bits: make([]uint64, (t.n+63)/64)}
}

func (s *selector) clone() *selector {
	d := *s
	d.bits = slices.Clone(s.bits)
	d.patterns = slices.Clone(s.patterns)
	d.channels = slices.Clone(s.channels)
	if s.firstArgs != nil {
		d.firstArgs = make(map[int][]string, len(s.firstArgs))
		for id, a := range s.firstArgs {
			d.firstArgs[id] = slices.Clone(a)
		}
	}
	return &d
}

func (s *selector) bit(id int) bool { return s.bits[id/64]&(1<<(id%64)) != 0 }

func (s *selector) setBit(id int, on bool) {
	if on {
		s.bits[id/64] |= 1 << (id % 64)
	} else {
		s.bits[id/64] &^= 1 << (id % 64)
		s.flags &^= selAllCommands
	}
}

// changePerm is ACLChangeSelectorPerm: a container's rule covers its
// subcommands.
func (s *selector) changePerm(c *Command, allow bool) {
	s.setBit(c.ID, allow)
	delete(s.firstArgs, c.ID)
	for _, sub := range c.Subs {
		s.setBit(sub.ID, allow)
	}
}

func (s *selector) setCategory(bit uint64, allow bool) {
	s.t.Each(func(c *Command) {
		if c.Cats&bit != 0 {
			s.changePerm(c, allow)
		}
	})
}

func (s *selector) countCategory(bit uint64) (on, off int) {
	s.t.Each(func(c *Command) {
		if c.Cats&bit != 0 {
			if s.bit(c.ID) {
				on++
			} else {
				off++
			}
		}
	})
	return on, off
}

func (s *selector) setAll(on bool) {
	var v uint64
	if on {
		v = ^uint64(0)
		s.flags |= selAllCommands
	} else {
		s.flags &^= selAllCommands
	}
	for i := range s.bits {
		s.bits[i] = v
	}
	s.future = on
	s.firstArgs = nil
}

// ruleError is why a rule was refused (Redis's errno of ACLSetUser),
// worded as ACLSetUserStringError.
type ruleError string

const (
	errUnknown     ruleError = "Unknown command or category name in ACL"
	errSyntax      ruleError = "Syntax error"
	errAfterAllKey ruleError = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	errAfterAllCh  ruleError = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	errNoPass      ruleError = "The password you are trying to remove from the user does not exist"
	errBadHash     ruleError = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	errSubFirstArg ruleError = "Allowing first-arg of a subcommand is not supported"
)

func (e ruleError) Error() string { return string(e) }

// hasSpaces is ACLStringHasSpaces (isspace or NUL).
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply is ACLSetSelector: one selector rule.
func (s *selector) apply(op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.flags |= selAllKeys
		s.patterns = nil
	case strings.EqualFold(op, "resetkeys"):
		s.flags &^= selAllKeys
		s.patterns = nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.flags |= selAllChannels
		s.channels = nil
	case strings.EqualFold(op, "resetchannels"):
		s.flags &^= selAllChannels
		s.channels = nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
	case op[0] == '~' || op[0] == '%':
		if s.flags&selAllKeys != 0 {
			return errAfterAllKey
		}
		perm, off := PermAll, 1
		if op[0] == '%' {
			perm = 0
			for ; off < len(op); off++ {
				switch ch := op[off]; {
				case (ch == 'R' || ch == 'r') && perm&PermRead == 0:
					perm |= PermRead
				case (ch == 'W' || ch == 'w') && perm&PermWrite == 0:
					perm |= PermWrite
				case ch == '~':
					off++
					goto done
				default:
					return errSyntax
				}
			}
		done:
		}
		pat := op[min(off, len(op)):]
		if hasSpaces(pat) {
			return errSyntax
		}
		if i := slices.IndexFunc(s.patterns, func(p KeyPattern) bool { return p.Pattern == pat }); i >= 0 {
			s.patterns[i].Perm |= perm
		} else {
			s.patterns = append(s.patterns, KeyPattern{perm, pat, []byte(pat)})
		}
		s.flags &^= selAllKeys
	case op[0] == '&':
		if s.flags&selAllChannels != 0 {
			return errAfterAllCh
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return errSyntax
		}
		if !slices.Contains(s.channels, pat) {
			s.channels = append(s.channels, pat)
		}
		s.flags &^= selAllChannels
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		return s.allow(op[1:])
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		c := s.t.Lookup(op[1:])
		if c == nil {
			return errUnknown
		}
		s.changePerm(c, false)
	case (op[0] == '+' || op[0] == '-') && op[1] == '@':
		bit := CategoryBit(op[2:])
		if bit == 0 {
			return errUnknown
		}
		s.setCategory(bit, op[0] == '+')
	default:
		return errSyntax
	}
	return nil
}

// allow is +cmd, +container|sub and +cmd|firstarg.
func (s *selector) allow(name string) error {
	bar := strings.LastIndexByte(name, '|')
	if bar < 0 {
		c := s.t.Lookup(name)
		if c == nil {
			return errUnknown
		}
		s.changePerm(c, true)
		return nil
	}
	c := s.t.Lookup(name[:bar])
	if c == nil {
		return errUnknown
	}
	if c.Parent != nil {
		return errSubFirstArg
	}
	arg := name[bar+1:]
	if arg == "" {
		return errSyntax
	}
	if c.Subs != nil {
		sub := s.t.Lookup(name)
		if sub == nil {
			return errUnknown
		}
		s.changePerm(sub, true)
		return nil
	}
	if s.firstArgs == nil {
		s.firstArgs = map[int][]string{}
	}
	for _, a := range s.firstArgs[c.ID] {
		if strings.EqualFold(a, arg) {
			return nil
		}
	}
	s.firstArgs[c.ID] = append(s.firstArgs[c.ID], arg)
	return nil
}

// describeCommands is ACLDescribeSelectorCommandRules: +@all or -@all, the
// categories that fit the bitmap best, then single commands, replayed on
// a scratch selector until it matches the bitmap.
func (s *selector) describeCommands() string {
	var b strings.Builder
	fake := newSelector(s.t, 0)
	additive := !s.future
	if additive {
		b.WriteString("-@all ")
	} else {
		b.WriteString("+@all ")
		fake.setAll(true)
	}
	temp := newSelector(s.t, 0)
	copy(temp.bits, s.bits)
	applied := make([]bool, len(Categories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(1 << j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.setCategory(1<<best, additive)
		temp.setCategory(1<<best, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(Categories[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	s.t.Each(func(c *Command) {
		user, had := s.bit(c.ID), fake.bit(c.ID)
		if user != had {
			if user {
				b.WriteByte('+')
			} else {
				b.WriteByte('-')
			}
			b.WriteString(c.Name)
			b.WriteByte(' ')
			fake.changePerm(c, user)
		}
		if !user {
			for _, a := range s.firstArgs[c.ID] {
				b.WriteString("+" + c.Name + "|" + a + " ")
			}
		}
	})
	out := b.String()
	return out[:len(out)-1]
}

// describe is ACLDescribeSelector: keys, channels, commands.
func (s *selector) describe() string {
	var b strings.Builder
	if s.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, p := range s.patterns {
			b.WriteString(p.String() + " ")
		}
	}
	if s.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}

// Keys is the keys field of ACL GETUSER.
func (s *selector) keysField() string {
	if s.flags&selAllKeys != 0 {
		return "~*"
	}
	parts := make([]string, len(s.patterns))
	for i, p := range s.patterns {
		parts[i] = p.String()
	}
	return strings.Join(parts, " ")
}

func (s *selector) channelsField() string {
	if s.flags&selAllChannels != 0 {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}
