// Command cluster compares a Redis Cluster of three limitkv masters with
// one of three redis-server masters under the same load: redis-benchmark
// --cluster (the same client, the same keys: its {tag} placeholder takes a
// hash tag of a slot of the node each client talks to) runs SET, GET, the
// seed check (RL.CHECK on limitkv, the seed's EVALSHA on Redis) and the
// seed's EVALSHA on both, at each pipeline depth, in rounds that alternate
// which cluster goes first. It reports requests per second and the three
// masters' CPU per request (utime+stime from /proc/<pid>/stat), each as the
// median over the rounds, and the ratios limitkv/Redis.
//
//	go run ./bench/cluster                        # 5 rounds of 200,000 requests per row
//	go run ./bench/cluster -rounds 1 -n 20000     # a quick check that it works
//
// It builds ./cmd/limitkv (or runs -bin), listens on free loopback ports
// only (client and bus ports), and stops every server it started by its
// pid, also on failure. Not part of `go test ./...`.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/bench/cluster/launch"
	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

var (
	bin       = flag.String("bin", "", "limitkv binary (default: build ./cmd/limitkv)")
	redisBin  = flag.String("redis-server", "redis-server", "redis-server binary")
	cliBin    = flag.String("redis-cli", "redis-cli", "redis-cli binary")
	benchBin  = flag.String("redis-benchmark", "redis-benchmark", "redis-benchmark binary")
	rounds    = flag.Int("rounds", 5, "rounds; each runs every row on both clusters, alternating which goes first")
	requests  = flag.Int("n", 200000, "requests per run")
	clients   = flag.Int("c", 50, "redis-benchmark clients")
	pipelines = flag.String("P", "1,16", "pipeline depths")
	only      = flag.String("rows", "set,get,seed,evalsha", "rows to run: set, get, seed, evalsha")
	keep      = flag.Bool("keep", false, "keep the working directory (logs)")
)

// row is one workload: redis-benchmark's arguments for each kind of
// cluster.
type row struct {
	id, name  string
	lkv, rds  []string
	keyspace  int
	flushData bool // FLUSHALL before each run; GET reads what the SET row left
}

func rows(sha string) []row {
	check := []string{"{tag}:rl:__rand_int__", "1700000000000", "60000", "5", "m:__rand_int__"}
	evalsha := append([]string{"EVALSHA", sha, "1"}, check...)
	return []row{
		{"set", "SET", []string{"-t", "set"}, []string{"-t", "set"}, 100000, true},
		{"get", "GET", []string{"-t", "get"}, []string{"-t", "get"}, 100000, false},
		{"seed", "seed check: RL.CHECK vs EVALSHA", append([]string{"RL.CHECK"}, check...), evalsha, 1000000, true},
		{"evalsha", "seed EVALSHA on both", evalsha, evalsha, 1000000, true},
	}
}

