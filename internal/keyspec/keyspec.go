// Package keyspec finds a command's keys in its arguments, as Redis 7.0's
// getKeysFromCommand does: by the command's key specs (begin_search and
// find_keys), and by the procedures of the commands whose keys the specs
// cannot say (SORT, MIGRATE), with the flags of the commands whose key
// flags depend on their options (SET, BITFIELD). It knows arguments, not
// commands: the engine gives it the specs of each command.
package keyspec

import (
	"bytes"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/num"
)

// CEqualFold compares an argument with a lower-case option name the way
// Redis's strcasecmp on the argument's C string does: ASCII case folding
// only, and the argument ends at its first NUL ("COUNT\x00x" is COUNT).
func CEqualFold(arg []byte, lower string) bool {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) != len(lower) {
		return false
	}
	for i, c := range arg {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func asciiEq(a []byte, w string) bool { return len(a) == len(w) && strings.EqualFold(string(a), w) }

// keySpec is Redis 7.0's key specification of a command.
type KeySpec struct {
	Flags []string
	// begin_search
	BsIndex     int    // "index": position of the first key
	BsKeyword   string // "keyword": the key follows this word...
	BsStartFrom int    // ...searched from here (negative: from the end, backwards)
	// find_keys
	FkRange              bool
	LastKey, Step, Limit int  // range
	KeyNumIdx, FirstKey  int  // keynum (with step)
	Unknown              bool // a spec this package cannot follow: no keys found
}

// Key is one key of a command: its position in the arguments and its
// flags, as COMMAND GETKEYSANDFLAGS names them.
type Key struct {
	Pos   int
	Flags []string
}

// FromSpecs is Redis's getKeysUsingKeySpecs: the positions of the keys in
// args, or ok false when the arguments do not fit the specs.
func FromSpecs(specs []KeySpec, args [][]byte) (keys []Key, ok bool) {
	argc := len(args)
	for _, s := range specs {
		if slices.Contains(s.Flags, "not_key") {
			continue
		}
		if s.Unknown {
			return nil, false
		}
		first := 0
		if s.BsKeyword == "" {
			first = s.BsIndex
		} else {
			start, end := s.BsStartFrom, 1
			if start > 0 {
				end = argc - 1
			} else {
				start = argc + s.BsStartFrom
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if strings.EqualFold(string(args[i]), s.BsKeyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue
			}
		}
		var last, step int
		if s.FkRange {
			step = s.Step
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + ((argc-first)/s.Limit + s.LastKey)
			}
		} else {
			step = s.Step
			if s.KeyNumIdx >= argc || first+s.KeyNumIdx >= argc {
				return nil, false
			}
			n, ok := num.ParseInt(args[first+s.KeyNumIdx])
			if !ok || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += s.FirstKey
			last = first + int(n) - 1
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		for i := first; i <= last; i += max(step, 1) {
			keys = append(keys, Key{i, s.Flags})
		}
	}
	return keys, true
}

// sortGetKeys is Redis's sortGetKeys for COMMAND GETKEYS: the sorted key,
// and the destination of the last STORE. Like Redis it skips the arguments
// of LIMIT, GET and BY but not STORE's, so "STORE STORE k" finds k. For
// SORT_RO (sortROGetKeys) it is the sorted key alone.
func SortGetKeys(args [][]byte, readonly bool) []Key {
	keys := []Key{{1, []string{"RO", "access"}}}
	if readonly {
		return keys
	}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case asciiEq(args[i], "limit"):
			i += 2
		case asciiEq(args[i], "get"), asciiEq(args[i], "by"):
			i++
		case asciiEq(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		keys = append(keys, Key{store, []string{"OW", "update"}})
	}
	return keys
}

// migrateGetKeys is Redis's migrateGetKeys, which COMMAND GETKEYS uses
// since MIGRATE's key specs are incomplete: the key argument, or with
// KEYS the names after it (none if the key argument is not empty).
func MigrateGetKeys(args [][]byte) []Key {
	first, n := 3, 1
	if len(args) > 6 {
	scan:
		for i := 6; i < len(args); i++ {
			switch {
			case CEqualFold(args[i], "keys"):
				if len(args[3]) > 0 {
					n = 0
				} else {
					first, n = i+1, len(args)-i-1
				}
				break scan
			case CEqualFold(args[i], "auth"):
				i++
			case CEqualFold(args[i], "auth2"):
				i += 2
			}
		}
	}
	keys := make([]Key, 0, n)
	for i := range n {
		keys = append(keys, Key{first + i, []string{"RW", "access", "delete"}})
	}
	return keys
}

// variableKeyFlags is what Redis's getkeys procedures of SET and BITFIELD
// answer for the key's flags, which depend on the options.
func VariableKeyFlags(name string, args [][]byte) []string {
	switch name {
	case "set":
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	case "bitfield":
		for i := 2; i < len(args); i++ {
			rem := len(args) - i - 1
			switch a := strings.ToLower(string(args[i])); {
			case a == "get" && rem >= 2:
				i += 2
			case a == "overflow" && rem >= 1:
				i++
			default: // SET, INCRBY, or a syntax error: assume a write
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"RO", "access"}
	}
	return []string{"RW", "access", "update"}
}
