package engine

// Local is a family's own state on this engine, of type T, made zero on
// first use and kept as long as the engine. A family keeps what it needs
// across commands here (RL.CHECK's member sequence), in a type of its own
// package, rather than in a field of Engine that every family could reach.
// Call with the lock held.
func Local[T any](e *Engine) *T {
	// A nil *T is a key of its own for each T.
	var key *T
	if v, ok := e.locals[key]; ok {
		return v.(*T)
	}
	v := new(T)
	if e.locals == nil {
		e.locals = make(map[any]any)
	}
	e.locals[key] = v
	return v
}

// CountLookup counts a read's lookup in INFO's keyspace_hits or
// keyspace_misses, for a command that looks its key up itself.
func (x *Ctx) CountLookup(hit bool) {
	if hit {
		x.E.Stats.KeyspaceHits++
	} else {
		x.E.Stats.KeyspaceMisses++
	}
}
