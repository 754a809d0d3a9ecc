package limitkv_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv"
)

// Settings by their redis.conf names, checked as CONFIG SET checks them.
func ExampleConfig() {
	srv, err := limitkv.Start(limitkv.Options{Config: limitkv.Config{
		"maxclients":       "100",
		"maxmemory":        "64mb",
		"maxmemory-policy": "volatile-ttl",
	}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	fmt.Println(srv.ConfigGet("maxmemory"))

	// A value CONFIG SET refuses fails the start, with Redis's reason.
	_, err = limitkv.Start(limitkv.Options{Config: limitkv.Config{"maxclients": "0"}})
	fmt.Println(err)
	// Output:
	// 67108864 true
	// limitkv: Config maxclients "0": argument must be between 1 and 4294967295 inclusive
}

// The clock moves only when the test moves it; TTLs count down with it.
func ExampleManualClock() {
	clock := limitkv.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, _ := limitkv.Start(limitkv.Options{Clock: clock})
	defer srv.Close()

	srv.Set("k", "v")
	srv.SetTTL("k", time.Minute)
	clock.Add(45 * time.Second)
	fmt.Println(srv.TTL("k"), srv.Time().Format(time.TimeOnly))
	clock.Add(16 * time.Second) // past the deadline (at it, Redis keeps the key)
	fmt.Println(srv.Exists("k"))
	// Output:
	// 15s 00:00:45
	// false
}

// Direct access: a test sets up and inspects data without a client.
func ExampleServer_direct() {
	srv, _ := limitkv.Start(limitkv.Options{})
	defer srv.Close()

	srv.Set("greeting", "hello")
	srv.HSet("user:1", "name", "ada", "plan", "pro")
	srv.RPush("queue", "a", "b")
	srv.SAdd("tags", "x", "y")
	srv.ZAdd("{acme}:ratelimit:api:u1", 1767225600000, "1767225600000-1")

	// What clients wrote is there too.
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	rdb.LPush(ctx, "queue", "first")

	fmt.Println(srv.Get("greeting"))
	fmt.Println(srv.HGet("user:1", "plan"))
	fmt.Println(srv.List("queue"))
	fmt.Println(srv.Members("tags"))
	fmt.Println(srv.ZMembers("{acme}:ratelimit:api:u1"))
	fmt.Println(srv.Keys())
	_, err := srv.Get("nokey")
	fmt.Println(errors.Is(err, limitkv.ErrKeyNotFound))
	_, err = srv.Get("queue")
	fmt.Println(err)
	fmt.Println(srv.DB(1).Keys())

	srv.FlushAll()
	fmt.Println(srv.Keys())
	// Output:
	// hello <nil>
	// pro <nil>
	// [first a b] <nil>
	// [x y] <nil>
	// [1767225600000-1] <nil>
	// [greeting queue tags user:1 {acme}:ratelimit:api:u1]
	// true
	// WRONGTYPE Operation against a key holding the wrong kind of value
	// []
	// []
}

// Fault injection: the store answers errors, stalls or drops the
// connection, so a test can check that its code fails open or closed.
func ExampleServer_InjectFault() {
	srv, _ := limitkv.Start(limitkv.Options{})
	defer srv.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, ReadTimeout: 100 * time.Millisecond})
	defer rdb.Close()

	// The next two RL.CHECKs fail; other commands are untouched.
	srv.InjectFault(limitkv.Fault{Command: "RL.CHECK", Times: 2, Err: "ERR injected"})
	check := func() error { return rdb.Do(ctx, "RL.CHECK", "k", "*", 60000, 5, "*").Err() }
	fmt.Println(check(), rdb.Ping(ctx).Err(), check(), check())

	// A stall past the client's read timeout.
	remove := srv.InjectFault(limitkv.Fault{Stall: 300 * time.Millisecond})
	err := rdb.Ping(ctx).Err()
	var ne interface{ Timeout() bool }
	fmt.Println(errors.As(err, &ne) && ne.Timeout())
	remove()
	time.Sleep(300 * time.Millisecond) // the stall holds the server until it ends

	// A dropped connection: the client sees EOF, no reply.
	srv.InjectFault(limitkv.Fault{Command: "GET", Times: 1, Drop: true})
	fmt.Println(rdb.Get(ctx, "k").Err())
	fmt.Println(rdb.Ping(ctx).Err()) // a new connection, no fault left
	// Output:
	// ERR injected <nil> ERR injected <nil>
	// true
	// EOF
	// <nil>
}
