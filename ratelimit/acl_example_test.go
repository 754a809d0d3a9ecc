package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// Each tenant's services authenticate as an ACL user limited to the
// tenant's keys: the limiter's keys start with "{tenant}:", so "~{acme}:*"
// is all acme's services can touch. A call for another tenant is refused
// by the server (NOPERM) and the limiter fails closed.
func Example_tenantACL() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()

	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	// Only RL.CHECK and RL.PEEK, only on acme's keys.
	err = admin.Do(ctx, "ACL", "SETUSER", "acme", "on", ">acme-secret", "~{acme}:*", "-@all", "+rl.check", "+rl.peek").Err()
	if err != nil {
		panic(err)
	}

	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "acme", Password: "acme-secret"})
	defer rdb.Close()
	// BackendLimitkv: the user may not run COMMAND INFO, which the
	// automatic choice asks.
	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest-categories", Limit: 5, Window: time.Minute,
		Backend: ratelimit.BackendLimitkv})
	if err != nil {
		panic(err)
	}
	res, err := lim.Allow(ctx, "acme", "user123")
	fmt.Println("acme:", res.Allowed, res.Remaining, err)

	res, err = lim.Allow(ctx, "globex", "user123")
	var rerr redis.Error
	fmt.Println("globex:", res.Allowed, errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "NOPERM"))
	// Output:
	// acme: true 4 <nil>
	// globex: false true
}
