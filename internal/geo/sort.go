package geo

// PartialSort orders a so that a[lo..hi] hold, in order, the elements a
// full sort would put there, as Redis's pqsort (a Bentley-McIlroy
// quicksort that skips the partitions outside lo..hi). GEOSEARCH ... COUNT
// uses it when it returns fewer matches than it found; which of equally
// distant matches come first, and in what order, depends on its exact
// sequence of comparisons and swaps, so that is reproduced here: pivot by
// median of three (ninther above 40 elements), elements equal to the pivot
// gathered at both ends and swapped to the middle, insertion sort below 7.
func PartialSort[T any](a []T, cmp func(x, y *T) int, lo, hi int) {
	pqsort(a, 0, len(a), cmp, lo, hi)
}

func med3[T any](a []T, i, j, k int, cmp func(x, y *T) int) int {
	if cmp(&a[i], &a[j]) < 0 {
		if cmp(&a[j], &a[k]) < 0 {
			return j
		}
		if cmp(&a[i], &a[k]) < 0 {
			return k
		}
		return i
	}
	if cmp(&a[j], &a[k]) > 0 {
		return j
	}
	if cmp(&a[i], &a[k]) < 0 {
		return i
	}
	return k
}

// vecswap swaps the n elements from i with the n from j.
func vecswap[T any](a []T, i, j, n int) {
	for ; n > 0; n-- {
		a[i], a[j] = a[j], a[i]
		i++
		j++
	}
}

// pqsort sorts the n elements from base; lo and hi are absolute indexes.
func pqsort[T any](a []T, base, n int, cmp func(x, y *T) int, lo, hi int) {
	for {
		if n < 7 {
			for m := base + 1; m < base+n; m++ {
				for l := m; l > base && cmp(&a[l-1], &a[l]) > 0; l-- {
					a[l], a[l-1] = a[l-1], a[l]
				}
			}
			return
		}
		m := base + n/2
		if n > 7 {
			l := base
			r := base + n - 1
			if n > 40 {
				d := n / 8
				l = med3(a, l, l+d, l+2*d, cmp)
				m = med3(a, m-d, m, m+d, cmp)
				r = med3(a, r-2*d, r-d, r, cmp)
			}
			m = med3(a, l, m, r, cmp)
		}
		a[base], a[m] = a[m], a[base]
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				c := cmp(&a[pb], &a[base])
				if c > 0 {
					break
				}
				if c == 0 {
					a[pa], a[pb] = a[pb], a[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				c := cmp(&a[pc], &a[base])
				if c < 0 {
					break
				}
				if c == 0 {
					a[pc], a[pd] = a[pd], a[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			a[pb], a[pc] = a[pc], a[pb]
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(a, base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(a, pb, pn-r, r)
		if r = pb - pa; r > 1 {
			if overlaps(base, r, lo, hi) {
				pqsort(a, base, r, cmp, lo, hi)
			}
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		base, n = pn-r, r
		if !overlaps(base, n, lo, hi) {
			return
		}
	}
}

// overlaps reports whether the n elements from base are not wholly before
// or wholly after lo..hi.
func overlaps(base, n, lo, hi int) bool {
	before := lo < base && hi < base
	after := lo >= base+n && hi >= base+n
	return !before && !after
}