func main() {
	flag.Parse()
	redis.SetLogger(quiet{}) // a node's port answering only once it has started is expected
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

type target struct {
	kind string
	c    *launch.Cluster
}

// measure is one run: requests per second and the masters' CPU per request.
type measure struct{ rps, cpuUs float64 }

func run() error {
	var ps []int
	for _, s := range strings.Split(*pipelines, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || p < 1 {
			return fmt.Errorf("-P %q", *pipelines)
		}
		ps = append(ps, p)
	}
	work, err := os.MkdirTemp("", "limitkv-bench-cluster-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Println("working directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	path := *bin
	if path == "" {
		if path, err = launch.BuildLimitkv(work); err != nil {
			return err
		}
	}
	o := launch.Options{Limitkv: path, RedisServer: *redisBin, RedisCLI: *cliBin, Dir: work}
	var targets []target
	defer func() {
		for _, t := range targets {
			t.c.Stop()
		}
	}()
	// Ctrl-C stops the servers too (by the deferred Stop, via the error).
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	for _, kind := range []string{"limitkv", "redis"} {
		c, err := launch.Start(o, kind, kind, 3, 0)
		if c != nil {
			targets = append(targets, target{kind, c})
		}
		if err != nil {
			return err
		}
	}
	ctx := context.Background()
	seed := redis.NewScript(seedscript.Source)
	for _, t := range targets {
		for _, n := range t.c.Nodes {
			rc := redis.NewClient(&redis.Options{Addr: n.Addr})
			err := seed.Load(ctx, rc).Err()
			rc.Close()
			if err != nil {
				return fmt.Errorf("SCRIPT LOAD on %s: %w", n.Name, err)
			}
		}
	}
	want := map[string]bool{}
	for _, r := range strings.Split(*only, ",") {
		want[strings.TrimSpace(r)] = true
	}
	fmt.Printf("3 masters each, no replicas; redis-benchmark --cluster -c %d -n %d, %d rounds; %s\n\n",
		*clients, *requests, *rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Println("| row | P | limitkv rps | Redis rps | rps limitkv/Redis | limitkv CPU us/req | Redis CPU us/req | CPU limitkv/Redis |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, rw := range rows(seed.Hash()) {
		if !want[rw.id] {
			continue
		}
		for _, p := range ps {
			got := map[string][]measure{}
			var rpsRatio, cpuRatio []float64
			for round := range *rounds {
				order := targets
				if round%2 == 1 {
					order = []target{targets[1], targets[0]}
				}
				m := map[string]measure{}
				for _, t := range order {
					select {
					case <-interrupted:
						return errors.New("interrupted")
					default:
					}
					args := rw.rds
					if t.kind == "limitkv" {
						args = rw.lkv
					}
					if rw.flushData {
						for _, n := range t.c.Nodes {
							if _, err := n.Do(ctx, "FLUSHALL"); err != nil {
								return err
							}
						}
					}
					r, err := bench(t.c, p, rw.keyspace, args)
					if err != nil {
						return fmt.Errorf("%s on %s: %w", rw.name, t.kind, err)
					}
					m[t.kind] = r
					got[t.kind] = append(got[t.kind], r)
				}
				rpsRatio = append(rpsRatio, m["limitkv"].rps/m["redis"].rps)
				cpuRatio = append(cpuRatio, m["limitkv"].cpuUs/m["redis"].cpuUs)
			}
			med := func(kind string, f func(measure) float64) float64 {
				var v []float64
				for _, x := range got[kind] {
					v = append(v, f(x))
				}
				return median(v)
			}
			rps := func(x measure) float64 { return x.rps }
			cpu := func(x measure) float64 { return x.cpuUs }
			fmt.Printf("| %s | %d | %.0f | %.0f | %.2fx | %.2f | %.2f | %.2fx |\n", rw.name, p,
				med("limitkv", rps), med("redis", rps), median(rpsRatio),
				med("limitkv", cpu), med("redis", cpu), median(cpuRatio))
		}
	}
	return nil
}

// bench runs redis-benchmark --cluster against c and reads the masters'
// CPU around it.
func bench(c *launch.Cluster, pipeline, keyspace int, args []string) (measure, error) {
	full := []string{"--cluster", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Nodes[0].Port), "-c", strconv.Itoa(*clients),
		"-n", strconv.Itoa(*requests), "-P", strconv.Itoa(pipeline), "-r", strconv.Itoa(keyspace), "--csv"}
	full = append(full, args...)
	cpu0 := clusterCPU(c)
	cmd := exec.Command(*benchBin, full...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return measure{}, fmt.Errorf("redis-benchmark %s: %v: %s", strings.Join(full, " "), err, errb.String())
	}
	cpu := clusterCPU(c) - cpu0
	// In cluster mode the CSV follows a listing of the masters.
	text := out.String()
	i := strings.Index(text, "\"test\",")
	if i < 0 {
		return measure{}, fmt.Errorf("redis-benchmark output: %q %q", text, errb.String())
	}
	recs, err := csv.NewReader(strings.NewReader(text[i:])).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[1]) < 2 {
		return measure{}, fmt.Errorf("redis-benchmark output: %v: %q %q", err, text, errb.String())
	}
	rps, err := strconv.ParseFloat(recs[1][1], 64)
	if err != nil || rps <= 0 {
		return measure{}, fmt.Errorf("redis-benchmark output: %q", out.String())
	}
	return measure{rps: rps, cpuUs: float64(cpu.Microseconds()) / float64(*requests)}, nil
}

func clusterCPU(c *launch.Cluster) time.Duration {
	var d time.Duration
	for _, n := range c.Nodes {
		d += n.CPU()
	}
	return d
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
