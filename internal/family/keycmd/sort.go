package keycmd

import (
	"bytes"
	"sort"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/set"
	"github.com/limitkv/limitkv/internal/zset"
)

// SORT and SORT_RO, after Redis 7.0's sort.c. The command parses every
// option first (in Redis's order: the first bad option answers), then looks
// the source up, loads its elements into a vector, scores them (the element
// itself or a BY pattern's value, as a double or, with ALPHA, as a string),
// sorts them and answers or stores the [start, end] window, each element
// replaced by its GET patterns' values when there are any.
//
// Order details that replies depend on:
//   - Redis sorts with libc's qsort, which in glibc (the oracle's and every
//     Linux build's) is a merge sort: stable, so elements that compare equal
//     (ALPHA with a BY pattern whose values tie or are missing) keep the
//     source's order. With a BY pattern and a LIMIT that narrows the window
//     it uses its own partial quicksort, pqsort, which is not stable:
//     sortPartial reproduces its steps so ties come out in Redis's order.
//   - Numeric ties compare the elements as binary strings, so the result is
//     a total order. ALPHA without STORE compares with strcoll, which in the
//     C locale is strcmp (stops at a NUL byte); with STORE it compares the
//     binary strings, so the stored list is the same on every replica.
//   - BY with a pattern lacking '*' means "do not sort": lists and sorted
//     sets keep their order (DESC reverses it, LIMIT takes the range
//     directly); sets are sorted ALPHA anyway when the result is stored or
//     the caller is a script, so it does not depend on the hash table.
var SortCommands = []*engine.Command{
	{Name: "sort", Arity: -2, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdSort},
	{Name: "sort_ro", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdSortRO},
}

func cmdSort(x *engine.Ctx)   { sortGeneric(x, false) }
func cmdSortRO(x *engine.Ctx) { sortGeneric(x, true) }

// sortOpts is a parsed SORT command.
type SortOpts struct {
	Desc, Alpha  bool
	dontsort     bool
	limitStart   int64
	limitCount   int64
	By           []byte // nil: sort by the elements themselves
	store        []byte // nil: reply
	gets         [][]byte
	StoreCompare bool // binary comparison (STORE) rather than strcoll
}

// parseSort parses SORT's options from argv[2:], answering the error
// itself when it returns false. The last of repeated options wins, as in
// Redis; SORT_RO does not know STORE at all (a syntax error).
func parseSort(x *engine.Ctx, readonly bool) (*SortOpts, bool) {
	o := &SortOpts{limitCount: -1}
	args := x.Args
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case engine.AsciiEq(a, "asc"):
			o.Desc = false
		case engine.AsciiEq(a, "desc"):
			o.Desc = true
		case engine.AsciiEq(a, "alpha"):
			o.Alpha = true
		case engine.AsciiEq(a, "limit") && left >= 2:
			s, ok1 := num.ParseInt(args[j+1])
			if !ok1 {
				x.W.Error(engine.ErrNotInt)
				return nil, false
			}
			c, ok2 := num.ParseInt(args[j+2])
			if !ok2 {
				x.W.Error(engine.ErrNotInt)
				return nil, false
			}
			o.limitStart, o.limitCount = s, c
			j += 2
		case !readonly && engine.AsciiEq(a, "store") && left >= 1:
			o.store = args[j+1]
			j++
		case engine.AsciiEq(a, "by") && left >= 1:
			o.By = args[j+1]
			// A constant pattern names no per-element key: nothing to
			// sort by. Redis looks for '*' with strchr, up to a NUL, and
			// a later BY with a '*' does not undo it.
			if bytes.IndexByte(engine.CString(o.By), '*') < 0 {
				o.dontsort = true
			}
			j++
		case engine.AsciiEq(a, "get") && left >= 1:
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			x.W.Error(engine.ErrSyntax)
			return nil, false
		}
	}
	return o, true
}

