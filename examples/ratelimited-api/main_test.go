package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/redis/go-redis/v9"
)

func post(t *testing.T, url, tenant, user string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/suggest-categories",
		strings.NewReader(`{"title":"Rate limiting an LLM endpoint with Redis","description":"cost guard for a SaaS"}`))
	if err != nil {
		t.Fatal(err)
	}
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	if user != "" {
		req.Header.Set("X-User-ID", user)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func TestSixthCallGets429(t *testing.T) {
	clk := limitkv.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := limitkv.StartT(t, limitkv.Options{Clock: clk})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { rdb.Close() })
	lim, err := newLimiter(rdb, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newHandler(lim, 0))
	t.Cleanup(ts.Close)

	for i := 1; i <= 5; i++ {
		resp, body := post(t, ts.URL, "acme", "user123")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
		var got struct{ Categories []string }
		if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.Categories) == 0 {
			t.Fatalf("call %d: body %q (%v)", i, body, err)
		}
		if rem := resp.Header.Get("X-RateLimit-Remaining"); rem != string(rune('0'+5-i)) {
			t.Errorf("call %d: X-RateLimit-Remaining %q", i, rem)
		}
		clk.Add(time.Second)
	}
	resp, body := post(t, ts.URL, "acme", "user123")
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("call 6: %d %s, want 429", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "55" {
		t.Errorf("call 6: Retry-After %q, want 55", ra)
	}
	if want := `{"error":"rate limit exceeded","retry_after_seconds":55}` + "\n"; body != want {
		t.Errorf("call 6: body %q, want %q", body, want)
	}
	// Other users and tenants have their own windows.
	for _, id := range [][2]string{{"acme", "user456"}, {"globex", "user123"}} {
		if resp, body := post(t, ts.URL, id[0], id[1]); resp.StatusCode != http.StatusOK {
			t.Errorf("%s/%s: %d %s", id[0], id[1], resp.StatusCode, body)
		}
	}
	// The support commands of the README work on the stored key.
	const key = "{acme}:ratelimit:suggest-categories:user123"
	if n := rdb.Exists(t.Context(), key).Val(); n != 1 {
		t.Fatalf("key %s missing", key)
	}
	rdb.Del(t.Context(), key)
	if resp, body := post(t, ts.URL, "acme", "user123"); resp.StatusCode != http.StatusOK {
		t.Errorf("after DEL: %d %s", resp.StatusCode, body)
	}
	// Without identity headers the endpoint is not served.
	if resp, _ := post(t, ts.URL, "acme", ""); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("without X-User-ID: %d, want 400", resp.StatusCode)
	}
}

func TestCategorize(t *testing.T) {
	if got := categorize("Rate limiting an LLM endpoint with Redis"); strings.Join(got, ",") != "databases,ai" {
		t.Errorf("categorize: %v", got)
	}
	if got := categorize("hello"); len(got) != 1 || got[0] != "general" {
		t.Errorf("categorize: %v", got)
	}
}
