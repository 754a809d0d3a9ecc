package expiry

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// rec is a record that knows its deadline, as a keyspace entry does.
type rec struct {
	name string
	at   int64
}

func newIndex() *Index[rec] { return New(func(r *rec) int64 { return r.at }) }

// add files r under at, which r records first, as the keyspace does.
func add(x *Index[rec], r *rec, at int64) {
	r.at = at
	x.Add(r, at)
}

func names(rs []*rec) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.name)
	}
	return out
}

func TestDueOrderAndBoundary(t *testing.T) {
	x := newIndex()
	a, b, c, d := &rec{name: "a"}, &rec{name: "b", at: 10}, &rec{name: "c"}, &rec{name: "d"}
	add(x, c, 30)
	add(x, a, 10)
	add(x, d, 40)
	tests := []struct {
		now  int64
		max  int
		want []string
	}{
		{now: 10, max: 10, want: nil},           // deadline == now is alive
		{now: 11, max: 10, want: []string{"a"}}, // only the due one
		{now: 31, max: 1, want: []string{"a"}},  // bounded by max
		{now: 100, max: 10, want: []string{"a", "c", "d"}},
	}
	for _, tc := range tests {
		if got := names(x.Due(tc.now, tc.max, nil)); !slices.Equal(got, tc.want) {
			t.Errorf("Due(%d, %d) = %v, want %v", tc.now, tc.max, got, tc.want)
		}
	}
	if x.Remove(c, 999) { // wrong deadline: nothing removed
		t.Fatal("Remove with the wrong deadline removed something")
	}
	if x.Remove(b, 10) {
		t.Fatal("Remove of a record never added removed something")
	}
	if !x.Remove(a, 10) || x.Len() != 2 {
		t.Fatalf("Remove(a) failed or Len = %d, want 2", x.Len())
	}
	if at, ok := x.Next(); !ok || at != 30 {
		t.Fatalf("Next = %d %v", at, ok)
	}
	x.Clear()
	if _, ok := x.Next(); ok || x.Len() != 0 || len(x.Due(1<<62, 10, nil)) != 0 {
		t.Fatal("Clear left items")
	}
}

// TestAgainstModel drives the index with random adds and removes in the
// patterns the keyspace makes (deadlines mostly increasing, many ties,
// removals from the front and anywhere) and compares it with a sorted slice.
func TestAgainstModel(t *testing.T) {
	for _, pattern := range []string{"append", "random", "ties"} {
		t.Run(pattern, func(t *testing.T) {
			seed := uint64(len(pattern))
			rng := rand.New(rand.NewPCG(seed, 7))
			x := newIndex()
			type entry struct {
				r  *rec
				at int64
			}
			var model []entry // in Add order; sorted when compared
			clock := int64(1000)
			for step := 0; step < 30000; step++ {
				switch op := rng.IntN(10); {
				case op < 6 || len(model) == 0: // add
					var at int64
					switch pattern {
					case "append":
						clock += int64(rng.IntN(3))
						at = clock + 60000 - int64(rng.IntN(5))
					case "random":
						at = rng.Int64N(1 << 20)
					case "ties":
						at = int64(rng.IntN(4))
					}
					r := &rec{}
					add(x, r, at)
					model = append(model, entry{r, at})
				case op < 8: // remove the earliest, as the expiry cycle does
					slices.SortFunc(model, func(a, b entry) int { return compare(item[rec]{a.at, a.r}, item[rec]{b.at, b.r}) })
					if !x.Remove(model[0].r, model[0].at) {
						t.Fatalf("step %d: Remove of the earliest failed", step)
					}
					model = model[1:]
				default: // remove any
					i := rng.IntN(len(model))
					if x.Remove(model[i].r, model[i].at+1) {
						t.Fatalf("step %d: Remove with a wrong deadline succeeded", step)
					}
					if !x.Remove(model[i].r, model[i].at) {
						t.Fatalf("step %d: Remove failed", step)
					}
					model = slices.Delete(model, i, i+1)
				}
				if step%197 == 0 || step == 29999 {
					if !x.check() || x.Len() != len(model) {
						t.Fatalf("step %d: invariants broken (Len %d, model %d)", step, x.Len(), len(model))
					}
					slices.SortFunc(model, func(a, b entry) int { return compare(item[rec]{a.at, a.r}, item[rec]{b.at, b.r}) })
					due := x.Due(1<<62, len(model)+1, nil)
					if len(due) != len(model) {
						t.Fatalf("step %d: Due returned %d, want %d", step, len(due), len(model))
					}
					for i := range due {
						if due[i] != model[i].r {
							t.Fatalf("step %d: item %d out of order", step, i)
						}
					}
					if len(model) > 0 {
						if at, ok := x.Next(); !ok || at != model[0].at {
							t.Fatalf("step %d: Next = %d, want %d", step, at, model[0].at)
						}
					}
				}
			}
		})
	}
}

