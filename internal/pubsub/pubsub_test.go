package pubsub

import (
	"reflect"
	"testing"
)

func TestSet(t *testing.T) {
	var s Set
	steps := []struct {
		op   string
		name string
		want bool
		then []string
	}{
		{"add", "a", true, []string{"a"}},
		{"add", "b", true, []string{"a", "b"}},
		{"add", "a", false, []string{"a", "b"}},
		{"add", "c", true, []string{"a", "b", "c"}},
		{"remove", "x", false, []string{"a", "b", "c"}},
		{"remove", "a", true, []string{"b", "c"}},
		{"add", "a", true, []string{"b", "c", "a"}},
		{"remove", "c", true, []string{"b", "a"}},
		{"remove", "b", true, []string{"a"}},
		{"remove", "a", true, nil},
	}
	for i, st := range steps {
		var got bool
		if st.op == "add" {
			got = s.Add(st.name)
		} else {
			got = s.Remove(st.name)
		}
		if got != st.want {
			t.Fatalf("step %d %s %q = %v, want %v", i, st.op, st.name, got, st.want)
		}
		if m := s.Members(); !reflect.DeepEqual(m, st.then) && !(len(m) == 0 && len(st.then) == 0) {
			t.Fatalf("step %d: members %v, want %v", i, m, st.then)
		}
		for _, n := range st.then {
			if !s.Has(n) {
				t.Fatalf("step %d: Has(%q) false", i, n)
			}
		}
		if s.Len() != len(st.then) {
			t.Fatalf("step %d: Len %d", i, s.Len())
		}
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry[int]()
	r.Add("x", 1)
	r.Add("y", 1)
	r.Add("x", 2)
	r.Add("z", 3)
	if got := r.Subscribers("x"); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("x: %v", got)
	}
	if r.Len() != 3 || r.Count("x") != 2 || r.Count("nope") != 0 {
		t.Fatalf("len %d count %d", r.Len(), r.Count("x"))
	}
	r.Remove("x", 1)
	if got := r.Subscribers("x"); !reflect.DeepEqual(got, []int{2}) {
		t.Fatalf("x after remove: %v", got)
	}
	r.Remove("y", 1) // last subscriber: the name goes
	r.Remove("y", 1) // twice is harmless
	var names []string
	r.Names(func(n string) bool { names = append(names, n); return true })
	if len(names) != 2 || r.Len() != 2 {
		t.Fatalf("names %v", names)
	}
	for _, n := range names {
		if n == "y" {
			t.Fatal("y still listed")
		}
	}
	r.Remove("x", 2)
	r.Remove("z", 3)
	if r.Len() != 0 || len(r.subs) != 0 || len(r.pos) != 0 {
		t.Fatalf("not empty: %d %v %v", r.Len(), r.subs, r.pos)
	}
}
