package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

func Example() {
	srv, err := limitkv.Start(limitkv.Options{}) // or any Redis: the limiter runs the seed's script there
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest-categories", Limit: 5, Window: time.Minute})
	if err != nil {
		panic(err)
	}
	for i := 1; i <= 6; i++ {
		res, err := lim.Allow(context.Background(), "acme", "user123")
		if err != nil {
			panic(err) // the store failed: fail closed
		}
		fmt.Printf("call %d: allowed=%v remaining=%d\n", i, res.Allowed, res.Remaining)
	}
	fmt.Println(lim.Key("acme", "user123"))
	// Output:
	// call 1: allowed=true remaining=4
	// call 2: allowed=true remaining=3
	// call 3: allowed=true remaining=2
	// call 4: allowed=true remaining=1
	// call 5: allowed=true remaining=0
	// call 6: allowed=false remaining=0
	// {acme}:ratelimit:suggest-categories:user123
}

func ExampleLimiter_Middleware() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest-categories", Limit: 2, Window: time.Minute})
	if err != nil {
		panic(err)
	}

	costly := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, `["books"]`) })
	h := lim.Middleware(ratelimit.HTTPOptions{
		Identify: ratelimit.HeaderIdentity("X-Tenant-ID", "X-User-ID"),
	})(costly)

	for i := 1; i <= 3; i++ {
		req := httptest.NewRequest("POST", "/suggest-categories", nil)
		req.Header.Set("X-Tenant-ID", "acme")
		req.Header.Set("X-User-ID", "user123")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("RateLimit-Policy"), "remaining", rec.Header().Get("X-RateLimit-Remaining"))
	}
	// Output:
	// 200 "suggest-categories";q=2;w=60 remaining 1
	// 200 "suggest-categories";q=2;w=60 remaining 0
	// 429 "suggest-categories";q=2;w=60 remaining 0
}
