package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/sdsargs"
)

// User flags, in the order ACL LIST and GETUSER show them.
const (
	flagOn = 1 << iota
	flagOff
	flagNoPass
	flagSkipSanitize
	flagSanitize
)

var userFlagNames = []struct {
	f    uint8
	name string
}{{flagOn, "on"}, {flagOff, "off"}, {flagNoPass, "nopass"}, {flagSkipSanitize, "skip-sanitize-payload"}, {flagSanitize, "sanitize-payload"}}

// User is one ACL user. Guarded by whatever guards its Registry.
type User struct {
	Name      string
	flags     uint8
	passwords []string // SHA-256 hex, in the order added
	sels      []*selector
	desc      string // cached Describe, "" when stale

	// Unrestricted is the hot path's one test: the user may run every
	// command on every key and channel, so no check is needed.
	Unrestricted bool
}

func newUser(t *Table, name string) *User {
	return &User{Name: name, flags: flagOff, sels: []*selector{newSelector(t, selRoot)}}
}

func (u *User) clone() *User {
	d := *u
	d.passwords = slices.Clone(u.passwords)
	d.sels = make([]*selector, len(u.sels))
	for i, s := range u.sels {
		d.sels[i] = s.clone()
	}
	return &d
}

// copyFrom is ACLCopyUser: u takes src's rules, keeping its name (and its
// identity, which the connections authenticated as u hold).
func (u *User) copyFrom(src *User) {
	name := u.Name
	*u = *src.clone()
	u.Name = name
	u.refresh()
}

func (u *User) refresh() {
	u.desc = ""
	r := u.sels[0]
	u.Unrestricted = r.flags&(selAllCommands|selAllKeys|selAllChannels) == selAllCommands|selAllKeys|selAllChannels
}

// Enabled reports the "on" flag: only enabled users can authenticate.
func (u *User) Enabled() bool { return u.flags&flagOff == 0 }

// NoPass reports the "nopass" flag: any password authenticates.
func (u *User) NoPass() bool { return u.flags&flagNoPass != 0 }

// NeedsAuth is, for the default user, Redis's authRequired: a new
// connection is not authenticated unless the user is nopass and enabled.
func (u *User) NeedsAuth() bool { return !u.NoPass() || !u.Enabled() }

// HashPassword is the SHA-256 hex Redis stores for a password.
func HashPassword(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// CheckPassword is ACLCheckUserCredentials for an existing user: disabled
// users never pass; the comparison takes the same time wherever it differs.
func (u *User) CheckPassword(pass []byte) bool {
	if !u.Enabled() {
		return false
	}
	if u.NoPass() {
		return true
	}
	h := HashPassword(pass)
	ok := 0
	for _, p := range u.passwords {
		ok |= subtle.ConstantTimeCompare([]byte(h), []byte(p))
	}
	return ok == 1
}

// apply is ACLSetUser: one rule. Rules that are not the user's own go to
// the root selector.
func (u *User) apply(op string) error {
	defer u.refresh()
	switch {
	case op == "":
		return nil
	case strings.EqualFold(op, "on"):
		u.flags = u.flags&^flagOff | flagOn
	case strings.EqualFold(op, "off"):
		u.flags = u.flags&^flagOn | flagOff
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.flags = u.flags&^flagSanitize | flagSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		u.flags = u.flags&^flagSkipSanitize | flagSanitize
	case strings.EqualFold(op, "nopass"):
		u.flags |= flagNoPass
		u.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.flags &^= flagNoPass
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return errBadHash
		}
		if !slices.Contains(u.passwords, h) {
			u.passwords = append(u.passwords, h)
		}
		u.flags &^= flagNoPass
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return errBadHash
		}
		i := slices.Index(u.passwords, h)
		if i < 0 {
			return errNoPass
		}
		u.passwords = slices.Delete(u.passwords, i, i+1)
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(u.sels[0].t, 0)
		words, ok := SplitArgs(op[1 : len(op)-1])
		if !ok {
			return errSyntax
		}
		for _, w := range words {
			if err := s.apply(w); err != nil {
				return err
			}
		}
		u.sels = append(u.sels, s)
	case strings.EqualFold(op, "clearselectors"):
		u.sels = u.sels[:1]
	case strings.EqualFold(op, "reset"):
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "clearselectors", "-@all"} {
			_ = u.apply(r)
		}
	default:
		return u.sels[0].apply(op)
	}
	return nil
}

// Describe is ACLDescribeUser: the rules that recreate the user, as ACL
// LIST and the ACL file show them.
func (u *User) Describe() string {
	if u.desc != "" {
		return u.desc
	}
	var b strings.Builder
	for _, f := range userFlagNames {
		if u.flags&f.f != 0 {
			b.WriteString(f.name + " ")
		}
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, s := range u.sels {
		if i == 0 {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	u.desc = b.String()
	return u.desc
}

// Flags lists the user's flags (ACL GETUSER flags).
func (u *User) Flags() []string {
	var out []string
	for _, f := range userFlagNames {
		if u.flags&f.f != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// Passwords are the user's password hashes.
func (u *User) Passwords() []string { return u.passwords }

// SelectorInfo is one selector as ACL GETUSER shows it.
type SelectorInfo struct{ Commands, Keys, Channels string }

// Selectors returns the root selector first, then the others.
func (u *User) Selectors() []SelectorInfo {
	out := make([]SelectorInfo, len(u.sels))
	for i, s := range u.sels {
		out[i] = SelectorInfo{s.describeCommands(), s.keysField(), s.channelsField()}
	}
	return out
}

// hasAllChannels reports whether some selector grants every channel.
func (u *User) hasAllChannels() bool {
	for _, s := range u.sels {
		if s.flags&selAllChannels != 0 {
			return true
		}
	}
	return false
}

// SplitArgs is sdssplitargs, which splits a selector's rules.
var SplitArgs = sdsargs.Split
