package replicas

import (
	"context"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// urlEnv is set (by scripts/test.sh) when a Redis is available: then the
// tests that start a RedisServer must run, and they need redis-server on
// PATH.
const urlEnv = "GOMCP_REDIS_URL"

// RedisServer is a redis-server a test starts for itself on a free
// loopback port, for the tests that run processes sharing one Redis (the
// replicas here, the mcp command's gateway replicas).
type RedisServer struct {
	t    testing.TB
	addr string
	args []string
	cmd  *exec.Cmd
}

// StartRedis starts a RedisServer, stopped when the test ends. With
// persist it writes every write to disk before answering (appendfsync
// always), so that Stop and Start lose nothing acknowledged; without, it
// keeps nothing. Without redis-server on PATH the test is skipped, unless
// CI or GOMCP_REDIS_URL is set: then it fails.
func StartRedis(t testing.TB, persist bool) *RedisServer {
	t.Helper()
	bin := requireRedisServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &RedisServer{t: t, addr: ln.Addr().String()}
	ln.Close()
	_, port, _ := net.SplitHostPort(r.addr)
	appendonly := []string{"--appendonly", "no"}
	if persist {
		appendonly = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	r.args = append([]string{bin, "--port", port, "--bind", "127.0.0.1", "--dir", t.TempDir(), "--save", ""}, appendonly...)
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// requireRedisServer returns the path of redis-server, or skips the test
// outside CI when Redis is not set up.
func requireRedisServer(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" || os.Getenv(urlEnv) != "" {
		t.Fatalf("redis-server is not on PATH but CI or %s is set: this test must run (scripts/test.sh installs redis-server)", urlEnv)
	}
	t.Skipf("redis-server is not on PATH and neither CI nor %s is set: skipping this test (scripts/test.sh installs and starts Redis)", urlEnv)
	return ""
}

// Addr returns the server's HOST:PORT.
func (r *RedisServer) Addr() string { return r.addr }

// URL returns the server's redis:// URL, database 0.
func (r *RedisServer) URL() string { return "redis://" + r.addr + "/0" }

// Pid returns the process id of the running server.
func (r *RedisServer) Pid() int { return r.cmd.Process.Pid }

// Start starts the server (again, after Stop) and waits until it answers.
func (r *RedisServer) Start() {
	r.t.Helper()
	r.cmd = exec.Command(r.args[0], r.args[1:]...)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: r.addr, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server on %s did not start", r.addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server (SIGTERM), if it runs, and waits until it exited.
func (r *RedisServer) Stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	_ = r.cmd.Wait()
	r.cmd = nil
}
