// Command ratelimited-api is a small HTTP service with one costly endpoint,
// POST /suggest-categories (a stand-in for a paid LLM call), limited to 5
// requests per 60 seconds for each tenant and user (headers X-Tenant-ID and
// X-User-ID) with package ratelimit.
//
//	go run ./examples/ratelimited-api                           # limitkv in-process
//	go run ./examples/ratelimited-api -redis-addr 127.0.0.1:6379 # an existing limitkv or Redis
//
// See README.md beside this file for a curl session.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ratelimited-api:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ratelimited-api", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "HTTP address to serve")
	redisAddr := fs.String("redis-addr", "", "host:port of a limitkv or Redis server; empty: start limitkv in-process")
	limitkvAddr := fs.String("limitkv-addr", "127.0.0.1:0", "address of the in-process limitkv (without -redis-addr)")
	work := fs.Duration("work", 300*time.Millisecond, "how long the fake LLM call takes")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	storeAddr := *redisAddr
	if storeAddr == "" {
		srv, err := limitkv.Start(limitkv.Options{Addr: *limitkvAddr})
		if err != nil {
			return err
		}
		defer srv.Close()
		storeAddr = srv.Addr()
		fmt.Printf("limitkv (in-process) listening on %s\n", storeAddr)
	}
	rdb := redis.NewClient(&redis.Options{Addr: storeAddr})
	defer rdb.Close()

	lim, err := newLimiter(rdb, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	backend, err := lim.Backend(ctx)
	if err != nil {
		return fmt.Errorf("store at %s: %w", storeAddr, err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("store %s (backend: %s)\n", storeAddr, backend)
	fmt.Printf("serving http://%s  (POST /suggest-categories: %d per %gs per tenant and user)\n",
		ln.Addr(), lim.Limit(), lim.Window().Seconds())

	hs := &http.Server{Handler: newHandler(lim, *work), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(shutCtx)
}

// newLimiter is the endpoint's limit: the seed's 5 requests per 60 s, with
// its failure policy (allow on a nil reply, refuse on an error), logged.
func newLimiter(rdb redis.UniversalClient, log *slog.Logger) (*ratelimit.Limiter, error) {
	return ratelimit.New(rdb, ratelimit.Options{
		Name:   "suggest-categories",
		Limit:  5,
		Window: 60 * time.Second,
		OnFailure: func(ctx context.Context, key string, err error) bool {
			allow := ratelimit.FailOpenOnNoAnswer(ctx, key, err)
			if allow {
				log.Warn("rate limiter answered nothing, allowing the request", "key", key, "err", err)
			} else {
				log.Error("rate limiter failed, refusing the request", "key", key, "err", err)
			}
			return allow
		},
	})
}

func newHandler(lim *ratelimit.Limiter, work time.Duration) http.Handler {
	limited := lim.Middleware(ratelimit.HTTPOptions{
		Identify: ratelimit.HeaderIdentity("X-Tenant-ID", "X-User-ID"),
	})
	mux := http.NewServeMux()
	mux.Handle("POST /suggest-categories", limited(suggestCategories(work)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	return mux
}

type suggestRequest struct {
	Title       string `json:"title"`
	Description string `json:"description"`
}

// suggestCategories pretends to ask an LLM: it takes a while and answers a
// few categories picked from the words of the request.
func suggestCategories(work time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req suggestRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "body must be JSON: {\"title\": ..., \"description\": ...}"})
			return
		}
		select {
		case <-time.After(work):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string][]string{"categories": categorize(req.Title + " " + req.Description)})
	})
}

var topics = []struct{ category, words string }{
	{"programming", "go golang code api server software rust java python"},
	{"databases", "redis sql database cache postgres key value store"},
	{"ai", "llm ai model gpt llama groq prompt"},
	{"business", "saas pricing budget cost startup sales"},
	{"marketing", "url link analytics seo campaign affiliate"},
}

func categorize(text string) []string {
	words := strings.Fields(strings.ToLower(text))
	var out []string
	for _, t := range topics {
		for _, w := range strings.Fields(t.words) {
			if slices.Contains(words, w) {
				out = append(out, t.category)
				break
			}
		}
	}
	if len(out) == 0 {
		out = []string{"general"}
	}
	return out
}
