package stream

import (
	"math"
	"testing"
)

func TestParseID(t *testing.T) {
	const max = math.MaxUint64
	tests := []struct {
		arg     string
		missing uint64
		strict  bool
		want    ID
		err     bool
	}{
		{arg: "1-2", want: ID{1, 2}},
		{arg: "5", want: ID{5, 0}},
		{arg: "5", missing: max, want: ID{5, max}},
		{arg: "-", want: ID{}},
		{arg: "+", want: MaxID},
		{arg: "-", strict: true, err: true},
		{arg: "+", strict: true, err: true},
		{arg: "18446744073709551615-18446744073709551615", want: MaxID},
		{arg: "18446744073709551616-0", err: true},
		{arg: "1-18446744073709551616", err: true},
		{arg: "", err: true},
		{arg: "-5", err: true},               // the ms part is empty
		{arg: "1--5", err: true},             // string2ll reads -5: negative
		{arg: "1--05", want: ID{1, max - 4}}, // strtoull's wrap-around, as Redis
		{arg: "007-1", want: ID{7, 1}},       // strtoull takes leading zeros
		{arg: " 7-+1", want: ID{7, 1}},       // and spaces and a '+'
		{arg: "7 -1", err: true},
		{arg: "1-2-3", err: true},
		{arg: "1-*", err: true}, // only XADD takes ms-*
		{arg: "abc", err: true},
		{arg: "1-2\x00junk", want: ID{1, 2}}, // a C string ends at NUL
		{arg: string(make([]byte, 128)), err: true},
	}
	for _, tc := range tests {
		var got ID
		var err error
		if tc.strict {
			got, err = ParseStrictID(tc.arg, tc.missing)
		} else {
			got, err = ParseID(tc.arg, tc.missing)
		}
		if (err != nil) != tc.err || (err == nil && got != tc.want) {
			t.Errorf("parse %q (strict %v): got %v, %v; want %v, err %v", tc.arg, tc.strict, got, err, tc.want, tc.err)
		}
		if err != nil && err != ErrInvalidID {
			t.Errorf("parse %q: error %v", tc.arg, err)
		}
	}
}

func TestParseAddID(t *testing.T) {
	tests := []struct {
		arg  string
		want AddID
		err  bool
	}{
		{arg: "*", want: AddID{Auto: true}},
		{arg: "5-*", want: AddID{ID: ID{5, 0}, SeqAuto: true}},
		{arg: "5-3", want: AddID{ID: ID{5, 3}}},
		{arg: "5", want: AddID{ID: ID{5, 0}}},
		{arg: "-", err: true},
		{arg: "+", err: true},
		{arg: "*-1", err: true},
		{arg: "**", err: true},
	}
	for _, tc := range tests {
		got, err := ParseAddID(tc.arg)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: got %+v, %v", tc.arg, got, err)
		}
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		arg       string
		start     bool
		want      ID
		wantError error
	}{
		{arg: "(1-1", start: true, want: ID{1, 2}},
		{arg: "(1-18446744073709551615", start: true, want: ID{2, 0}},
		{arg: "(18446744073709551615-18446744073709551615", start: true, wantError: ErrStartInterval},
		{arg: "(1-0", want: ID{0, math.MaxUint64}},
		{arg: "(0-0", wantError: ErrEndInterval},
		{arg: "(5", want: ID{5, math.MaxUint64 - 1}},
		{arg: "(5", start: true, want: ID{5, 1}},
		{arg: "(-", start: true, wantError: ErrInvalidID},
		{arg: "(+", wantError: ErrInvalidID},
		{arg: "(", start: true, wantError: ErrInvalidID},
		{arg: "5", want: ID{5, math.MaxUint64}},
		{arg: "-", start: true, want: ID{}},
	}
	for _, tc := range tests {
		var got ID
		var err error
		if tc.start {
			got, err = ParseRangeStart(tc.arg)
		} else {
			got, err = ParseRangeEnd(tc.arg)
		}
		if err != tc.wantError || got != tc.want {
			t.Errorf("%q (start %v): got %v, %v; want %v, %v", tc.arg, tc.start, got, err, tc.want, tc.wantError)
		}
	}
}

func TestIDIncrDecrFormat(t *testing.T) {
	tests := []struct {
		id         ID
		incr, decr ID
		incrOK     bool
		decrOK     bool
		str        string
	}{
		{ID{1, 1}, ID{1, 2}, ID{1, 0}, true, true, "1-1"},
		{ID{1, math.MaxUint64}, ID{2, 0}, ID{1, math.MaxUint64 - 1}, true, true, "1-18446744073709551615"},
		{ID{1, 0}, ID{1, 1}, ID{0, math.MaxUint64}, true, true, "1-0"},
		{MaxID, ID{}, ID{math.MaxUint64, math.MaxUint64 - 1}, false, true, "18446744073709551615-18446744073709551615"},
		{ID{}, ID{0, 1}, MaxID, true, false, "0-0"},
	}
	for _, tc := range tests {
		if got, ok := tc.id.Incr(); got != tc.incr || ok != tc.incrOK {
			t.Errorf("%v.Incr() = %v, %v", tc.id, got, ok)
		}
		if got, ok := tc.id.Decr(); got != tc.decr || ok != tc.decrOK {
			t.Errorf("%v.Decr() = %v, %v", tc.id, got, ok)
		}
		if tc.id.String() != tc.str {
			t.Errorf("String() = %q", tc.id.String())
		}
		k := tc.id.Key()
		if IDFromKey(k[:]) != tc.id {
			t.Errorf("%v: key round trip", tc.id)
		}
	}
	if (ID{1, 5}).Compare(ID{2, 0}) != -1 || (ID{2, 0}).Compare(ID{1, 9}) != 1 || (ID{3, 3}).Compare(ID{3, 3}) != 0 {
		t.Error("Compare")
	}
}
