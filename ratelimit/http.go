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

// Middleware limits the requests of each (tenant, user) with l.
//
// On every limited response it sets X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset (seconds until the window is empty, rounded up) and the
// IETF fields of draft-ietf-httpapi-ratelimit-headers-10 (September 2025):
//
//	RateLimit-Policy: "name";q=5;w=60
//	RateLimit: "name";r=0;t=55
//
// where t is, per that draft, the seconds until more quota is available: the
// retry delay when refused, and the time until the window is empty when not
// (an upper bound: the limiter learns the oldest entry only on refusal).
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
	limitStr := strconv.Itoa(l.limit)
	policy := sfString(l.name) + ";q=" + limitStr + ";w=" + strconv.FormatInt(ceilSeconds(l.Window()), 10)

	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tenant, user, ok := o.Identify(r)
			if !ok {
				unidentified.ServeHTTP(w, r)
				return
			}
			res, err := l.Allow(r.Context(), tenant, user)
			h := w.Header()
			h.Set("X-RateLimit-Limit", limitStr)
			h.Set("RateLimit-Policy", policy)
			if err != nil {
				if o.OnError != nil {
					o.OnError(r, err)
				}
				writeJSON(w, errStatus, map[string]any{"error": "rate limiter unavailable"})
				return
			}
			if res.StoreErr != nil {
				next.ServeHTTP(w, r)
				return
			}
			t := res.Reset
			if !res.Allowed {
				t = res.RetryAfter
			}
			h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
			h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilSeconds(res.Reset), 10))
			field := sfString(l.name) + ";r=" + strconv.Itoa(res.Remaining)
			if t >= 0 {
				field += ";t=" + strconv.FormatInt(ceilSeconds(t), 10)
			}
			h.Set("RateLimit", field)
			if res.Allowed {
				next.ServeHTTP(w, r)
				return
			}
			body := map[string]any{"error": "rate limit exceeded"}
			if res.RetryAfter >= 0 {
				secs := ceilSeconds(res.RetryAfter)
				h.Set("Retry-After", strconv.FormatInt(secs, 10))
				body["retry_after_seconds"] = secs
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
