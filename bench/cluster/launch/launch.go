// Package launch starts Redis Clusters of limitkv or redis-server nodes for
// the cluster benches (bench/cluster, bench/failover -cluster): each node a
// child process on free loopback ports (client and bus), joined by
// redis-cli --cluster create, and stopped by its pid.
package launch

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options say which binaries to run and where.
type Options struct {
	Limitkv     string // limitkv binary
	RedisServer string // default "redis-server"
	RedisCLI    string // default "redis-cli"
	Dir         string // each node gets a subdirectory for its files and log
	NodeTimeout int    // cluster-node-timeout, ms; default 2000
}

// Node is one server of a cluster.
type Node struct {
	Name string
	Kind string // "limitkv" or "redis"
	Addr string
	Port int
	ID   string
	Cmd  *exec.Cmd
	done chan struct{}
}

// Pid is the node's process id.
func (n *Node) Pid() int { return n.Cmd.Process.Pid }

// Exited reports whether the process has ended.
func (n *Node) Exited() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// Kill is kill -9, as a crash would end it; it waits for the process.
func (n *Node) Kill() {
	if !n.Exited() {
		n.Cmd.Process.Kill()
		<-n.done
	}
}

// Stop ends the node with SIGTERM, SIGKILL after 5 s.
func (n *Node) Stop() {
	if n.Exited() {
		return
	}
	n.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(5 * time.Second):
		n.Kill()
	}
}

// CPU is the process's user+system CPU time so far, from /proc/<pid>/stat.
func (n *Node) CPU() time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(n.Pid()) + "/stat")
	if err != nil {
		return 0
	}
	// The command name may hold spaces: the fields start after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// Do runs one command on a fresh connection.
func (n *Node) Do(ctx context.Context, args ...any) (any, error) {
	c := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1, DialTimeout: time.Second, DialerRetries: 1})
	defer c.Close()
	return c.Do(ctx, args...).Result()
}

// Cluster is the nodes redis-cli --cluster create joined.
type Cluster struct {
	Nodes []*Node
	cli   string
}

// Start starts masters*(1+replicas) nodes of kind ("limitkv" or "redis")
// and joins them with redis-cli --cluster create, which takes the first
// masters as masters; it returns once every node says cluster_state:ok,
// knows every other and --cluster check is clean. On an error it stops
// what it started.
func Start(o Options, name, kind string, masters, replicas int) (c *Cluster, err error) {
	if o.RedisServer == "" {
		o.RedisServer = "redis-server"
	}
	if o.RedisCLI == "" {
		o.RedisCLI = "redis-cli"
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = 2000
	}
	bin := o.RedisServer
	if kind == "limitkv" {
		bin = o.Limitkv
	}
	c = &Cluster{cli: o.RedisCLI}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	for i := range masters * (1 + replicas) {
		n, err := startNode(o, bin, fmt.Sprintf("%s-%d", name, i), kind)
		if n != nil {
			c.Nodes = append(c.Nodes, n)
		}
		if err != nil {
			return c, err
		}
	}
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr)
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	out, err := exec.Command(c.cli, args...).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("[OK] All 16384 slots covered.")) {
		return c, fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	return c, c.WaitOK(30*time.Second, nil)
}

func startNode(o Options, bin, name, kind string) (*Node, error) {
	port, bus := freePort(), freePort()
	dir := filepath.Join(o.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "out.log"))
	if err != nil {
		return nil, err
	}
	n := &Node{Name: name, Kind: kind, Port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{})}
	n.Cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", strconv.Itoa(o.NodeTimeout))
	n.Cmd.Dir = dir
	n.Cmd.Stdout, n.Cmd.Stderr = logf, logf
	if err := n.Cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() { n.Cmd.Wait(); logf.Close(); close(n.done) }()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		id, err := n.Do(ctx, "CLUSTER", "MYID")
		if err == nil {
			n.ID, _ = id.(string)
			return n, nil
		}
		if n.Exited() || time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "out.log"))
			return n, fmt.Errorf("%s did not start: %v\n%s", name, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops every node still running, by its pid.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Stop()
	}
}

// Live is the nodes whose process runs.
func (c *Cluster) Live() []*Node {
	var live []*Node
	for _, n := range c.Nodes {
		if !n.Exited() {
			live = append(live, n)
		}
	}
	return live
}

// Masters is the live nodes that say role:master.
func (c *Cluster) Masters(ctx context.Context) []*Node {
	var ms []*Node
	for _, n := range c.Live() {
		if r, err := n.Do(ctx, "ROLE"); err == nil {
			if a, ok := r.([]any); ok && len(a) > 0 && a[0] == "master" {
				ms = append(ms, n)
			}
		}
	}
	return ms
}

// WaitOK waits until every live node says cluster_state:ok and knows every
// node but gone, and redis-cli --cluster check, asked of a live node,
// finds the slots covered and agreed on.
func (c *Cluster) WaitOK(d time.Duration, gone *Node) error {
	ctx := context.Background()
	deadline := time.Now().Add(d)
	live := c.Live()
	known := fmt.Sprintf("cluster_known_nodes:%d\r\n", len(c.Nodes))
	for {
		why := ""
		for _, n := range live {
			info, err := n.Do(ctx, "CLUSTER", "INFO")
			s, _ := info.(string)
			if err != nil || !strings.Contains(s, "cluster_state:ok\r\n") || !strings.Contains(s, known) {
				why = fmt.Sprintf("%s: %v %q", n.Name, err, s)
				break
			}
		}
		if why == "" {
			out, err := exec.Command(c.cli, "--cluster", "check", live[0].Addr).CombinedOutput()
			s := string(out)
			if err != nil || !strings.Contains(s, "[OK] All nodes agree about slots configuration.") ||
				!strings.Contains(s, "[OK] All 16384 slots covered.") || strings.Contains(s, "[ERR]") ||
				strings.Contains(s, "[WARNING]") || gone != nil && strings.Contains(s, gone.ID) {
				why = fmt.Sprintf("redis-cli --cluster check: %v\n%s", err, s)
			}
		}
		if why == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster is not ok after %v: %s", d, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Seeds is every live node's address, for a ClusterClient.
func (c *Cluster) Seeds() []string {
	var a []string
	for _, n := range c.Live() {
		a = append(a, n.Addr)
	}
	return a
}

// BuildLimitkv builds ./cmd/limitkv into dir (run from the repository root).
func BuildLimitkv(dir string) (string, error) {
	path := filepath.Join(dir, "limitkv")
	b := exec.Command("go", "build", "-o", path, "./cmd/limitkv")
	b.Stdout, b.Stderr = os.Stdout, os.Stderr
	if err := b.Run(); err != nil {
		return "", fmt.Errorf("building ./cmd/limitkv (run from the repository root): %w", err)
	}
	return path, nil
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
