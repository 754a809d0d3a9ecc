package num

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Expected values below come from Redis 7.0.15 on x86-64 (glibc); the
// command run is in each comment.

func TestParseFloat(t *testing.T) {
	bad := math.NaN() // marks "ERR value is not a valid float"
	tests := []struct {
		in   string
		want float64
	}{
		// ZADD k <in> a; ZSCORE k a
		{"0x10", 16},
		{" 1", bad},
		{"1 ", bad},
		{"1\t", bad},
		{"\t1", bad},
		{"1e400", bad},
		{"-1e400", bad},
		{"1e-400", bad},
		{"-1e-400", bad},
		{"0e-400", 0},
		{"0e99999999999999999999", 0},
		{"1_0", bad},
		{"1__0", bad},
		{"0x_1", bad},
		{"0x1_0", bad},
		{".5", 0.5},
		{"5.", 5},
		{"+5", 5},
		{"-5", -5},
		{"", bad},
		{".", bad},
		{"-", bad},
		{"+", bad},
		{"+-1", bad},
		{"nan", bad},
		{"-nan", bad},
		{"NaN", bad},
		{"nan(123)", bad},
		{"inf", math.Inf(1)},
		{"-inf", math.Inf(-1)},
		{"+inf", math.Inf(1)},
		{"Infinity", math.Inf(1)},
		{"-INFINITY", math.Inf(-1)},
		{"infin", bad},
		{"infinityx", bad},
		{"0x1p3", 8},
		{"0X1.8P1", 3},
		{"0x", bad},
		{"0x.", bad},
		{"0x.8", 0.5},
		{"0x1p", bad},
		{"0x1p+", bad},
		{"-0x1p-1", -0.5},
		{"0x1P-1074", 5e-324},
		{"0x1p-1080", bad},
		{"0x1p1024", bad},
		{"1e", bad},
		{"1e+", bad},
		{"1e+2", 100},
		{"1E2", 100},
		{"1e-310", 1e-310},
		{"2.4e-324", bad},
		{"2.5e-324", 5e-324},
		{"1.7976931348623158e308", math.MaxFloat64},
		{"1.7976931348623159e308", bad},
		{"0b1", bad},
		{"0o7", bad},
		{"1\x00", bad},
		{"1700000000000", 1700000000000},
		{"123456789012345678", 123456789012345678},
		{"9007199254740993", 9007199254740992},
		{"000000000000000000000000000001", 1},
	}
	for _, tt := range tests {
		got, ok := ParseFloat([]byte(tt.in))
		if math.IsNaN(tt.want) {
			if ok {
				t.Errorf("ParseFloat(%q) = %v, true; want rejection", tt.in, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
	if f, ok := ParseFloat([]byte("-0")); !ok || f != 0 || !math.Signbit(f) {
		t.Errorf("ParseFloat(-0) = %v, %v; want -0", f, ok)
	}
}

func TestParseStrtod(t *testing.T) {
	bad := math.NaN() // "ERR min or max is not a float"
	tests := []struct {
		in   string
		want float64
	}{
		// ZADD k 0 z 1 a 2 b 1e300 big -1 neg; ZRANGEBYSCORE k <in> +inf
		{"", 0},
		{"(((1", bad}, // as "((1" after the '(' the range parser strips
		{" 1", 1},
		{"\t2", 2},
		{"   ", bad},
		{"1 ", bad},
		{"1e400", math.Inf(1)},
		{"-1e400", math.Inf(-1)},
		{"1e-400", 0},
		{"0x10", 16},
		{"1_0", bad},
		{"nan", bad},
		{"+inf", math.Inf(1)},
		{"infinity", math.Inf(1)},
		{"+1", 1},
		{".5", 0.5},
		{"1e", bad},
		{"-", bad},
		{"1\x00abc", 1}, // strtod stops at the NUL
		{"\x00abc", 0},
	}
	for _, tt := range tests {
		got, ok := ParseStrtod([]byte(tt.in))
		if math.IsNaN(tt.want) {
			if ok {
				t.Errorf("ParseStrtod(%q) = %v, true; want rejection", tt.in, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("ParseStrtod(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		// ZADD k <in> a; ZSCORE k a
		{1.1, "1.1000000000000001"},
		{3, "3"},
		{1e20, "1e+20"},
		{1e21, "1e+21"},
		{1e-5, "1.0000000000000001e-05"},
		{0.0001, "0.0001"},
		{1700000000000, "1700000000000"},
		{123456789012345678, "1.2345678901234568e+17"},
		{5e-324, "4.9406564584124654e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{0.1, "0.10000000000000001"},
		{0.3, "0.29999999999999999"},
		{100, "100"},
		{1e15, "1000000000000000"},
		{1e16, "10000000000000000"},
		{1e17, "1e+17"},
		{12345678901234567, "12345678901234568"},
		{-1.5, "-1.5"},
		{2.5e-5, "2.5000000000000001e-05"},
		{1e100, "1e+100"},
		{-1e-100, "-1e-100"},
		{33.333333333333336, "33.333333333333336"},
		{9007199254740993, "9007199254740992"},
		{0.000123, "0.00012300000000000001"},
		{123456.789, "123456.789"},
		{math.Inf(-1), "-inf"},
		{math.Inf(1), "inf"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{1e22, "1e+22"},
		{1e23, "9.9999999999999992e+22"},
		{1e-310, "9.9999999999999694e-311"},
		{0, "0"},
		// CONFIG SET zset-max-listpack-entries 0; ZADD k -0 a; ZSCORE k a
		// (with the default listpack encoding Redis stores -0 as integer 0
		// and answers "0": that is the zset package's business).
		{math.Copysign(0, -1), "-0"},
	}
	for _, tt := range tests {
		if got := FormatFloat(tt.in); got != tt.want {
			t.Errorf("AppendFloat(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// incrbyfloat is INCRBYFLOAT's arithmetic on two texts.
func incrbyfloat(cur, incr string) string {
	a, ok1 := ParseLongDouble([]byte(cur))
	b, ok2 := ParseLongDouble([]byte(incr))
	if !ok1 || !ok2 {
		return "ERR value is not a valid float"
	}
	s, ok := AddLongDouble(a, b)
	if !ok {
		return "ERR increment would produce NaN or Infinity"
	}
	return FormatLongDoubleHuman(s)
}

func TestIncrByFloat(t *testing.T) {
	const dblMax = "179769313486231569995921046774104434048386446944329178485314420765176628523124396354701868608387085564428793419425520689308708363451136055357897278026477617073498977686288394835618163294045594434929537447290627480669417384648879122776218333598953852832103282504751611691208117720159985926376802466863339536384"
	const twoE308 = "199999999999999999993371759311691291321120199694831134415594095989843469737676123744200253843777078640893494450108026446304269499187921167194841628860392837535918200039206381557326219209014213335878306791577877829121087126122536729803237260434173178506889763247582601711514636284849020905456510092687857156096"
	tests := []struct{ cur, incr, want string }{
		// SET x <cur>; INCRBYFLOAT x <incr>
		{"0", "0.1", "0.1"},
		{"0.1", "0.2", "0.3"},
		{"10.5", "0.1", "10.6"},
		{"10.6", "5.0e3", "5010.60000000000000009"},
		{"5010.6", "-5", "5005.60000000000000009"},
		{"0", "1e30", "1000000000000000000024696061952"},
		{"0", "-1e30", "-1000000000000000000024696061952"},
		{"1", "1e-17", "1.00000000000000001"},
		{"1", "1e-18", "1"},
		{"0", "1e-17", "0.00000000000000001"},
		{"0", "5e-18", "0"},
		{"0", "-5e-18", "0"},
		{"0", "0x1p-18", "0.00000381469726562"}, // a tie, rounded to even
		{"3.0e3", "1.5", "3001.5"},
		{"-0", "-0", "0"},
		{"0", "-0", "0"},
		{"1", "-1", "0"},
		{"0", "1.7976931348623157e308", dblMax},
		{"1e308", "1e308", twoE308},
		{"0", "123456789012345678901234567890", "123456789012345678899921813504"},
		{"0", "0.30000000000000004", "0.30000000000000004"},
		{"1.18e4932", "1.18e4932", "ERR increment would produce NaN or Infinity"},
		{"inf", "-inf", "ERR increment would produce NaN or Infinity"},
		{"inf", "1", "ERR increment would produce NaN or Infinity"},
		{"0", "1e-4951", "ERR value is not a valid float"},
		{"0", "0x1p-16445", "0"},
		{"0", "0x1p-16446", "ERR value is not a valid float"}, // tie to 0
		{"0", "0x1.8p-16446", "0"},
		{"1.5", "0x1.8p1", "4.5"},
		{"99999999999999999999", "1", "100000000000000000000"},
		{"0", "0.1e-10", "0.00000000001"},
		{"0", "18446744073709551617", "18446744073709551616"},
		{"0", "18446744073709551615", "18446744073709551615"},
		{"0", "36893488147419103235", "36893488147419103236"},
		{"2", "3", "5"},
		{"0", "1.0000000000000000000000001", "1"},
		{"0", "0.99999999999999999999", "1"},
		{"0", "12.345e-2", "0.12345"},
		{"1", "-1.00000000000000000001", "0"},
		{"0", "0x10", "16"},
		{"0", "1_0", "ERR value is not a valid float"},
		{" 1", "1", "ERR value is not a valid float"},
		{"1e-400", "0", "0"},
		{"0", "0x1.ffffffffffffffffp16383", "ERR value is not a valid float"},
		{"0", "1.18973149535723176515e4932", "ERR value is not a valid float"},
		{"0", "1e4933", "ERR value is not a valid float"},
		{"0", "1e5000", "ERR value is not a valid float"},
		{"0", "nan", "ERR value is not a valid float"},
		{"0", "", "ERR value is not a valid float"},
	}
	for _, tt := range tests {
		if got := incrbyfloat(tt.cur, tt.incr); got != tt.want {
			t.Errorf("SET x %q; INCRBYFLOAT x %q = %q; want %q", tt.cur, tt.incr, got, tt.want)
		}
	}

	// SET x 0; then INCRBYFLOAT x 0.1 ten times: 0.1 0.2 ... 0.9 1
	cur := "0"
	for i := 1; i <= 10; i++ {
		cur = incrbyfloat(cur, "0.1")
		want := strconv.FormatFloat(float64(i)/10, 'f', -1, 64)
		if cur != want {
			t.Fatalf("step %d: %q; want %q", i, cur, want)
		}
	}
	// SET x 1; INCRBYFLOAT x 1e308 prints 309 digits.
	if got := incrbyfloat("1", "1e308"); !strings.HasPrefix(got, "99999999999999999996685879655845645660") || len(got) != 308 {
		t.Errorf("1 + 1e308 = %q", got)
	}
	// SET x 0; INCRBYFLOAT x 1.18e4932 (4933 digits); x -1.18e4932 (4934).
	got := incrbyfloat("0", "1.18e4932")
	if len(got) != 4933 || !strings.HasPrefix(got, "1180000000000000000000652812918093699202") ||
		!strings.HasSuffix(got, "5351070887222606896512585853888628785152") {
		t.Errorf("0 + 1.18e4932 = %d bytes %.40q...", len(got), got)
	}
	if got := incrbyfloat("0", "-1.18e4932"); len(got) != 4934 {
		t.Errorf("0 - 1.18e4932 = %d bytes", len(got))
	}
	// LDBL_MAX: SET x 0; INCRBYFLOAT x 0x1.fffffffffffffffep16383 (4933 digits)
	if got := incrbyfloat("0", "0x1.fffffffffffffffep16383"); len(got) != 4933 || !strings.HasPrefix(got, "118973149535723176502126385303") {
		t.Errorf("LDBL_MAX = %d bytes %.30q", len(got), got)
	}
	if got := incrbyfloat("0", "1.1897314953572317650e4932"); !strings.HasPrefix(got, "118973149535723176502126385303") {
		t.Errorf("1.1897314953572317650e4932 = %.30q", got)
	}

	// string2ld refuses texts of 5120 bytes or more:
	// SET x 0000...01 (5119 bytes); INCRBYFLOAT x 1 -> 2; with 5120 -> ERR.
	if got := incrbyfloat(strings.Repeat("0", 5118)+"1", "1"); got != "2" {
		t.Errorf("5119-byte value: %q", got)
	}
	if got := incrbyfloat(strings.Repeat("0", 5119)+"1", "1"); got != "ERR value is not a valid float" {
		t.Errorf("5120-byte value: %q", got)
	}
}

func TestAddLongDoubleSigns(t *testing.T) {
	nz, _ := ParseLongDouble([]byte("-0"))
	pz, _ := ParseLongDouble([]byte("0"))
	one, _ := ParseLongDouble([]byte("1"))
	mone, _ := ParseLongDouble([]byte("-1"))
	if s, _ := AddLongDouble(nz, nz); !s.Signbit() || s.Sign() != 0 {
		t.Errorf("-0 + -0 = %v", s)
	}
	if s, _ := AddLongDouble(nz, pz); s.Signbit() {
		t.Errorf("-0 + 0 = -0")
	}
	if s, _ := AddLongDouble(one, mone); s.Signbit() || s.Sign() != 0 {
		t.Errorf("1 + -1 = %v", s)
	}
	if s, _ := AddLongDouble(mone, nz); s.Cmp(mone) != 0 {
		t.Errorf("-1 + -0 = %v", s)
	}
}

// The C oracle: with LIMITKV_C_ORACLE=1 on linux/amd64 with gcc, the tests
// below (and FuzzParseFloat) compare with glibc itself, through a small C
// program doing exactly what Redis's string2d, zslParseRange, string2ld,
// ld2string and "%.17g" do.

const oracleC = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <ctype.h>
static int string2d(const char *s, size_t slen, double *dp) {
    errno = 0; char *eptr; *dp = strtod(s, &eptr);
    if (slen == 0 || isspace(((const char*)s)[0]) || (size_t)(eptr-(char*)s) != slen ||
        (errno == ERANGE && (*dp == HUGE_VAL || *dp == -HUGE_VAL || fpclassify(*dp) == FP_ZERO)) || isnan(*dp)) return 0;
    return 1;
}
static int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[5*1024]; long double value; char *eptr;
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf,s,slen); buf[slen] = '\0';
    errno = 0; value = strtold(buf, &eptr);
    if (isspace(buf[0]) || eptr[0] != '\0' || (size_t)(eptr-buf) != slen ||
        (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL || fpclassify(value) == FP_ZERO)) || isnan(value)) return 0;
    if (dp) *dp = value; return 1;
}
static void human(long double value, char *buf, size_t len) {
    size_t l;
    if (isinf(value)) { strcpy(buf, value>0?"inf":"-inf"); return; }
    l = snprintf(buf,len,"%.17Lf",value);
    if (strchr(buf,'.') != NULL) { char *p = buf+l-1; while(*p == '0') { p--; l--; } if (*p == '.') l--; }
    if (l == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; l = 1; }
    buf[l] = 0;
}
static size_t unhex(char *s) {
    size_t n = strlen(s), j = 0;
    for (size_t i = 0; i < n; i += 2) { unsigned v; sscanf(s+i, "%2x", &v); s[j++] = (char)v; }
    s[j] = 0; return j;
}
static char line[1<<16], out[1<<15];
int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line); if (n && line[n-1]=='\n') line[--n]=0;
        char mode = line[0]; char *arg = line+2; size_t alen;
        if (mode == 'D') { alen = unhex(arg); double d; if (string2d(arg, alen, &d)) printf("%a\n", d); else printf("BAD\n"); }
        else if (mode == 'S') { unhex(arg); char *e; double d = strtod(arg, &e); if (e[0] != 0 || isnan(d)) printf("BAD\n"); else printf("%a\n", d); }
        else if (mode == 'L') { alen = unhex(arg); long double d; if (string2ld(arg, alen, &d)) { human(d, out, sizeof out); printf("%s\n", out);} else printf("BAD\n"); }
        else if (mode == 'G') { double d = strtod(arg, NULL); printf("%.17g\n", d); }
        else if (mode == 'A') { char *sp = strchr(arg, ' '); *sp = 0; alen = unhex(arg); unhex(sp+1);
            long double a = strtold(arg, NULL), b = strtold(sp+1, NULL); long double s = a + b;
            if (isnan(s) || isinf(s)) printf("BAD\n"); else { human(s, out, sizeof out); printf("%s\n", out);} }
        fflush(stdout);
    }
    return 0;
}
`

type cOracle struct {
	mu  sync.Mutex
	in  *bufio.Writer
	out *bufio.Reader
}

var (
	oracleOnce sync.Once
	oracle     *cOracle
)

func getOracle(tb testing.TB) *cOracle {
	if os.Getenv("LIMITKV_C_ORACLE") == "" || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		tb.Skip("set LIMITKV_C_ORACLE=1 (linux/amd64, gcc) to compare with glibc")
	}
	oracleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "numoracle")
		if err != nil {
			return
		}
		src := filepath.Join(dir, "oracle.c")
		bin := filepath.Join(dir, "oracle")
		if os.WriteFile(src, []byte(oracleC), 0o600) != nil {
			return
		}
		if out, err := exec.Command("gcc", "-O2", "-o", bin, src, "-lm").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "gcc: %v\n%s", err, out)
			return
		}
		cmd := exec.Command(bin)
		w, _ := cmd.StdinPipe()
		r, _ := cmd.StdoutPipe()
		if cmd.Start() != nil {
			return
		}
		oracle = &cOracle{in: bufio.NewWriter(w), out: bufio.NewReaderSize(r, 1<<16)}
	})
	if oracle == nil {
		tb.Skip("C oracle unavailable")
	}
	return oracle
}

func (o *cOracle) ask(mode byte, args ...string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.in.WriteByte(mode)
	for _, a := range args {
		o.in.WriteByte(' ')
		if mode == 'G' {
			o.in.WriteString(a)
		} else {
			o.in.WriteString(hex.EncodeToString([]byte(a)))
		}
	}
	o.in.WriteByte('\n')
	o.in.Flush()
	line, _ := o.out.ReadString('\n')
	return strings.TrimSuffix(line, "\n")
}

// checkAgainstC compares every parser with glibc on one text.
func checkAgainstC(t testing.TB, o *cOracle, s string) {
	if strings.IndexByte(s, '\n') >= 0 || len(s) > 6000 {
		return
	}
	fmtHex := func(f float64, ok bool) string {
		if !ok {
			return "BAD"
		}
		return strconv.FormatFloat(f, 'x', -1, 64)
	}
	cHex := func(c string) string { // glibc's %a to Go's 'x' form
		if c == "BAD" || c == "inf" || c == "-inf" {
			return c
		}
		f, err := strconv.ParseFloat(c, 64)
		if err != nil {
			t.Fatalf("oracle said %q", c)
		}
		return strconv.FormatFloat(f, 'x', -1, 64)
	}
	if !strings.Contains(s, "\x00") {
		// The oracle's string2d gets s NUL-terminated, like an sds.
		f, ok := ParseFloat([]byte(s))
		got, want := fmtHex(f, ok), cHex(o.ask('D', s))
		if ok && math.IsInf(f, 0) {
			got = map[bool]string{true: "-inf", false: "inf"}[f < 0]
		}
		if got != want {
			t.Errorf("ParseFloat(%q) = %s; glibc %s", s, got, want)
		}
		f, ok = ParseStrtod([]byte(s))
		got, want = fmtHex(f, ok), cHex(o.ask('S', s))
		if ok && math.IsInf(f, 0) {
			got = map[bool]string{true: "-inf", false: "inf"}[f < 0]
		}
		if got != want {
			t.Errorf("ParseStrtod(%q) = %s; glibc %s", s, got, want)
		}
		ld, ok := ParseLongDouble([]byte(s))
		got = "BAD"
		if ok {
			got = FormatLongDoubleHuman(ld)
		}
		if want := o.ask('L', s); got != want {
			t.Errorf("ParseLongDouble(%q) = %s; glibc %s", s, got, want)
		}
	}
}

// randomFloatText makes texts near the edges of the grammar and of the
// ranges.
func randomFloatText(r *rand.Rand) string {
	var b strings.Builder
	pick := func(s string) { b.WriteByte(s[r.Intn(len(s))]) }
	switch r.Intn(10) {
	case 0: // anything from a small alphabet
		for n := r.Intn(8); n > 0; n-- {
			pick("0123456789.eEpPxX+- \tinfatyINF_\x00")
		}
	case 1: // hex
		if r.Intn(2) == 0 {
			pick("+-")
		}
		b.WriteString("0x")
		for n := r.Intn(20); n > 0; n-- {
			pick("0123456789abcdefABCDEF")
		}
		if r.Intn(2) == 0 {
			b.WriteByte('.')
			for n := r.Intn(20); n > 0; n-- {
				pick("0123456789abcdef")
			}
		}
		if r.Intn(2) == 0 {
			fmt.Fprintf(&b, "p%d", r.Intn(33000)-16500)
		}
	case 2: // printed doubles of all magnitudes
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			f = 1
		}
		b.WriteString(strconv.FormatFloat(f, 'g', r.Intn(25)-1, 64))
	case 3: // long decimal mantissas near ties
		for n := 1 + r.Intn(40); n > 0; n-- {
			pick("0123456789")
		}
		if r.Intn(2) == 0 {
			b.WriteByte('.')
			for n := r.Intn(40); n > 0; n-- {
				pick("05999")
			}
		}
	default: // decimal with exponent near the limits
		if r.Intn(3) == 0 {
			pick("+-")
		}
		for n := 1 + r.Intn(25); n > 0; n-- {
			pick("0123456789")
		}
		if r.Intn(2) == 0 {
			b.WriteByte('.')
			for n := r.Intn(25); n > 0; n-- {
				pick("0123456789")
			}
		}
		exps := []int{0, 300, 308, -300, -308, -320, -324, 4930, 4932, -4950, -4951, 20}
		fmt.Fprintf(&b, "e%d", exps[r.Intn(len(exps))]+r.Intn(30)-15)
	}
	return b.String()
}

func TestFloatAgainstC(t *testing.T) {
	o := getOracle(t)
	seed := int64(1)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 30000; i++ {
		checkAgainstC(t, o, randomFloatText(r))
		if t.Failed() {
			t.Fatalf("seed %d, iteration %d", seed, i)
		}
	}
	// %.17g
	for i := 0; i < 30000; i++ {
		f := math.Float64frombits(r.Uint64())
		if i%2 == 0 {
			f = math.Round(f*1e6) / float64(r.Intn(1000)+1)
		}
		if math.IsNaN(f) {
			continue
		}
		hexs := strconv.FormatFloat(f, 'x', -1, 64)
		if got, want := FormatFloat(f), o.ask('G', hexs); got != want {
			t.Fatalf("AppendFloat(%v) = %q; glibc %q", f, got, want)
		}
	}
	// long double sums
	for i := 0; i < 20000; i++ {
		a, b := randomFloatText(r), randomFloatText(r)
		fa, ok1 := ParseLongDouble([]byte(a))
		fb, ok2 := ParseLongDouble([]byte(b))
		if !ok1 || !ok2 {
			continue
		}
		got := "BAD"
		if s, ok := AddLongDouble(fa, fb); ok {
			got = FormatLongDoubleHuman(s)
		}
		if want := o.ask('A', a, b); got != want {
			t.Fatalf("%q + %q = %q; glibc %q", a, b, got, want)
		}
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{
		"0x10", " 1", "1 ", "1e400", "1_0", ".5", "5.", "+5", "", "1e-400",
		"nan", "-nan", "inf", "-Infinity", "0x1p3", "0X1.8P1", "0x", "0x1p",
		"1e", "0x1P-1074", "2.5e-324", "1.7976931348623159e308", "(1",
		"0x1.fffffffffffffffep16383", "1e-4951", "0x1.8p-16446",
		"123456789012345678901234567890", "1\x00", "\x00", "0e999999999999",
		"-0", "0x.8", "9007199254740993", "0.000000000000000000000000000001e-300",
		// found by fuzzing against glibc: long mantissas, ties, huge exponents
		"4.9406564584124654e-324", "2.4703282292062328e-324",
		"2.4703282292062327e-324", "0x1.00000000000008p0", "0x1.000000000000080000001p0",
		"1.00000000000000000054210108624275221700372640043497085571289062500",
		"0x0.0000000000000000000000000000000000001p-16300",
		"00000000000000000000000000000000000000000000000000000000000000000000001e-4951",
		"0X1p16382", "0X11P-1077", "Infinit0", "\v\v\v\v", "1e-10000", "0X1P-100000",
		"0XA\x00", "0X.0000C", "1e4932", "-1e-4952",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseFloat(b)
		if ok {
			if math.IsNaN(v) {
				t.Fatalf("ParseFloat(%q) = NaN", b)
			}
			// Every accepted text parses the same as bare strtod.
			if w, ok2 := ParseStrtod(b); !ok2 || w != v {
				t.Fatalf("ParseFloat(%q) = %v but ParseStrtod = %v, %v", b, v, w, ok2)
			}
			// What Redis prints reads back to the same double.
			if w, ok2 := ParseFloat(AppendFloat(nil, v)); !ok2 || w != v {
				t.Fatalf("%v printed as %q reads back as %v, %v", v, AppendFloat(nil, v), w, ok2)
			}
			// Anything string2d takes, string2ld takes too (it has the
			// wider range) unless too long.
			if _, ok2 := ParseLongDouble(b); !ok2 && len(b) < maxLongDoubleChars {
				t.Fatalf("ParseFloat(%q) ok but ParseLongDouble refuses", b)
			}
		}
		if ld, ok := ParseLongDouble(b); ok {
			s := FormatLongDoubleHuman(ld)
			if ld.IsInf() {
				return
			}
			// The human form parses back (to a value within 1e-17).
			back, ok2 := ParseLongDouble([]byte(s))
			if !ok2 && !strings.HasPrefix(s, "0") && s != "0" {
				t.Fatalf("%q printed as %q does not parse", b, s)
			}
			_ = back
		}
		if os.Getenv("LIMITKV_C_ORACLE") != "" {
			checkAgainstC(t, getOracle(t), string(b))
		}
	})
}

func BenchmarkParseFloat(b *testing.B) {
	for _, s := range []string{"1700000000000", "1.5", "0.1", "-inf", "1.2345678901234568e+17"} {
		in := []byte(s)
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ParseFloat(in)
			}
		})
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	for _, f := range []float64{1700000000000, 1.5, 0.1} {
		b.Run(strconv.FormatFloat(f, 'g', -1, 64), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 32)
			for i := 0; i < b.N; i++ {
				buf = AppendFloat(buf[:0], f)
			}
		})
	}
}

func BenchmarkIncrByFloat(b *testing.B) {
	b.ReportAllocs()
	cur, incr := []byte("10.5"), []byte("0.1")
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		x, _ := ParseLongDouble(cur)
		y, _ := ParseLongDouble(incr)
		s, _ := AddLongDouble(x, y)
		buf = AppendLongDoubleHuman(buf[:0], s)
	}
}

func TestStrtodRange(t *testing.T) {
	for _, c := range []struct {
		in            string
		f             float64
		ok, rangeErrs bool
	}{
		{"", 0, true, false}, {" 5", 5, true, false}, {"1\x00x", 1, true, false}, {"0x10", 16, true, false},
		{"inf", math.Inf(1), true, false}, {"-Infinity", math.Inf(-1), true, false}, {"nan", 0, false, false},
		{"5 ", 0, false, false}, {"x", 0, false, false}, {"1e400", math.Inf(1), true, true}, {"1e-400", 0, true, true},
		{"1e-310", 1e-310, true, true}, {"4.9e-324", 5e-324, true, true}, {"0x1p-1074", 5e-324, true, false},
		{"2.2250738585072011e-308", 2.225073858507201e-308, true, true}, {"2.2250738585072014e-308", 2.2250738585072014e-308, true, false},
		{"-0", math.Copysign(0, -1), true, false},
	} {
		f, ok, re := StrtodRange([]byte(c.in))
		if ok != c.ok || (ok && (re != c.rangeErrs || f != c.f)) {
			t.Errorf("StrtodRange(%q) = %v, %v, %v; want %v, %v, %v", c.in, f, ok, re, c.f, c.ok, c.rangeErrs)
		}
	}
}