// sortItem is one element of the vector (Redis's redisSortObject).
type SortItem struct {
	Obj   []byte
	Score float64
	Cmp   []byte // the BY value with ALPHA
	Has   bool   // cmp was found (an empty value is not a missing one)
}

func sortGeneric(x *engine.Ctx, readonly bool) {
	o, ok := parseSort(x, readonly)
	if !ok {
		return
	}
	ent := x.Lookup(x.Args[1])
	var length int
	var (
		lst *list.List
		st  *set.Set
		zs  *zset.Set
	)
	if ent != nil {
		switch v := ent.Val.(type) {
		case *list.List:
			lst, length = v, v.Len()
		case *set.Set:
			st, length = v, v.Len()
		case *zset.Set:
			// Redis converts a listpack sorted set to a skiplist for good
			// (zsetConvert) before reading it; OBJECT ENCODING shows it.
			v.ToSkiplist()
			zs, length = v, v.Len()
		default:
			x.W.Error(engine.ErrWrongType)
			return
		}
	}

	// A set's hash table order differs between servers: when the result
	// must be reproducible (stored, or seen by a script that may write it)
	// "do not sort" becomes ALPHA.
	if o.dontsort && st != nil && (o.store != nil || x.C.InScript) {
		o.dontsort, o.Alpha, o.By = false, true, nil
	}
	o.StoreCompare = o.store != nil

	start, end := SortWindow(o.limitStart, o.limitCount, length)

	// Lists and sorted sets read in their own order load only the window.
	vlen := length
	if (lst != nil || zs != nil) && o.dontsort && (start != 0 || end != length-1) {
		vlen = end - start + 1
	}
	vec := make([]SortItem, 0, max(vlen, 0))
	switch {
	case lst != nil && o.dontsort:
		if end >= start {
			from := start
			if o.Desc {
				from = length - start - 1
			}
			lst.Each(from, o.Desc, func(_ int, v []byte) bool {
				if len(vec) == vlen {
					return false
				}
				vec = append(vec, SortItem{Obj: bytes.Clone(v)})
				return true
			})
			end -= start
			start = 0
		}
	case lst != nil:
		lst.Each(0, false, func(_ int, v []byte) bool {
			vec = append(vec, SortItem{Obj: bytes.Clone(v)})
			return true
		})
	case st != nil:
		st.Each(func(m []byte) bool {
			vec = append(vec, SortItem{Obj: bytes.Clone(m)})
			return true
		})
	case zs != nil && o.dontsort:
		if vlen > 0 {
			zs.RangeByRank(start, start+vlen-1, o.Desc, func(m []byte, _ float64) bool {
				vec = append(vec, SortItem{Obj: bytes.Clone(m)})
				return true
			})
		}
		end -= start
		start = 0
	case zs != nil:
		zs.RangeByRank(0, length-1, false, func(m []byte, _ float64) bool {
			vec = append(vec, SortItem{Obj: bytes.Clone(m)})
			return true
		})
	}

	convErr := false
	if !o.dontsort {
		for i := range vec {
			by := vec[i].Obj
			if o.By != nil {
				v, found := sortLookup(x, o.By, vec[i].Obj)
				if !found {
					continue
				}
				by = v
			}
			if o.Alpha {
				if o.By != nil {
					vec[i].Cmp, vec[i].Has = by, true
				}
				continue
			}
			f, ok := sortScore(by)
			if !ok {
				convErr = true
			}
			vec[i].Score = f
		}
		less := func(a, b *SortItem) int { return SortCompare(o, a, b) }
		if o.By != nil && (start != 0 || end != len(vec)-1) {
			SortPartial(vec, less, start, end)
		} else {
			sort.SliceStable(vec, func(i, j int) bool { return less(&vec[i], &vec[j]) < 0 })
		}
	}

	if convErr {
		x.W.Error(errSortScore)
		return
	}
	n := end - start + 1
	if len(o.gets) > 0 {
		n *= len(o.gets)
	}
	if o.store == nil {
		x.W.Array(n)
		for j := start; j <= end; j++ {
			if len(o.gets) == 0 {
				x.W.Bulk(vec[j].Obj)
			}
			for _, g := range o.gets {
				if v, found := sortLookup(x, g, vec[j].Obj); found {
					x.W.Bulk(v)
				} else {
					x.W.Null()
				}
			}
		}
		return
	}

	res := list.New(x.E.Cfg.ListFill())
	for j := start; j <= end; j++ {
		if len(o.gets) == 0 {
			res.PushBack(vec[j].Obj)
		}
		for _, g := range o.gets {
			v, _ := sortLookup(x, g, vec[j].Obj) // a missing value stores ""
			res.PushBack(v)
		}
	}
	if n > 0 {
		// setKey: any old value and its TTL go; a new list key wakes the
		// clients blocked on it, as dbAdd does.
		existed := x.DB.Get(o.store, x.Now) != nil
		x.DB.Set(o.store, res, false)
		if !existed {
			x.SignalReady(o.store)
		}
		x.Modified(o.store)
		x.Notify(config.EvList, "sortstore", o.store)
	} else if x.DB.Delete(o.store, x.Now) { // watchers learn it through keyDeleted
		x.Modified(o.store)
		x.Notify(config.EvGeneric, "del", o.store)
	}
	x.W.Int(int64(n))
}

