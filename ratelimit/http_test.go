package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
)

type httpWant struct {
	status  int
	headers map[string]string // "" means the header must be absent
	body    string            // exact, when set
}

func doRequest(t *testing.T, h http.Handler, tenant, user string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/suggest-categories", strings.NewReader(`{"title":"x"}`))
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	if user != "" {
		req.Header.Set("X-User-ID", user)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func checkResponse(t *testing.T, what string, rec *httptest.ResponseRecorder, want httpWant) {
	t.Helper()
	if rec.Code != want.status {
		t.Errorf("%s: status %d, want %d (body %q)", what, rec.Code, want.status, rec.Body.String())
	}
	for k, v := range want.headers {
		got, present := rec.Header()[http.CanonicalHeaderKey(k)]
		switch {
		case v == "" && present:
			t.Errorf("%s: header %s = %q, want it absent", what, k, got)
		case v != "" && (len(got) != 1 || got[0] != v):
			t.Errorf("%s: header %s = %q, want %q", what, k, got, v)
		}
	}
	if want.body != "" && rec.Body.String() != want.body {
		t.Errorf("%s: body %q, want %q", what, rec.Body.String(), want.body)
	}
}

// okHandler counts the requests that got through.
type okHandler struct{ calls int }

func (h *okHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h.calls++
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`["books"]`))
}

func TestRateLimitMiddleware(t *testing.T) {
	const policy = `"suggest-categories";q=5;w=60`
	limited := func(remaining, reset string) map[string]string {
		return map[string]string{
			"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": reset,
			"RateLimit-Policy": policy, "RateLimit": `"suggest-categories";r=` + remaining + ";t=" + reset,
			"Retry-After": "",
		}
	}
	for _, kind := range envKinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			l := e.limiter(t, Options{})
			next := &okHandler{}
			h := l.Middleware(HTTPOptions{Identify: HeaderIdentity("X-Tenant-ID", "X-User-ID")})(next)
			for i := 1; i <= 5; i++ {
				rec := doRequest(t, h, "acme", "user123")
				rem := string(rune('0' + 5 - i))
				checkResponse(t, "call "+string(rune('0'+i)), rec, httpWant{status: 200, headers: limited(rem, "60"), body: `["books"]`})
				e.advance(time.Second)
			}
			// at 5s: the first call's entry leaves at 60s, the last's at 64s
			rec := doRequest(t, h, "acme", "user123")
			checkResponse(t, "call 6", rec, httpWant{
				status: 429,
				headers: map[string]string{
					"Retry-After": "55", "Content-Type": "application/json",
					"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "59",
					"RateLimit-Policy": policy, "RateLimit": `"suggest-categories";r=0;t=55`,
				},
				body: `{"error":"rate limit exceeded","retry_after_seconds":55}` + "\n",
			})
			if next.calls != 5 {
				t.Errorf("next handler ran %d times, want 5", next.calls)
			}
			// another user of the same tenant is not affected
			checkResponse(t, "other user", doRequest(t, h, "acme", "user456"), httpWant{status: 200, headers: limited("4", "60")})
			// 1 ms before the slot frees, Retry-After still says 1 (rounded up)
			e.advance(55*time.Second - time.Millisecond)
			checkResponse(t, "almost", doRequest(t, h, "acme", "user123"), httpWant{
				status:  429,
				headers: map[string]string{"Retry-After": "1", "X-RateLimit-Reset": "5", "RateLimit": `"suggest-categories";r=0;t=1`},
				body:    `{"error":"rate limit exceeded","retry_after_seconds":1}` + "\n",
			})
			e.advance(time.Millisecond)
			checkResponse(t, "slid", doRequest(t, h, "acme", "user123"), httpWant{status: 200, headers: limited("0", "60")})
		})
	}
}

