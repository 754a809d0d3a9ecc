// Package pubsub keeps who listens to what: the server's channel and pattern
// registries and each subscriber's own sets, as Redis's pubsub.c keeps
// server.pubsub_channels / pubsub_patterns and c->pubsub_channels /
// c->pubsub_patterns. It knows nothing of the protocol or of how a message
// reaches a subscriber; the commands layer delivers.
package pubsub

// Set is one subscriber's channels (or patterns): membership in O(1), and
// the order of subscription, which is the order a mass unsubscribe
// answers in. (Redis answers channels in its dict's order, which depends on
// a random hash seed, so no client can rely on any order there.)
type Set struct {
	idx   map[string]int
	items []string
}

// Len is the number of members.
func (s *Set) Len() int { return len(s.items) }

// Has reports whether name is a member.
func (s *Set) Has(name string) bool { _, ok := s.idx[name]; return ok }

// Add adds name and reports whether it was new.
func (s *Set) Add(name string) bool {
	if _, ok := s.idx[name]; ok {
		return false
	}
	if s.idx == nil {
		s.idx = make(map[string]int)
	}
	s.idx[name] = len(s.items)
	s.items = append(s.items, name)
	return true
}

// Remove removes name and reports whether it was a member. The members
// after it keep their order.
func (s *Set) Remove(name string) bool {
	i, ok := s.idx[name]
	if !ok {
		return false
	}
	delete(s.idx, name)
	copy(s.items[i:], s.items[i+1:])
	s.items[len(s.items)-1] = ""
	s.items = s.items[:len(s.items)-1]
	for j := i; j < len(s.items); j++ {
		s.idx[s.items[j]] = j
	}
	return true
}

// Members returns a copy of the members in subscription order (a copy: the
// caller usually removes them while it walks).
func (s *Set) Members() []string { return append([]string(nil), s.items...) }

// Registry maps each channel (or pattern) to its subscribers in the order
// they subscribed, which is the order PUBLISH delivers in.
type Registry[C comparable] struct {
	subs  map[string][]C
	order []string // names in first-subscription order, for PUBSUB CHANNELS and pattern matching
	pos   map[string]int
}

// NewRegistry returns an empty registry.
func NewRegistry[C comparable]() *Registry[C] {
	return &Registry[C]{subs: make(map[string][]C), pos: make(map[string]int)}
}

// Add appends c to name's subscribers. The caller ensures c is not one yet
// (its own Set says so).
func (r *Registry[C]) Add(name string, c C) {
	list, ok := r.subs[name]
	if !ok {
		r.pos[name] = len(r.order)
		r.order = append(r.order, name)
	}
	r.subs[name] = append(list, c)
}

// Remove takes c out of name's subscribers; a name nobody listens to any
// more is forgotten at once, so that millions of one-off channels cost
// nothing once their subscribers are gone (Redis does the same).
func (r *Registry[C]) Remove(name string, c C) {
	list := r.subs[name]
	for i, o := range list {
		if o == c {
			copy(list[i:], list[i+1:])
			var zero C
			list[len(list)-1] = zero
			list = list[:len(list)-1]
			break
		}
	}
	if len(list) > 0 {
		r.subs[name] = list
		return
	}
	delete(r.subs, name)
	i, ok := r.pos[name]
	if !ok {
		return
	}
	delete(r.pos, name)
	last := len(r.order) - 1
	if i != last {
		r.order[i] = r.order[last]
		r.pos[r.order[i]] = i
	}
	r.order[last] = ""
	r.order = r.order[:last]
}

// Subscribers are name's subscribers. The slice is the registry's: do not
// keep it across a change.
func (r *Registry[C]) Subscribers(name string) []C { return r.subs[name] }

// Count is the number of subscribers of name.
func (r *Registry[C]) Count(name string) int { return len(r.subs[name]) }

// Len is the number of names somebody listens to.
func (r *Registry[C]) Len() int { return len(r.order) }

// Names calls fn for every name somebody listens to, until fn returns
// false. fn must not change the registry.
func (r *Registry[C]) Names(fn func(name string) bool) {
	for _, n := range r.order {
		if !fn(n) {
			return
		}
	}
}
