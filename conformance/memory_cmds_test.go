package conformance

import (
	"fmt"
	"testing"
)

// MEMORY against Redis: every rule and error exactly; the figures are the
// Go heap's (see memory_cmds.go), so only their shapes are compared.
func TestMemoryCommand(t *testing.T) {
	// sameMapKeys compares a map (or RESP2 flat array) reply's keys, in
	// order, and its values' types.
	sameMapKeys := func(rds, lkv *Reply) error {
		if rds.Type != lkv.Type || len(rds.Elems) != len(lkv.Elems) {
			return fmt.Errorf("shape %q/%d vs %q/%d", rds.Type, len(rds.Elems), lkv.Type, len(lkv.Elems))
		}
		for i := 0; i < len(rds.Elems); i += 2 {
			r, l := rds.Elems[i], lkv.Elems[i]
			if r.Str != l.Str {
				return fmt.Errorf("key %d: %q vs %q", i/2, r.Str, l.Str)
			}
			if rv, lv := rds.Elems[i+1], lkv.Elems[i+1]; rv.Type != lv.Type {
				return fmt.Errorf("value of %s: type %q vs %q", r.Str, rv.Type, lv.Type)
			}
		}
		return nil
	}
	runCases(t, []Case{
		{Name: "help and errors", Cmds: []Cmd{
			C("MEMORY", "HELP"), C("MEMORY"), C("MEMORY", "NOPE"), C("MEMORY", "USAGE"), C("MEMORY", "STATS", "x"),
			C("MEMORY", "DOCTOR", "x"), C("MEMORY", "PURGE", "x"), C("MEMORY", "HELP", "x"),
		}},
		{Name: "usage", Cmds: []Cmd{
			C("MEMORY", "USAGE", "nope"), C("SET", "k", "v"), C("MEMORY", "USAGE", "k").Ignore(),
			C("MEMORY", "USAGE", "k", "SAMPLES", "0").Ignore(), C("MEMORY", "USAGE", "k", "SAMPLES", "x"),
			C("MEMORY", "USAGE", "k", "SAMPLES", "-1"), C("MEMORY", "USAGE", "k", "SAMPLES"),
			C("MEMORY", "USAGE", "k", "BOGUS"), C("MEMORY", "USAGE", "k", "samples", "3", "samples", "4").Ignore(),
			C("RPUSH", "l", "a", "b"), C("MEMORY", "USAGE", "l").Ignore(), C("MEMORY", "USAGE", "nope", "SAMPLES", "x"),
		}},
		{Name: "stats", Cmds: []Cmd{C("SET", "k", "v"), C("SELECT", "3"), C("SET", "k", "v"), C("MEMORY", "STATS").Check("keys in order", sameMapKeys)}},
		{Name: "doctor purge malloc-stats", Cmds: []Cmd{
			C("MEMORY", "DOCTOR").Ignore(), C("MEMORY", "PURGE"),
		}},
	})
}
