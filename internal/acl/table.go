// Package acl is Redis 7.0's access control lists: users, their passwords,
// the rules of ACL SETUSER and how they read back (ACL LIST, GETUSER), the
// permission check of a command against a user, and the ACL log.
//
// It knows nothing of limitkv's commands: the commands package hands it a
// Table of abstract commands (an id, a full name, category bits and
// subcommands) and, for each check, the positions of the keys and channels
// the command names, so this package only decides.
package acl

import "strings"

// Categories are Redis 7.0's ACL categories in its order, which is the
// order of ACL CAT and of the category fitting in ACL LIST.
var Categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
	"geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
	"transaction", "scripting",
}

// CategoryBit is the bit of a category name (any case), 0 if unknown.
func CategoryBit(name string) uint64 {
	for i, c := range Categories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// Command is one command or subcommand as the ACL sees it.
type Command struct {
	ID     int
	Name   string // full name, lower case: "get", "config|get"
	Cats   uint64 // CategoryBit bits
	NoAuth bool   // allowed before AUTH: never refused by command rules
	Parent *Command
	Subs   []*Command
}

// Table is the command set rules refer to, in the order rules are
// described (Redis walks its command dict; limitkv its sorted table).
type Table struct {
	top    []*Command
	byName map[string]*Command
	n      int
}

// NewTable numbers the commands (subcommands after their container) and
// indexes them by full name.
func NewTable(top []*Command) *Table {
	t := &Table{top: top, byName: map[string]*Command{}}
	var walk func(c *Command)
	walk = func(c *Command) {
		c.ID = t.n
		t.n++
		t.byName[c.Name] = c
		for _, s := range c.Subs {
			s.Parent = c
			walk(s)
		}
	}
	for _, c := range top {
		walk(c)
	}
	return t
}

// Lookup finds "name" or "container|sub", any case.
func (t *Table) Lookup(name string) *Command { return t.byName[strings.ToLower(name)] }

// Each calls f for every command and subcommand, containers first.
func (t *Table) Each(f func(c *Command)) {
	var walk func(c *Command)
	walk = func(c *Command) {
		f(c)
		for _, s := range c.Subs {
			walk(s)
		}
	}
	for _, c := range t.top {
		walk(c)
	}
}

// InCategory lists the full names of the commands in a category, in table
// order (ACL CAT <category>), and false for an unknown category.
func (t *Table) InCategory(name string) ([]string, bool) {
	bit := CategoryBit(name)
	if bit == 0 {
		return nil, false
	}
	out := []string{}
	t.Each(func(c *Command) {
		if c.Cats&bit != 0 {
			out = append(out, c.Name)
		}
	})
	return out, true
}
