package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// busyProcesses samples every process's CPU time over d and returns those
// that used more than minShare of one core, busiest first. Benchmarks on a
// 2-core machine are only meaningful when nothing else runs, so the report
// names whatever did.
func busyProcesses(d time.Duration, minShare float64) []string {
	snap := func() map[int]time.Duration {
		m := map[int]time.Duration{}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			m[pid] = procCPU(e.Name())
		}
		return m
	}
	a := snap()
	time.Sleep(d)
	b := snap()
	type busy struct {
		pid   int
		share float64
	}
	var bs []busy
	for pid, t := range b {
		if pid == os.Getpid() {
			continue
		}
		if share := float64(t-a[pid]) / float64(d); share > minShare {
			bs = append(bs, busy{pid, share})
		}
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].share > bs[j].share })
	var out []string
	for _, x := range bs {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(x.pid) + "/cmdline")
		name := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(name) > 80 {
			name = name[:80] + "..."
		}
		out = append(out, fmt.Sprintf("pid %d (%s) %.0f%% of a core", x.pid, name, 100*x.share))
	}
	return out
}

// cpuSnap is every process's CPU time at one moment.
type cpuSnap struct {
	at   time.Time
	cpus map[int]time.Duration
}

func snapCPU() cpuSnap {
	s := cpuSnap{at: time.Now(), cpus: map[int]time.Duration{}}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			s.cpus[pid] = procCPU(e.Name())
		}
	}
	return s
}

// othersShare is how many cores processes other than the harness, its
// children and the servers used between a and b. A process that appeared
// in between counts with all its CPU time.
func othersShare(a, b cpuSnap) float64 {
	ours := map[int]bool{os.Getpid(): true}
	children.Lock()
	for pid := range children.procs {
		ours[pid] = true
	}
	children.Unlock()
	var sum time.Duration
	for pid, t := range b.cpus {
		if !ours[pid] {
			sum += t - a.cpus[pid]
		}
	}
	wall := b.at.Sub(a.at)
	if wall <= 0 {
		return 0
	}
	return float64(sum) / float64(wall)
}

// reniceSelf gives every thread of the harness the nice value n; threads
// and children created afterwards inherit it. Linux's setpriority applies
// per thread, hence the walk over /proc/self/task.
func reniceSelf(n int) error {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil {
			return err
		}
	}
	return nil
}
