package ratelimit

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTPOptions configure Limiter.Middleware.
type HTTPOptions struct {
	// Identify returns the tenant and user a request counts against; ok=false
	// sends the request to Unidentified. Required. Read identities the
	// application has authenticated, not bare client-chosen values, unless
	// the limit only needs to be approximate.
	Identify func(r *http.Request) (tenant, user string, ok bool)
	// Unidentified handles requests Identify could not place. Default: 400
	// with {"error":"missing tenant or user"}. Set it to the next handler to
	// let such requests through unlimited.
	Unidentified http.Handler
	// ErrorStatus is the status of a request refused because the store
	// failed (fail closed). Default 503.
	ErrorStatus int
	// OnError, if set, sees each store failure that refused a request (for
	// logging); the policy's own hook, Options.OnFailure, sees all of them.
	OnError func(r *http.Request, err error)
}

// HeaderIdentity reads the tenant and user from two request headers, e.g.
// HeaderIdentity("X-Tenant-ID", "X-User-ID"); both must be non-empty.
func HeaderIdentity(tenantHeader, userHeader string) func(*http.Request) (tenant, user string, ok bool) {
	return func(r *http.Request) (string, string, bool) {
		t, u := r.Header.Get(tenantHeader), r.Header.Get(userHeader)
		return t, u, t != "" && u != ""
	}
}

// Policy is a limit as the IETF RateLimit fields describe it
// (draft-ietf-httpapi-ratelimit-headers-10, September 2025, the
// structured-field form): q units per w seconds, under a name.
type Policy struct {
	// Name is the policy's name in both fields.
	Name string
	// Quota (q) is the most a client can use at once: the limit per
	// window, or the burst (bucket capacity) of GCRA and the token bucket.
	Quota int
	// Window (w) is the time over which Quota comes back; 0 omits w (a
	// concurrency limit has no window).
	Window time.Duration
	// Unit (qu) is the quota's unit when not requests: "concurrent-requests"
	// for leases, or a budget's Unit; "" omits qu (the draft's "request").
	Unit string
}

// Policy is the limiter's policy: q is Limit() and w the window, or for
// GCRA and the token bucket the time an empty bucket takes to fill again
// (Burst at Limit per Window), rounded up to seconds in the header.
func (l *Limiter) Policy() Policy {
	return Policy{Name: l.name, Quota: l.Limit(), Window: l.policyWindow()}
}

// Policy is the concurrency limit's policy: Limit concurrent requests.
func (c *Concurrency) Policy() Policy {
	return Policy{Name: c.name, Quota: c.limit, Unit: "concurrent-requests"}
}

// Policy is the budget's policy: Limit units per Window.
func (b *Budget) Policy() Policy {
	return Policy{Name: b.name, Quota: b.limit, Window: b.Window(), Unit: b.unit}
}

// PolicyField is the RateLimit-Policy value: "name";q=5;w=60 (and ;qu=...).
func (p Policy) PolicyField() string {
	f := sfString(p.Name) + ";q=" + strconv.Itoa(p.Quota)
	if p.Unit != "" {
		f += ";qu=" + sfString(p.Unit)
	}
	if p.Window > 0 {
		f += ";w=" + strconv.FormatInt(ceilSeconds(p.Window), 10)
	}
	return f
}

// SetHeaders sets the rate-limit fields of a response decided by r:
//
//	RateLimit-Policy: "name";q=5;w=60
//	RateLimit: "name";r=0;t=55
//	X-RateLimit-Limit: 5, X-RateLimit-Remaining: 0, X-RateLimit-Reset: 60
//	Retry-After: 55 (refused only)
//
// r is the remaining quota (Result.Remaining: a window's unused requests,
// a bucket's whole tokens, GCRA's free burst, free lease slots, unspent
// budget units). t is, per the draft, the seconds until the quota is
// available again: when refused, the retry delay (what one more request
// of the same cost waits; omitted with Retry-After when it can never
// pass); when allowed, Result.Reset, when the quota is whole again (the
// window empty, the bucket full, the burst restored, the last lease over,
// the budget's window ended). X-RateLimit-Reset is Reset too. Durations
// are rounded up to whole seconds, so a client that waits them is never
// early. A result the failure policy let through without the store
// (StoreErr set) gets only the policy and X-RateLimit-Limit.
func (p Policy) SetHeaders(h http.Header, r Result) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(p.Quota))
	h.Set("RateLimit-Policy", p.PolicyField())
	if r.StoreErr != nil {
		return
	}
	h.Set("X-RateLimit-Remaining", strconv.Itoa(r.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilSeconds(r.Reset), 10))
	t := r.Reset
	if !r.Allowed {
		t = r.RetryAfter
	}
	field := sfString(p.Name) + ";r=" + strconv.Itoa(r.Remaining)
	if t >= 0 {
		field += ";t=" + strconv.FormatInt(ceilSeconds(t), 10)
	}
	h.Set("RateLimit", field)
	if !r.Allowed && r.RetryAfter >= 0 {
		h.Set("Retry-After", strconv.FormatInt(ceilSeconds(r.RetryAfter), 10))
	}
}

// Middleware limits the requests of each (tenant, user) with l, whatever
// its algorithm, and answers the fields Policy.SetHeaders describes (the
// IETF fields of draft-ietf-httpapi-ratelimit-headers-10 and the
// X-RateLimit-* ones).
//
// A refused request gets 429 with Retry-After (seconds, rounded up) and
// {"error":"rate limit exceeded","retry_after_seconds":N}. A store failure
// the policy lets through (fail open) reaches the next handler with only
// the limit and policy headers; one it refuses (fail closed) gets
// ErrorStatus with {"error":"rate limiter unavailable"}.
func (l *Limiter) Middleware(o HTTPOptions) func(http.Handler) http.Handler {
	if o.Identify == nil {
		panic("ratelimit: HTTPOptions.Identify is required")
	}
	unidentified := o.Unidentified
	if unidentified == nil {
		unidentified = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "missing tenant or user"})
		})
	}
	errStatus := o.ErrorStatus
	if errStatus == 0 {
		errStatus = http.StatusServiceUnavailable
	}
	policy := l.Policy()

	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tenant, user, ok := o.Identify(r)
			if !ok {
				unidentified.ServeHTTP(w, r)
				return
			}
			res, err := l.Allow(r.Context(), tenant, user)
			h := w.Header()
			if err != nil {
				policy.SetHeaders(h, Result{StoreErr: err})
				if o.OnError != nil {
					o.OnError(r, err)
				}
				writeJSON(w, errStatus, map[string]any{"error": "rate limiter unavailable"})
				return
			}
			policy.SetHeaders(h, res)
			if res.Allowed {
				next.ServeHTTP(w, r)
				return
			}
			body := map[string]any{"error": "rate limit exceeded"}
			if res.RetryAfter >= 0 {
				body["retry_after_seconds"] = ceilSeconds(res.RetryAfter)
			}
			writeJSON(w, http.StatusTooManyRequests, body)
		})
	}
}

// ceilSeconds rounds d up to whole seconds, so a client that waits that
// long is never early.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// sfString encodes s as a Structured Field String (RFC 9651 section 3.3.3):
// quoted, with '"' and '\' escaped; bytes outside printable ASCII, which a
// String cannot hold, become '?'.
func sfString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
