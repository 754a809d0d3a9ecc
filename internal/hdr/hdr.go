// Package hdr is a High Dynamic Range histogram with the bucket layout,
// percentile rule and logarithmic iteration of the C hdr_histogram Redis
// 7.0 vendors (deps/hdr_histogram), so that percentiles and LATENCY
// HISTOGRAM buckets computed from the same samples come out as Redis's.
// Only what Redis uses is here: record, value at percentile, and the
// logarithmic iterator. Not safe for concurrent use.
package hdr

import (
	"math"
	"math/bits"
)

// Histogram counts values between Lowest and Highest with Sig significant
// decimal digits of precision.
type Histogram struct {
	unitMagnitude        int32
	subBucketHalfCountMg int32
	subBucketHalfCount   int32
	subBucketCount       int32
	subBucketMask        int64
	counts               []int64
	total                int64
}

// New returns an empty histogram; lowest >= 1, 1 <= sig <= 5 and
// highest >= 2*lowest, as hdr_init requires (it panics otherwise: the
// bounds are the program's constants, not input).
func New(lowest, highest int64, sig int) *Histogram {
	if lowest < 1 || sig < 1 || sig > 5 || lowest*2 > highest {
		panic("hdr: invalid bounds")
	}
	largest := 2 * int64(math.Pow10(sig))
	mag := int32(math.Ceil(math.Log(float64(largest)) / math.Log(2)))
	h := &Histogram{}
	h.subBucketHalfCountMg = max(mag, 1) - 1
	h.unitMagnitude = int32(math.Log(float64(lowest)) / math.Log(2))
	h.subBucketCount = 1 << (h.subBucketHalfCountMg + 1)
	h.subBucketHalfCount = h.subBucketCount / 2
	h.subBucketMask = int64(h.subBucketCount-1) << h.unitMagnitude
	buckets := int32(1)
	for v := int64(h.subBucketCount) << h.unitMagnitude; v <= highest; v <<= 1 {
		if v > math.MaxInt64/2 {
			buckets++
			break
		}
		buckets++
	}
	h.counts = make([]int64, (buckets+1)*h.subBucketHalfCount)
	return h
}

func (h *Histogram) bucketIndex(v int64) int32 {
	pow2ceiling := int32(64 - bits.LeadingZeros64(uint64(v|h.subBucketMask)))
	return pow2ceiling - h.unitMagnitude - (h.subBucketHalfCountMg + 1)
}

func (h *Histogram) subBucketIndex(v int64, bucket int32) int32 {
	return int32(v >> (bucket + h.unitMagnitude))
}

func (h *Histogram) countsIndex(v int64) int32 {
	b := h.bucketIndex(v)
	sb := h.subBucketIndex(v, b)
	return (b+1)<<h.subBucketHalfCountMg + sb - h.subBucketHalfCount
}

func (h *Histogram) valueAtIndex(i int32) int64 {
	b := i>>h.subBucketHalfCountMg - 1
	sb := i&(h.subBucketHalfCount-1) + h.subBucketHalfCount
	if b < 0 {
		sb -= h.subBucketHalfCount
		b = 0
	}
	return int64(sb) << (b + h.unitMagnitude)
}

func (h *Histogram) rangeSize(v int64) int64 {
	b := h.bucketIndex(v)
	if h.subBucketIndex(v, b) >= h.subBucketCount {
		b++
	}
	return 1 << (h.unitMagnitude + b)
}

func (h *Histogram) lowestEquivalent(v int64) int64 {
	b := h.bucketIndex(v)
	return int64(h.subBucketIndex(v, b)) << (b + h.unitMagnitude)
}

func (h *Histogram) highestEquivalent(v int64) int64 {
	return h.lowestEquivalent(v) + h.rangeSize(v) - 1
}

// Record counts v once; a value out of range is dropped (false), as
// hdr_record_value does. Callers clamp first, as Redis does.
func (h *Histogram) Record(v int64) bool {
	if v < 0 {
		return false
	}
	i := h.countsIndex(v)
	if i < 0 || int(i) >= len(h.counts) {
		return false
	}
	h.counts[i]++
	h.total++
	return true
}

// Total is the number of values recorded.
func (h *Histogram) Total() int64 { return h.total }

// Reset forgets every value.
func (h *Histogram) Reset() {
	clear(h.counts)
	h.total = 0
}

// ValueAtPercentile is hdr_value_at_percentile: the highest value
// equivalent to the one at the percentile's rank (the lowest for 0).
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	req := min(p, 100.0)
	want := int64(req/100*float64(h.total) + 0.5)
	want = max(want, 1)
	var v int64
	var sum int64
	for i := range h.counts {
		sum += h.counts[i]
		if sum >= want {
			v = h.valueAtIndex(int32(i))
			break
		}
	}
	if p == 0 {
		return h.lowestEquivalent(v)
	}
	return h.highestEquivalent(v)
}

// LogBucket is one step of the logarithmic iteration: the highest value
// equivalent to the last counted value, and the count of values up to it.
type LogBucket struct {
	HighestEquivalent int64
	Cumulative        int64
}

// LogBuckets walks the histogram as hdr_iter_log_init(first, base) and
// hdr_iter_next do, returning every step (empty ones too: the caller
// filters, as Redis's fillCommandCDF does).
func (h *Histogram) LogBuckets(first int64, base float64) []LogBucket {
	var out []LogBucket
	idx := int32(-1)
	var cum, value, highest int64
	next := first
	nextLowest := h.lowestEquivalent(next)
	n := int32(len(h.counts))
	moveNext := func() bool {
		idx++
		if idx >= n {
			return false
		}
		cum += h.counts[idx]
		value = h.valueAtIndex(idx)
		highest = h.lowestEquivalent(value) + h.rangeSize(value) - 1
		return true
	}
	for {
		hasNext := cum < h.total
		if !hasNext && !(idx < n && h.valueAtIndex(idx+1) > nextLowest) {
			return out
		}
		for {
			if value >= nextLowest {
				next = int64(float64(next) * base)
				nextLowest = h.lowestEquivalent(next)
				break
			}
			if !moveNext() {
				break
			}
		}
		out = append(out, LogBucket{HighestEquivalent: highest, Cumulative: cum})
		if idx >= n {
			return out
		}
	}
}
