package conformance

import (
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

// go-redis's PubSub, in RESP2 and RESP3, behaves the same on both servers:
// subscriptions, pattern and shard messages, its health-check PING on a
// subscribed connection, and unsubscribing.
func TestPubSubGoRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			rds, lkv := newClients(t, func(o *redis.Options) { o.Protocol = proto })
			want := goRedisPubSubRun(t, rds)
			got := goRedisPubSubRun(t, lkv)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("go-redis PubSub differs\n redis:   %q\n limitkv: %q", want, got)
			}
		})
	}
}

func goRedisPubSubRun(t *testing.T, c *redis.Client) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log []string
	add := func(format string, a ...any) { log = append(log, fmt.Sprintf(format, a...)) }
	recv := func(ps *redis.PubSub) {
		msg, err := ps.ReceiveTimeout(ctx, 3*time.Second)
		if err != nil {
			add("error %v", err)
			return
		}
		switch m := msg.(type) {
		case *redis.Message:
			add("message %s %s %s", m.Pattern, m.Channel, m.Payload)
		case *redis.Subscription:
			add("%s %s %d", m.Kind, m.Channel, m.Count)
		case *redis.Pong:
			add("pong %q", m.Payload)
		default:
			add("%T %v", m, m)
		}
	}
	ps := c.Subscribe(ctx, "news", "alerts")
	defer ps.Close()
	recv(ps)
	recv(ps)
	if err := ps.PSubscribe(ctx, "user:*"); err != nil {
		t.Fatal(err)
	}
	recv(ps)
	n1 := c.Publish(ctx, "news", "hello").Val()
	n2 := c.Publish(ctx, "user:42", "hi").Val()
	n3 := c.Publish(ctx, "nobody", "x").Val()
	add("published %d %d %d", n1, n2, n3)
	recv(ps)
	recv(ps)
	if err := ps.Ping(ctx, "check"); err != nil {
		t.Fatal(err)
	}
	recv(ps)
	numsub := c.PubSubNumSub(ctx, "news", "alerts", "none").Val()
	add("numsub %v numpat %d", numsub, c.PubSubNumPat(ctx).Val())
	chans := c.PubSubChannels(ctx, "*").Val()
	sort.Strings(chans)
	add("channels %v", chans)
	if err := ps.Unsubscribe(ctx, "alerts"); err != nil {
		t.Fatal(err)
	}
	recv(ps)
	// The channel a PubSub reads from delivers messages only.
	ch := ps.Channel()
	c.Publish(ctx, "news", "via channel")
	select {
	case m := <-ch:
		add("channel %s %s", m.Channel, m.Payload)
	case <-time.After(3 * time.Second):
		add("channel timeout")
	}
	ss := c.SSubscribe(ctx, "shard")
	defer ss.Close()
	recv(ss)
	add("spublished %d", c.SPublish(ctx, "shard", "s1").Val())
	recv(ss)
	return log
}

// redis-cli, as a user runs it: SUBSCRIBE in RESP2 and RESP3 (-3) prints
// the same lines for both servers.
func TestPubSubRedisCLI(t *testing.T) {
	requireServers(t)
	cli, err := testredis.FindTool("redis-cli")
	if err != nil {
		t.Skip("redis-cli not found")
	}
	run := func(addr string, resp3 bool) string {
		host, port := splitHostPort(t, addr)
		args := []string{"-h", host, "-p", port}
		if resp3 {
			args = append(args, "-3")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		sub := exec.CommandContext(ctx, cli, append(args, "SUBSCRIBE", "cli-ch")...)
		var out strings.Builder
		sub.Stdout = &out
		if err := sub.Start(); err != nil {
			t.Fatal(err)
		}
		// Publish until the subscriber is there (it counts), then stop it.
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			pub, _ := exec.Command(cli, append(args, "PUBLISH", "cli-ch", "hello from cli")...).Output()
			if strings.TrimSpace(string(pub)) == "1" || strings.TrimSpace(string(pub)) == "(integer) 1" {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		sub.Process.Kill()
		sub.Wait()
		return out.String()
	}
	for _, resp3 := range []bool{false, true} {
		want, got := run(redisAddr, resp3), run(limitkvAddr, resp3)
		if want != got || !strings.Contains(got, "hello from cli") {
			t.Errorf("redis-cli SUBSCRIBE (resp3=%v) differs\n redis:   %q\n limitkv: %q", resp3, want, got)
		}
	}
}

func splitHostPort(t *testing.T, addr string) (string, string) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		t.Fatalf("address %q has no port", addr)
	}
	return addr[:i], addr[i+1:]
}