func TestRateLimitMiddlewareFailures(t *testing.T) {
	identify := HeaderIdentity("X-Tenant-ID", "X-User-ID")
	deadAddr := func(t *testing.T) string {
		srv, err := limitkv.Start(limitkv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		addr := srv.Addr()
		srv.Close()
		return addr
	}
	nilAddr := func(t *testing.T) string {
		return startFake(t, func(args []string) string {
			switch strings.ToUpper(args[0]) {
			case "COMMAND":
				return "*1\r\n*-1\r\n"
			case "EVALSHA", "EVAL":
				return "$-1\r\n"
			}
			return ""
		}).Addr()
	}
	liveAddr := func(t *testing.T) string { return limitkv.StartT(t, limitkv.Options{}).Addr() }

	cases := []struct {
		name       string
		addr       func(*testing.T) string
		opts       HTTPOptions
		tenant     string
		user       string
		want       httpWant
		nextCalled bool
		onError    bool
	}{
		{
			name: "store down: 503", addr: deadAddr, tenant: "acme", user: "u", onError: true,
			want: httpWant{status: 503, body: `{"error":"rate limiter unavailable"}` + "\n", headers: map[string]string{
				"X-RateLimit-Limit": "5", "RateLimit-Policy": `"suggest-categories";q=5;w=60`,
				"X-RateLimit-Remaining": "", "RateLimit": "", "Retry-After": "", "Content-Type": "application/json",
			}},
		},
		{
			name: "store down: configured status", addr: deadAddr, tenant: "acme", user: "u", onError: true,
			opts: HTTPOptions{ErrorStatus: http.StatusInternalServerError},
			want: httpWant{status: 500, body: `{"error":"rate limiter unavailable"}` + "\n"},
		},
		{
			name: "nil reply: fails open", addr: nilAddr, tenant: "acme", user: "u", nextCalled: true,
			want: httpWant{status: 200, body: `["books"]`, headers: map[string]string{
				"X-RateLimit-Limit": "5", "RateLimit-Policy": `"suggest-categories";q=5;w=60`,
				"X-RateLimit-Remaining": "", "X-RateLimit-Reset": "", "RateLimit": "",
			}},
		},
		{
			name: "no user: 400", addr: liveAddr, tenant: "acme",
			want: httpWant{status: 400, body: `{"error":"missing tenant or user"}` + "\n", headers: map[string]string{"X-RateLimit-Limit": ""}},
		},
		{
			name: "no tenant: 400", addr: liveAddr, user: "u",
			want: httpWant{status: 400, body: `{"error":"missing tenant or user"}` + "\n"},
		},
		{
			name: "unidentified let through", addr: liveAddr, nextCalled: true,
			opts: HTTPOptions{Unidentified: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })},
			want: httpWant{status: 204},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := New(newClient(t, tc.addr(t)), Options{Name: "suggest-categories", Limit: 5, Window: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			next := &okHandler{}
			var errs []error
			o := tc.opts
			o.Identify = identify
			o.OnError = func(_ *http.Request, err error) { errs = append(errs, err) }
			if o.Unidentified != nil {
				inner := o.Unidentified
				o.Unidentified = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					next.calls++
					inner.ServeHTTP(w, r)
				})
			}
			rec := doRequest(t, l.Middleware(o)(next), tc.tenant, tc.user)
			checkResponse(t, tc.name, rec, tc.want)
			if got := next.calls > 0; got != tc.nextCalled {
				t.Errorf("next called: %v, want %v", got, tc.nextCalled)
			}
			if got := len(errs) > 0; got != tc.onError {
				t.Errorf("OnError called: %v (%v), want %v", got, errs, tc.onError)
			}
		})
	}
}

func TestRateLimitHeaderFormatting(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want int64
	}{{0, 0}, {-time.Second, 0}, {time.Millisecond, 1}, {time.Second, 1}, {time.Second + 1, 2}, {59999 * time.Millisecond, 60}} {
		if got := ceilSeconds(c.in); got != c.want {
			t.Errorf("ceilSeconds(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"suggest-categories": `"suggest-categories"`,
		`a"b\c`:              `"a\"b\\c"`,
		"tab\there":          `"tab?here"`,
		"é":                  `"??"`,
	} {
		if got := sfString(in); got != want {
			t.Errorf("sfString(%q) = %s, want %s", in, got, want)
		}
	}
	// A window that is not whole seconds advertises w rounded up.
	l, _ := New(newClient(t, "127.0.0.1:1"), Options{Name: "x", Limit: 2, Window: 1500 * time.Millisecond})
	rec := doRequest(t, l.Middleware(HTTPOptions{Identify: func(*http.Request) (string, string, bool) { return "", "", false }})(&okHandler{}), "", "")
	if rec.Code != 400 {
		t.Fatalf("status %d", rec.Code)
	}
	h := httptest.NewRecorder()
	l.Middleware(HTTPOptions{Identify: HeaderIdentity("X-Tenant-ID", "X-User-ID"), ErrorStatus: 503})(&okHandler{}).
		ServeHTTP(h, func() *http.Request {
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set("X-Tenant-ID", "t")
			r.Header.Set("X-User-ID", "u")
			return r
		}())
	if got := h.Header().Get("RateLimit-Policy"); got != `"x";q=2;w=2` {
		t.Errorf("RateLimit-Policy %q", got)
	}
}
