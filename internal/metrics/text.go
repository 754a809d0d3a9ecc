package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// The text exposition format, version 0.0.4, written as
// github.com/prometheus/common/expfmt writes it for client_golang's
// registry: families sorted by name, empty ones left out; each sample's
// labels sorted by name and the samples sorted by those label values;
// floats in Go's shortest 'g' spelling.

// point is a histogram bucket (bound, cumulative count) or a summary
// quantile (quantile, value).
type point struct{ key, value float64 }

// sample is one series: its label values in the order of desc.labels,
// and either a value or, for histograms and summaries, points, sum and
// count.
type sample struct {
	labels     []string
	value      float64
	points     []point
	sum, count float64
}

type families struct{ m map[*desc][]sample }

func newFamilies() *families { return &families{m: make(map[*desc][]sample)} }

func (f *families) put(d *desc, v float64, labels ...string) {
	f.m[d] = append(f.m[d], sample{labels: labels, value: v})
}

func (f *families) putDist(d *desc, s sample, labels ...string) {
	s.labels = labels
	f.m[d] = append(f.m[d], s)
}

// escapers are those of the text format: HELP escapes backslash and
// newline, label values the double quote too.
var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// appendFloat spells v as expfmt does.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case v == 0: // -0 too
		return append(b, '0')
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendText appends the families whose names pass keep (nil: all).
func (f *families) appendText(b []byte, keep func(name string) bool) []byte {
	descs := make([]*desc, 0, len(f.m))
	for d, ss := range f.m {
		if len(ss) > 0 && (keep == nil || keep(d.name)) {
			descs = append(descs, d)
		}
	}
	slices.SortFunc(descs, func(a, b *desc) int { return strings.Compare(a.name, b.name) })
	for _, d := range descs {
		b = d.appendFamily(b, f.m[d])
	}
	return b
}

func (d *desc) appendFamily(b []byte, ss []sample) []byte {
	b = append(b, "# HELP "...)
	b = append(b, d.name...)
	b = append(b, ' ')
	b = append(b, helpEscaper.Replace(d.help)...)
	b = append(b, "\n# TYPE "...)
	b = append(b, d.name...)
	b = append(b, ' ')
	b = append(b, d.typ...)
	b = append(b, '\n')

	// Label names sorted, and each sample's values in that order.
	order := make([]int, len(d.labels))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(d.labels[i], d.labels[j]) })
	names := make([]string, len(order))
	for i, o := range order {
		names[i] = d.labels[o]
	}
	sorted := make([]sample, len(ss))
	for i, s := range ss {
		vals := make([]string, len(order))
		for k, o := range order {
			vals[k] = s.labels[o]
		}
		s.labels = vals
		sorted[i] = s
	}
	slices.SortStableFunc(sorted, func(a, b sample) int { return slices.Compare(a.labels, b.labels) })

	for _, s := range sorted {
		switch d.typ {
		case histogram:
			inf := false
			for _, p := range distinctPoints(s.points) {
				b = appendSample(b, d.name, "_bucket", names, s.labels, "le", p.key, p.value)
				inf = inf || math.IsInf(p.key, 1)
			}
			if !inf {
				b = appendSample(b, d.name, "_bucket", names, s.labels, "le", math.Inf(1), s.count)
			}
			b = appendSample(b, d.name, "_sum", names, s.labels, "", 0, s.sum)
			b = appendSample(b, d.name, "_count", names, s.labels, "", 0, s.count)
		case summary:
			for _, p := range distinctPoints(s.points) {
				b = appendSample(b, d.name, "", names, s.labels, "quantile", p.key, p.value)
			}
			b = appendSample(b, d.name, "_sum", names, s.labels, "", 0, s.sum)
			b = appendSample(b, d.name, "_count", names, s.labels, "", 0, s.count)
		default:
			b = appendSample(b, d.name, "", names, s.labels, "", 0, s.value)
		}
	}
	return b
}

// distinctPoints sorts points by key, the last given winning among equal
// keys: client_golang took buckets and quantiles as maps.
func distinctPoints(ps []point) []point {
	out := make([]point, 0, len(ps))
	for _, p := range ps {
		if i := slices.IndexFunc(out, func(q point) bool { return q.key == p.key }); i >= 0 {
			out[i] = p
		} else {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b point) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	return out
}

// appendSample appends one line: name+suffix, the labels and an optional
// extra one (le or quantile) whose value is a float, and the value.
func appendSample(b []byte, name, suffix string, names, vals []string, extra string, extraVal, v float64) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(names) > 0 || extra != "" {
		sep := byte('{')
		for i, n := range names {
			b = append(b, sep)
			b = append(b, n...)
			b = append(b, `="`...)
			b = append(b, labelEscaper.Replace(vals[i])...)
			b = append(b, '"')
			sep = ','
		}
		if extra != "" {
			b = append(b, sep)
			b = append(b, extra...)
			b = append(b, `="`...)
			b = appendFloat(b, extraVal)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	return append(b, '\n')
}
