package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// startProfile fetches a CPU profile of d from limitkv's --pprof endpoint
// into path; the returned func waits for it.
func startProfile(s *server, d time.Duration, path string) func() error {
	done := make(chan error, 1)
	if s.Pprof == "" {
		done <- fmt.Errorf("%s has no pprof endpoint", s.Name)
		return func() error { return <-done }
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	go func() {
		cl := http.Client{Timeout: time.Duration(secs+30) * time.Second}
		resp, err := cl.Get("http://" + s.Pprof + "/debug/pprof/profile?seconds=" + strconv.Itoa(secs))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			done <- fmt.Errorf("pprof: %s: %s", resp.Status, b)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return func() error { return <-done }
}

// fetchPprof saves one of limitkv's instant profiles (heap, allocs...).
func fetchPprof(s *server, name, path string) error {
	if s.Pprof == "" {
		return fmt.Errorf("%s has no pprof endpoint", s.Name)
	}
	resp, err := http.Get("http://" + s.Pprof + "/debug/pprof/" + name)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pprofTop writes `go tool pprof -top` of a profile next to it.
func pprofTop(bin, prof, out string, extra ...string) error {
	args := append([]string{"tool", "pprof", "-top", "-nodecount=40"}, extra...)
	args = append(args, bin, prof)
	b, err := runChild(exec.Command("go", args...))
	if werr := os.WriteFile(out, b, 0o644); err == nil {
		err = werr
	}
	return err
}

// profileCols are the functions whose cumulative share of a CPU profile the
// report shows: where limitkv's time goes.
var profileCols = []struct{ name, fn string }{
	{"syscalls", "internal/runtime/syscall/linux.Syscall6"},
	{"Engine.Exec", "github.com/limitkv/limitkv/internal/commands.(*Engine).Exec"},
	{"resp read", "github.com/limitkv/limitkv/internal/resp.(*Reader).ReadBatch"},
	{"mutex slow path", "internal/sync.(*Mutex).lockSlow"},
	{"scheduler", "runtime.schedule"},
	{"mallocgc", "runtime.mallocgc"},
	{"GC workers", "runtime.gcBgMarkWorker"},
	{"GC assist", "runtime.gcAssistAlloc"},
	{"GC sweep", "runtime.bgsweep"},
	{"scavenger", "runtime.bgscavenge"},
}

// profileSummary is one CPU profile reduced to profileCols shares.
type profileSummary struct {
	name    string
	seconds float64 // CPU seconds sampled
	wall    float64
	shares  []float64
}

// summarizeProfile reads `go tool pprof -top -cum` and picks profileCols.
func summarizeProfile(bin, path, name string) (profileSummary, error) {
	ps := profileSummary{name: name, shares: make([]float64, len(profileCols))}
	out, err := runChild(exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", bin, path))
	if err != nil {
		return ps, fmt.Errorf("%v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Duration:") {
			// Duration: 5s, Total samples = 3.49s (69.79%)
			f := strings.Fields(strings.NewReplacer(",", " ", "=", " ").Replace(line))
			if len(f) >= 5 {
				if d, err := time.ParseDuration(f[1]); err == nil {
					ps.wall = d.Seconds()
				}
				if d, err := time.ParseDuration(f[4]); err == nil {
					ps.seconds = d.Seconds()
				}
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		fn := strings.Join(f[5:], " ")
		for i, c := range profileCols {
			if fn == c.fn {
				v, _ := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
				ps.shares[i] = v
			}
		}
	}
	return ps, nil
}
