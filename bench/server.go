package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every process the harness starts is registered here so that a normal
// return, a failure, a panic or a signal all stop it, by its pid.
var children = struct {
	sync.Mutex
	procs map[int]*exec.Cmd
}{procs: map[int]*exec.Cmd{}}

// startChild starts cmd in its own process group (so the terminal's Ctrl-C
// reaches only the harness, which then stops it in order) with a parent-death
// signal as a last resort should the harness itself be killed.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	children.Lock()
	defer children.Unlock()
	if children.procs == nil {
		return errors.New("harness is shutting down")
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	children.procs[cmd.Process.Pid] = cmd
	return nil
}

// runChild runs a short-lived registered child and returns its output.
func runChild(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startChild(cmd); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	forgetChild(cmd)
	return out.Bytes(), err
}

func forgetChild(cmd *exec.Cmd) {
	children.Lock()
	delete(children.procs, cmd.Process.Pid)
	children.Unlock()
}

// stopAllChildren terminates every registered process by pid: SIGTERM, then
// SIGKILL for any still alive after the grace period. No new child can start
// afterwards.
func stopAllChildren() {
	children.Lock()
	procs := children.procs
	children.procs = nil
	children.Unlock()
	for pid := range procs {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pid := range procs {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// alive reports whether pid still runs and is not a zombie. Exited children
// are reaped by the Wait goroutine each server runs.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// portRange, if set (-ports lo-hi), is where freePort picks ports, for a
// shared machine where each user keeps to a range; otherwise the kernel
// picks.
var portRange [2]int

// nextPort is where the next search of portRange starts: ports are not
// reused within a run, so a stopped server's port in TIME_WAIT is no issue.
var nextPort int

// freePort asks the kernel for an unused loopback port, or takes the next
// free one of portRange.
func freePort() (int, error) {
	if portRange[0] > 0 {
		for p := portRange[0]; p <= portRange[1]; p++ {
			if p < nextPort {
				continue
			}
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				continue
			}
			ln.Close()
			nextPort = p + 1
			return p, nil
		}
		return 0, fmt.Errorf("no free port in %d-%d", portRange[0], portRange[1])
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serverCPUs, if set, is the taskset CPU list every server process (limitkv,
// redis-server, floor) is started on (-server-cpus); the harness and the
// load generators stay unpinned.
var serverCPUs string

// server is one running limitkv, redis-server or floor.
type server struct {
	Name    string // "limitkv", "redis" or "floor"
	Addr    string
	Pprof   string // limitkv's pprof address, if started with one
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	state   string // what data the runner left in it (see ensureState)
}

func (s *server) Pid() int { return s.cmd.Process.Pid }

// The Redis binaries bench runs, set by bench before any server starts.
var redisServerBin, redisBenchmarkBin = "redis-server", "redis-benchmark"

// startServer starts a limitkv, redis-server or floor (bin: the built
// binary; redis-server is redisServerBin) on a free loopback port and waits
// until it answers PING.
func startServer(name, bin, dir string, pprof bool) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{Name: name, Addr: "127.0.0.1:" + strconv.Itoa(port), exited: make(chan struct{})}
	var args []string
	switch name {
	case "limitkv":
		// No snapshots, as the Redis it is compared with (--save ""): the
		// binary's default save points would stall a long run with BGSAVEs.
		args = []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--log-level", "warn", "--save", "", "--dir", dir}
		if pprof {
			pp, err := freePort()
			if err != nil {
				return nil, err
			}
			s.Pprof = "127.0.0.1:" + strconv.Itoa(pp)
			args = append(args, "--pprof", s.Pprof)
		}
	case "redis":
		bin = redisServerBin
		args = []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--dir", dir, "--logfile", ""}
	case "floor":
		args = []string{"--port", strconv.Itoa(port)}
	default:
		return nil, fmt.Errorf("unknown server %q", name)
	}
	s.logPath = filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, port))
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	if serverCPUs != "" {
		// taskset sets the affinity and execs the server: same pid, and
		// every thread the server starts inherits the CPU list.
		args = append([]string{"-c", serverCPUs, bin}, args...)
		bin = "taskset"
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := startChild(s.cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-s.exited:
			forgetChild(s.cmd)
			return nil, fmt.Errorf("%s exited at startup: %s", name, s.logTail())
		default:
		}
		if c, err := dial(s.Addr); err == nil {
			r, err := c.Do("PING")
			c.Close()
			if err == nil && r.str == "PONG" {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("%s did not answer PING within 15s: %s", name, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop terminates the server by pid: SIGTERM, then SIGKILL after 5s.
func (s *server) Stop() {
	if s == nil || s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
	default:
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
	forgetChild(s.cmd)
}

// Alive reports whether the server process is still running.
func (s *server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// RSS is the server's resident set size in bytes (VmRSS), or -1.
func (s *server) RSS() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.Pid()) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return -1
}

// CPUTime is user+system CPU the server has used so far.
func (s *server) CPUTime() time.Duration { return procCPU(strconv.Itoa(s.Pid())) }

// machineCPU returns the machine's busy and total CPU time so far from
// /proc/stat, in USER_HZ ticks.
func machineCPU() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i := 1; i < len(f); i++ {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		if i == 9 || i == 10 { // guest time is already in user
			continue
		}
		total += v
		if i != 4 && i != 5 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// procCPU reads a process's user+system CPU time from /proc/<pid>/stat
// (pid may be "self").
func procCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command name: state is field 3, utime 14, stime 15 (1-based).
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// Do runs one command on a fresh connection.
func (s *server) Do(args ...string) (reply, error) {
	c, err := dial(s.Addr)
	if err != nil {
		return reply{}, err
	}
	defer c.Close()
	return c.Do(args...)
}

// Info returns one INFO field.
func (s *server) Info(section, field string) string {
	r, err := s.Do("INFO", section)
	if err != nil || r.kind != '$' {
		return ""
	}
	return infoField(r.str, field)
}

func (s *server) UsedMemory() int64 {
	n, err := strconv.ParseInt(s.Info("memory", "used_memory"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func (s *server) DBSize() (int64, error) {
	c, err := dial(s.Addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.Int("DBSIZE")
}

func (s *server) FlushAll() error {
	r, err := s.Do("FLUSHALL")
	if err == nil {
		err = r.err()
	}
	return err
}

// cpusAllowed is the CPU list the harness may run on (Cpus_allowed_list).
func cpusAllowed() ([]int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return parseCPUList(strings.TrimSpace(v))
		}
	}
	return nil, errors.New("no Cpus_allowed_list in /proc/self/status")
}

// parseCPUList parses a list such as "0-3,6".
func parseCPUList(v string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(v, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q", v)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", v)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// resolveServerCPUs turns -server-cpus into a taskset CPU list: a count N
// takes the first N CPUs the harness may use; a list ("1", written "1-1"
// or "0,1" when it is one CPU that is not the first) is used as given.
func resolveServerCPUs(v string) (list string, of string, err error) {
	allowed, err := cpusAllowed()
	if err != nil {
		return "", "", err
	}
	var ofs []string
	for _, c := range allowed {
		ofs = append(ofs, strconv.Itoa(c))
	}
	of = strings.Join(ofs, ",")
	if _, err := exec.LookPath("taskset"); err != nil {
		return "", "", errors.New("taskset not found (apt-get install util-linux)")
	}
	var cpus []int
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 || n > len(allowed) {
			return "", "", fmt.Errorf("%d CPUs asked, the harness may use %d (%s)", n, len(allowed), of)
		}
		cpus = allowed[:n]
	} else {
		if cpus, err = parseCPUList(v); err != nil {
			return "", "", err
		}
		ok := map[int]bool{}
		for _, c := range allowed {
			ok[c] = true
		}
		for _, c := range cpus {
			if !ok[c] {
				return "", "", fmt.Errorf("CPU %d is not one the harness may use (%s)", c, of)
			}
		}
	}
	var l []string
	for _, c := range cpus {
		l = append(l, strconv.Itoa(c))
	}
	return strings.Join(l, ","), of, nil
}
