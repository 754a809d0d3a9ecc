package bitops

// LCS: the longest common subsequence of two strings by the textbook dynamic
// programme, walked back the way Redis 7.0 walks it, so that among several
// subsequences of the same length the one found, and the matched ranges
// reported, are Redis's.

// LCSCells is the number of table cells LCS needs for strings of lengths
// n and m (Redis allocates one uint32 per cell).
func LCSCells(n, m int) uint64 { return uint64(n+1) * uint64(m+1) }

// LCSLen is the length of the longest common subsequence of a and b. It
// keeps two rows of the table only.
func LCSLen(a, b []byte) int {
	prev := make([]uint32, len(b)+1)
	cur := make([]uint32, len(b)+1)
	for _, ai := range a {
		lcsRow(cur[1:], prev, ai, b)
		prev, cur = cur, prev
	}
	return int(prev[len(b)])
}

// lcsRow fills one row of the table: cur[j] is the cell for b[:j+1] (the
// row's first cell, always 0, is not in cur) and prev the whole previous
// row. The slices are cut to len(b) so the compiler drops the bounds
// checks of the inner loop, which runs len(a)*len(b) times.
func lcsRow(cur, prev []uint32, ai byte, b []byte) {
	n := len(b)
	diag, above, cur := prev[:n], prev[1:n+1], cur[:n]
	var left uint32
	for j, bj := range b {
		v := left
		if ai == bj {
			v = diag[j] + 1
		} else if above[j] > v {
			v = above[j]
		}
		cur[j] = v
		left = v
	}
}

// Match is one run of consecutive matched bytes: a[AStart..AEnd] equals
// b[BStart..BEnd] (inclusive bounds).
type Match struct {
	AStart, AEnd, BStart, BEnd int
}

// Len is the run's length.
func (m Match) Len() int { return m.AEnd - m.AStart + 1 }

// LCS returns the longest common subsequence of a and b and, walking back
// from the strings' ends, the runs it is made of, last run first, as Redis
// reports them. The table has LCSCells(len(a), len(b)) cells.
func LCS(a, b []byte) ([]byte, []Match) {
	w := len(b) + 1
	t := make([]uint32, (len(a)+1)*w)
	for i := 1; i <= len(a); i++ {
		lcsRow(t[i*w+1:(i+1)*w], t[(i-1)*w:i*w], a[i-1], b)
	}
	n := int(t[len(a)*w+len(b)])
	seq := make([]byte, n)
	var runs []Match
	open := false
	var cur Match
	i, j, k := len(a), len(b), n
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			seq[k-1] = a[i-1]
			if !open {
				cur = Match{i - 1, i - 1, j - 1, j - 1}
				open = true
			} else {
				// Consecutive matches on the way back always extend the
				// run: a match right after a mismatch step starts afresh
				// because the mismatch closed the run.
				cur.AStart, cur.BStart = i-1, j-1
			}
			if cur.AStart == 0 || cur.BStart == 0 {
				emit = true
			}
			i, j, k = i-1, j-1, k-1
		} else {
			if t[(i-1)*w+j] > t[i*w+j-1] {
				i--
			} else {
				j--
			}
			emit = open
		}
		if emit {
			runs = append(runs, cur)
			open = false
		}
	}
	return seq, runs
}
