package acl

import (
	"fmt"
	"sort"
	"strings"
)

// Registry is the set of users, the default one always among them.
type Registry struct {
	t       *Table
	users   map[string]*User
	Default *User
	Log     Log
}

// NewRegistry starts with Redis's default user: on, nopass, +@all ~* &*.
func NewRegistry(t *Table) *Registry {
	r := &Registry{t: t, users: map[string]*User{}}
	r.Default = r.defaultUser()
	r.users["default"] = r.Default
	return r
}

func (r *Registry) defaultUser() *User {
	u := newUser(r.t, "default")
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		_ = u.apply(op)
	}
	return u
}

// Table is the command table the rules refer to.
func (r *Registry) Table() *Table { return r.t }

// User finds a user by its (case-sensitive) name.
func (r *Registry) User(name string) *User { return r.users[name] }

// Users lists the users in name order (Redis's rax order: bytewise).
func (r *Registry) Users() []*User {
	out := make([]*User, 0, len(r.users))
	for _, u := range r.users {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SetDefaultPassword is requirepass: the default user's passwords become
// that one, or nopass for "".
func (r *Registry) SetDefaultPassword(p string) {
	_ = r.Default.apply("resetpass")
	if p == "" {
		_ = r.Default.apply("nopass")
	} else {
		_ = r.Default.apply(">" + p)
	}
}

// mergeSelectors is ACLMergeSelectorArguments: a selector may be spread
// over several arguments, "(+get" "~k)". bad is the argument that opened an
// unclosed one.
func mergeSelectors(args []string) (out []string, bad int, ok bool) {
	open := -1
	var cur string
	for i, op := range args {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, i
			continue
		}
		if open >= 0 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				out = append(out, cur)
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open, false
	}
	return out, 0, true
}

// ValidName is the rule for user names: no spaces or NULs.
func ValidName(name string) bool { return !hasSpaces(name) }

// SetUser is ACLStringSetUser: apply every rule to a copy, and only if all
// are valid to the user, created if new. The error is Redis's reply text.
// The returned user is the one changed (nil on error); old is its state
// before (nil if created), to find the connections a change affects.
func (r *Registry) SetUser(name string, rules []string) (u, old *User, err error) {
	merged, bad, ok := mergeSelectors(rules)
	if !ok {
		return nil, nil, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", rules[bad])
	}
	existing := r.users[name]
	temp := newUser(r.t, name)
	if existing != nil {
		temp = existing.clone()
	}
	for _, op := range merged {
		if e := temp.apply(op); e != nil {
			return nil, nil, fmt.Errorf("Error in ACL SETUSER modifier '%s': %s", op, e.Error())
		}
	}
	if existing == nil {
		existing = newUser(r.t, name)
		r.users[name] = existing
	} else {
		old = existing.clone()
	}
	existing.copyFrom(temp)
	return existing, old, nil
}

// Delete removes a user (never the default one) and reports whether it
// existed.
func (r *Registry) Delete(name string) *User {
	u := r.users[name]
	if u == nil || u == r.Default {
		return nil
	}
	delete(r.users, name)
	return u
}

// Save is the ACL file's text: one "user <name> <rules>" line per user.
func (r *Registry) Save() string {
	var b strings.Builder
	for _, u := range r.Users() {
		b.WriteString("user " + u.Name + " " + u.Describe() + "\n")
	}
	return b.String()
}

// Load is ACLLoadFromFile on the file's text: either every line is valid
// and the users are replaced (the default user keeping its identity), or
// nothing changes and the error lists the problems. It returns the users
// that were replaced, whose connections must go.
func (r *Registry) Load(text, filename string) (gone []*User, err error) {
	users := map[string]*User{}
	var errs strings.Builder
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		var argv []string
		for _, w := range strings.Split(line, " ") {
			if w != "" {
				argv = append(argv, w)
			}
		}
		if len(argv) == 0 {
			continue
		}
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", filename, n)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", filename, n, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], n)
			continue
		}
		u := newUser(r.t, argv[1])
		users[argv[1]] = u
		merged, _, ok := mergeSelectors(argv[2:])
		if !ok {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", filename, n)
		}
		syntax := false
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			if e := u.apply(op); e != nil {
				if e == errUnknown {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", filename, n, op, e.Error())
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", filename, n, e.Error())
					syntax = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		return nil, fmt.Errorf("%sWARNING: ACL errors detected, no change to the previously active ACL rules was performed", errs.String())
	}
	def := users["default"]
	if def == nil {
		def = r.defaultUser()
	}
	r.Default.copyFrom(def)
	users["default"] = r.Default
	for name, u := range r.users {
		if name != "default" {
			gone = append(gone, u)
		}
	}
	r.users = users
	return gone, nil
}

// CheckRules is the validation of a redis.conf user line: the rules must
// apply to a scratch user, unknown commands aside (Redis lets modules
// define them later). idx is the failing rule's position plus one, the
// word of the line Redis's message then quotes.
func CheckRules(t *Table, rules []string) (idx int, msg string) {
	merged, bad, ok := mergeSelectors(rules)
	if !ok {
		return bad, "Syntax error"
	}
	u := newUser(t, "")
	for j, op := range merged {
		if err := u.apply(op); err != nil && err != errUnknown {
			return j, err.Error()
		}
	}
	return 0, ""
}

// LoadConfigUser is ACLLoadConfiguredUsers for one user: a redefined
// default user is reset first.
func (r *Registry) LoadConfigUser(name string, rules []string) error {
	if hasSpaces(name) {
		return fmt.Errorf("Spaces not allowed in ACL usernames")
	}
	u := r.users[name]
	if u == nil {
		u = newUser(r.t, name)
		r.users[name] = u
	} else {
		_ = u.apply("reset")
	}
	merged, _, _ := mergeSelectors(rules)
	for _, op := range merged {
		if err := u.apply(op); err != nil {
			return fmt.Errorf("Error loading ACL rule '%s' for the user named '%s': %s", op, name, err.Error())
		}
	}
	return nil
}
