package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// rbResult is one redis-benchmark --csv line.
type rbResult struct {
	RPS           float64
	P50, P99, Max time.Duration
	CPU           time.Duration // redis-benchmark's own user+system CPU
}

// runRedisBenchmark runs redis-benchmark with n requests and parses its CSV
// line. args is either {"-t", test} or a command with __rand_int__ markers.
func runRedisBenchmark(addr string, clients, pipeline, n, randRange int, args []string) (rbResult, error) {
	host, port, _ := net.SplitHostPort(addr)
	full := []string{"-h", host, "-p", port, "-c", strconv.Itoa(clients), "-n", strconv.Itoa(n),
		"-P", strconv.Itoa(pipeline), "--csv"}
	if randRange > 0 {
		full = append(full, "-r", strconv.Itoa(randRange))
	}
	full = append(full, args...)
	cmd := exec.Command(redisBenchmarkBin, full...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := startChild(cmd); err != nil {
		return rbResult{}, err
	}
	err := cmd.Wait()
	forgetChild(cmd)
	if err != nil {
		return rbResult{}, fmt.Errorf("redis-benchmark %s: %v: %s", strings.Join(full, " "), err, strings.TrimSpace(errb.String()))
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		return rbResult{}, fmt.Errorf("redis-benchmark output: %v: %q", err, out.String())
	}
	if len(recs) < 2 || len(recs[1]) < 8 {
		return rbResult{}, fmt.Errorf("redis-benchmark output: %q %q", out.String(), errb.String())
	}
	f := func(i int) float64 { v, _ := strconv.ParseFloat(recs[1][i], 64); return v }
	ms := func(i int) time.Duration { return time.Duration(f(i) * float64(time.Millisecond)) }
	// Columns: test, rps, avg, min, p50, p95, p99, max.
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return rbResult{RPS: f(1), P50: ms(4), P99: ms(6), Max: ms(7), CPU: cpu}, nil
}