// Deadlines that only grow, as "now + TTL" does, must leave chunks full:
// that is the memory the index was rebuilt for.
func TestAppendLoadFillsChunks(t *testing.T) {
	x := newIndex()
	const n = 100 * chunkMax
	for i := 0; i < n; i++ {
		add(x, &rec{}, int64(i/3))
	}
	if len(x.chunks) > n/chunkMax+1 {
		t.Fatalf("%d items in %d chunks, want about %d", n, len(x.chunks), n/chunkMax)
	}
}

func BenchmarkAddRemoveFront(b *testing.B) {
	x := newIndex()
	recs := make([]*rec, 1<<20)
	for i := range recs {
		recs[i] = &rec{}
		add(x, recs[i], int64(i))
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		r := recs[i%len(recs)]
		if !x.Remove(r, int64(i)) {
			b.Fatal("Remove failed")
		}
		add(x, r, int64(i+len(recs)))
		i++
	}
}

// check verifies the invariants (for tests): chunks non-empty, at most
// chunkMax items, in strict order, each chunk's last deadline right, and n
// their total.
func (x *Index[T]) check() bool {
	n := 0
	var prev *item[T]
	for _, c := range x.chunks {
		if len(c.v) == 0 || len(c.v) > chunkMax || c.last != x.at(c.v[len(c.v)-1]) {
			return false
		}
		for _, v := range c.v {
			it := x.item(v)
			if prev != nil && compare(*prev, it) >= 0 {
				return false
			}
			prev = &it
		}
		n += len(c.v)
	}
	return n == x.n
}

func TestSample(t *testing.T) {
	for _, size := range []int{0, 1, 7, 600, 3000} {
		x := newIndex()
		vals := make([]rec, size)
		for i := range vals {
			add(x, &vals[i], int64(i%97))
		}
		for _, n := range []int{1, 5, size, size + 3} {
			got := x.Sample(n, nil)
			if n >= size && len(got) != size || n < size && (len(got) == 0 || len(got) > n) {
				t.Fatalf("size %d: Sample(%d) gave %d", size, n, len(got))
			}
			seen := map[*rec]bool{}
			for _, v := range got {
				if seen[v] {
					t.Fatalf("size %d: Sample(%d) repeated a record", size, n)
				}
				seen[v] = true
			}
		}
	}
}

// A chunk fills its size class: 4096 bytes, the allocator's header
// included (a chunk of 512 pointers took the 4864-byte class).
func TestChunkFillsSizeClass(t *testing.T) {
	const n = 200
	keep := make([]chunk[rec], 0, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		keep = append(keep, newChunk(item[rec]{v: &rec{}}))
	}
	runtime.ReadMemStats(&after)
	// Each iteration allocates the chunk and its one record (16 bytes).
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 4096+32 {
		t.Fatalf("a chunk of %d items takes %d bytes", chunkMax, per)
	}
	runtime.KeepAlive(keep)
}
