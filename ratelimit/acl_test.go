package ratelimit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// A multi-tenant deployment gives each tenant's services an ACL user that
// may only touch the tenant's keys ({tenant}:...), so a service of tenant
// acme cannot read or burn globex's budget, with either permission style:
// every command on its keys, or only the rate-limit commands.
func TestTenantACL(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name, user string
		rules      []any
	}{
		{"all commands", "u1", []any{"+@all"}},
		{"rate-limit commands only", "u2", []any{"-@all", "+rl.check", "+rl.peek"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]any{"ACL", "SETUSER", "acme", "reset", "on", ">acme-secret", "~{acme}:*"}, tc.rules...)
			if err := admin.Do(ctx, args...).Err(); err != nil {
				t.Fatal(err)
			}
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "acme", Password: "acme-secret"})
			defer rdb.Close()
			lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest", Limit: 2, Window: time.Minute,
				Backend: ratelimit.BackendLimitkv})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []bool{true, true, false} {
				res, err := lim.Allow(ctx, "acme", tc.user)
				if err != nil || res.Allowed != want {
					t.Fatalf("acme call %d: %+v, %v; want allowed=%v", i+1, res, err, want)
				}
			}
			res, err := lim.Allow(ctx, "globex", tc.user)
			if err == nil || !strings.Contains(err.Error(), "NOPERM this user has no permissions to access one of the keys") || res.Allowed {
				t.Fatalf("globex through acme's user: %+v, %v; want a NOPERM error and fail closed", res, err)
			}
			// Nothing was recorded for globex; its own budget is whole.
			if n, err := admin.ZCard(ctx, lim.Key("globex", tc.user)).Result(); err != nil || n != 0 {
				t.Fatalf("globex's window: %d entries, %v", n, err)
			}
			entries, err := admin.Do(ctx, "ACL", "LOG", "1").Slice()
			if err != nil || len(entries) != 1 || !strings.Contains(strings.Join(flat(entries[0]), " "), "object "+lim.Key("globex", tc.user)) {
				t.Fatalf("ACL LOG: %v, %v", entries, err)
			}
			if err := admin.Do(ctx, "ACL", "LOG", "RESET").Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// flat renders an ACL LOG entry (a map in RESP3, pairs in RESP2) as words.
func flat(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[any]any:
		for k, x := range v {
			out = append(out, toString(k)+" "+toString(x))
		}
	case map[string]any:
		for k, x := range v {
			out = append(out, k+" "+toString(x))
		}
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			out = append(out, toString(v[i])+" "+toString(v[i+1]))
		}
	}
	return out
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