// sortWindow is Redis's LIMIT sanity check: the [start, end] window of a
// vector of n elements, clamped so nothing overflows; an empty window has
// end = start-1 (start is n-1 when the offset is past the end).
func SortWindow(offset, count int64, n int) (start, end int) {
	s := min(max(offset, 0), int64(n))
	c := min(max(count, -1), int64(n))
	e := s + c - 1
	if c < 0 {
		e = int64(n) - 1
	}
	if s >= int64(n) {
		s, e = int64(n)-1, int64(n)-2
	}
	if e >= int64(n) {
		e = int64(n) - 1
	}
	return int(s), int(e)
}

// sortScore is the numeric weight of a value: strtod over the whole text
// (up to a NUL byte, leading blanks allowed, "" is 0), refusing NaN and any
// ERANGE, overflow or underflow alike.
func sortScore(b []byte) (float64, bool) {
	f, ok, rangeErr := num.StrtodRange(b)
	return f, ok && !rangeErr
}

// sortCompare is Redis's sortCompare: negative when a sorts first.
func SortCompare(o *SortOpts, a, b *SortItem) int {
	var c int
	switch {
	case !o.Alpha:
		switch {
		case a.Score > b.Score:
			c = 1
		case a.Score < b.Score:
			c = -1
		default:
			c = bytes.Compare(a.Obj, b.Obj)
		}
	case o.By != nil:
		switch {
		case !a.Has || !b.Has:
			if a.Has == b.Has {
				c = 0
			} else if !a.Has {
				c = -1
			} else {
				c = 1
			}
		case o.StoreCompare:
			c = bytes.Compare(a.Cmp, b.Cmp)
		default:
			c = bytes.Compare(engine.CString(a.Cmp), engine.CString(b.Cmp))
		}
	case o.StoreCompare:
		c = bytes.Compare(a.Obj, b.Obj)
	default:
		c = bytes.Compare(engine.CString(a.Obj), engine.CString(b.Obj))
	}
	if o.Desc {
		return -c
	}
	return c
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' of the pattern is replaced by the element to name
// a key, whose string value is the result, or, when "->field" follows the
// '*', the value of that field of the hash the key holds. A pattern without
// '*', a missing key or field, or a key of another type give nothing. The
// searches are C string searches (they stop at a NUL byte); the parts are
// cut from the whole pattern. The result may alias the keyspace: use it
// before the next write.
func sortLookup(x *engine.Ctx, pat, elem []byte) ([]byte, bool) {
	cp := engine.CString(pat)
	if len(cp) == 1 && cp[0] == '#' {
		return elem, true
	}
	p := bytes.IndexByte(cp, '*')
	if p < 0 {
		return nil, false
	}
	var field []byte
	if f := bytes.Index(cp[p+1:], []byte("->")); f >= 0 && p+1+f+2 < len(cp) {
		field = pat[p+1+f+2:]
	}
	post := len(pat) - p - 1
	if field != nil {
		post -= len(field) + 2
	}
	key := make([]byte, 0, p+len(elem)+post)
	key = append(append(append(key, pat[:p]...), elem...), pat[p+1:p+1+post]...)
	e := x.Lookup(key)
	if e == nil {
		return nil, false
	}
	if field != nil {
		h, ok := e.Val.(*hash.Hash)
		if !ok {
			return nil, false
		}
		return h.Get(field, make([]byte, 0, 20))
	}
	s, ok := e.Val.([]byte)
	return s, ok
}

// sortPartial is Redis's pqsort: a quicksort (Bentley and McIlroy's, from
// BSD) that only recurses into the parts overlapping [lrange, rrange].
// Replies depend on its exact steps when elements compare equal, so this is
// the same algorithm on indexes.
func SortPartial(v []SortItem, cmp func(a, b *SortItem) int, lrange, rrange int) {
	swap := func(i, j int) { v[i], v[j] = v[j], v[i] }
	vecswap := func(i, j, n int) {
		for k := 0; k < n; k++ {
			swap(i+k, j+k)
		}
	}
	med3 := func(a, b, c int) int {
		if cmp(&v[a], &v[b]) < 0 {
			if cmp(&v[b], &v[c]) < 0 {
				return b
			}
			if cmp(&v[a], &v[c]) < 0 {
				return c
			}
			return a
		}
		if cmp(&v[b], &v[c]) > 0 {
			return b
		}
		if cmp(&v[a], &v[c]) < 0 {
			return a
		}
		return c
	}
	// outside reports whether [lo, lo+n) misses the wanted range entirely.
	outside := func(lo, n int) bool {
		hi := lo + n - 1
		return (lrange < lo && rrange < lo) || (lrange > hi && rrange > hi)
	}
	var qs func(a, n int)
	qs = func(a, n int) {
		for {
			if n < 7 {
				for pm := a + 1; pm < a+n; pm++ {
					for pl := pm; pl > a && cmp(&v[pl-1], &v[pl]) > 0; pl-- {
						swap(pl, pl-1)
					}
				}
				return
			}
			pm := a + n/2
			if n > 7 {
				pl, pn := a, a+n-1
				if n > 40 {
					d := n / 8
					pl = med3(pl, pl+d, pl+2*d)
					pm = med3(pm-d, pm, pm+d)
					pn = med3(pn-2*d, pn-d, pn)
				}
				pm = med3(pl, pm, pn)
			}
			swap(a, pm)
			pa, pb := a+1, a+1
			pc, pd := a+n-1, a+n-1
			for {
				for pb <= pc {
					r := cmp(&v[pb], &v[a])
					if r > 0 {
						break
					}
					if r == 0 {
						swap(pa, pb)
						pa++
					}
					pb++
				}
				for pb <= pc {
					r := cmp(&v[pc], &v[a])
					if r < 0 {
						break
					}
					if r == 0 {
						swap(pc, pd)
						pd--
					}
					pc--
				}
				if pb > pc {
					break
				}
				swap(pb, pc)
				pb++
				pc--
			}
			pn := a + n
			r := min(pa-a, pb-pa)
			vecswap(a, pb-r, r)
			r = min(pd-pc, pn-pd-1)
			vecswap(pb, pn-r, r)
			if r = pb - pa; r > 1 && !outside(a, r) {
				qs(a, r)
			}
			if r = pd - pc; r > 1 {
				a, n = pn-r, r
				if !outside(a, n) {
					continue
				}
			}
			return
		}
	}
	qs(0, len(v))
}
