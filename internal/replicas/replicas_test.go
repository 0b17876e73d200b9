package replicas

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// clusterEnv holds the addresses of a Redis Cluster's nodes
// (HOST:PORT,HOST:PORT…), set by scripts/test.sh, which starts one.
const clusterEnv = "GOMCP_REDIS_CLUSTER_ADDRS"

const version = "2025-11-25"

// replica is one everything-server process.
type replica struct {
	cmd  *exec.Cmd
	url  *url.URL
	done chan error
}

// cluster is three replicas sharing one Redis behind a Proxy.
type cluster struct {
	t     *testing.T
	bin   string
	flag  string // -redis or -redis-cluster, for replicas started again
	value string
	redis *RedisServer
	reps  []*replica
	proxy *Proxy
	ts    *httptest.Server
	url   string
}

func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/gomcp/sdk/conformance/everything-server").CombinedOutput()
	if err != nil {
		t.Fatalf("go build everything-server: %v\n%s", err, out)
	}
	return bin
}

// startReplica starts an everything-server on addr (port 0: a free one),
// given flag (-redis or -redis-cluster) set to value, and extra flags.
func startReplica(t *testing.T, bin, addr, flag, value string, extra ...string) *replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", addr, flag, value}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd, done: make(chan error, 1)}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("everything-server did not start: %v", err)
	}
	u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "listening on "), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	r.url = u
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		r.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// newCluster starts a redis-server of the test's own and three replicas
// on it.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	t.Cleanup(http.DefaultClient.CloseIdleConnections) // last: no idle connection outlives the test
	rs := StartRedis(t, true)
	return startReplicas(t, rs, "-redis", rs.URL())
}

// startReplicas starts three replicas given flag (-redis or
// -redis-cluster) set to value, behind a proxy; rs is their redis-server,
// if the test has one of its own.
func startReplicas(t *testing.T, rs *RedisServer, flag, value string, extra ...string) *cluster {
	t.Helper()
	t.Cleanup(http.DefaultClient.CloseIdleConnections) // last: no idle connection outlives the test
	bin := buildServer(t)
	c := &cluster{t: t, redis: rs, bin: bin, flag: flag, value: value}
	var targets []*url.URL
	for range 3 {
		r := startReplica(t, bin, "127.0.0.1:0", flag, value, extra...)
		c.reps = append(c.reps, r)
		targets = append(targets, r.url)
	}
	c.proxy = NewProxy(targets)
	c.ts = httptest.NewServer(c.proxy)
	t.Cleanup(c.ts.Close)
	c.url = c.ts.URL + "/mcp"
	return c
}

// alive fails the test if a replica exited (other than those killed).
func (c *cluster) alive(killed ...int) {
	c.t.Helper()
	for i, r := range c.reps {
		if contains(killed, i) {
			continue
		}
		select {
		case err := <-r.done:
			c.t.Fatalf("replica %d exited: %v", i, err)
		default:
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// answer is one HTTP exchange.
type answer struct {
	status  int
	replica string
	sid     string
	// retryAfter is the Retry-After header.
	retryAfter string
	body       string
	msg        struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

var idSeq int

// post sends one JSON-RPC message to url for the session sid and reads
// the answer (JSON only, never SSE).
func post(t *testing.T, url, sid, body string) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, replica: resp.Header.Get("X-Replica"), sid: resp.Header.Get("Mcp-Session-Id"),
		retryAfter: resp.Header.Get("Retry-After"), body: string(b)}
	data := b
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The answer is the last data line of the stream.
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(d, `"id"`) {
				data = []byte(d)
			}
		}
	}
	_ = json.Unmarshal(data, &a.msg)
	return a
}

func request(method, params string) string {
	idSeq++
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, idSeq, method, params)
}

// session runs the handshake through url and returns the session id.
func session(t *testing.T, url string) string {
	t.Helper()
	a := post(t, url, "", request("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"replicas-test","version":"1"}}`))
	if a.status != 200 || a.sid == "" || a.msg.Error != nil {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	if b := post(t, url, a.sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); b.status != 202 {
		t.Fatalf("initialized: %d %s", b.status, b.body)
	}
	return a.sid
}

func callTool(t *testing.T, url, sid, name, args string) answer {
	t.Helper()
	return post(t, url, sid, request("tools/call", `{"name":"`+name+`","arguments":`+args+`}`))
}

// event is one SSE event.
type event struct{ id, data string }

// stream is an open GET stream.
type stream struct {
	replica string
	events  chan event
	cancel  context.CancelFunc
}

// openGET opens the standalone stream of sid through url, resuming after
// last if set.
func openGET(t *testing.T, url, sid, last string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET: %d %s", resp.StatusCode, b)
	}
	s := &stream{replica: resp.Header.Get("X-Replica"), events: make(chan event, 64), cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.data != "" {
					s.events <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "id:"):
				ev.id = strings.TrimSpace(line[3:])
			case strings.HasPrefix(line, "data:"):
				ev.data += strings.TrimSpace(line[5:])
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// next returns the next event carrying data, or fails after a while.
func (s *stream) next(t *testing.T) event {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the GET stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event on the GET stream within 10s")
	}
	return event{}
}

// quiet fails if an event arrives within d.
func (s *stream) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			t.Fatalf("unexpected event %s: %s", ev.id, ev.data)
		}
	case <-time.After(d):
	}
}

// updatedURI returns the URI of a notifications/resources/updated event.
func updatedURI(t *testing.T, ev event) string {
	t.Helper()
	var m struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil || m.Method != "notifications/resources/updated" {
		t.Fatalf("event %s is not a resource update: %s", ev.id, ev.data)
	}
	return m.Params.URI
}

// direct is the URL of replica i itself, bypassing the proxy.
func (c *cluster) direct(i int) string { return c.reps[i].url.String() + "/mcp" }

// probe asks replica i's health endpoint path and wants status.
func (c *cluster) probe(i int, path string, status int) {
	c.t.Helper()
	resp, err := http.Get(c.reps[i].url.String() + path)
	if err != nil {
		c.t.Fatalf("%s on replica %d: %v", path, i, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != status {
		c.t.Fatalf("%s on replica %d: %d %s, want %d", path, i, resp.StatusCode, body, status)
	}
}

// probeUntil is probe, asked again every 100ms until it answers status
// or deadline passes.
func (c *cluster) probeUntil(i int, path string, status int, deadline time.Time) {
	c.t.Helper()
	for time.Now().Before(deadline) {
		resp, err := http.Get(c.reps[i].url.String() + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.probe(i, path, status)
}

// touch makes replica i report uri as updated.
func (c *cluster) touch(i int, sid, uri string) {
	c.t.Helper()
	a := callTool(c.t, c.direct(i), sid, "replica_touch_resource", `{"uri":"`+uri+`"}`)
	if a.status != 200 || a.msg.Error != nil {
		c.t.Fatalf("touch on replica %d: %d %s", i, a.status, a.body)
	}
}

// TestReplicas drives one Redis-backed deployment of three replicas
// through the proxy, in the order a real one would live it.
func TestReplicas(t *testing.T) {
	c := newCluster(t)
	replicaTests(t, c)
	t.Run("Redis down and back", c.redisDownAndBack)
}

// TestReplicasCluster runs the tests of TestReplicas but the Redis outage
// with the replicas on a Redis Cluster (-redis-cluster), the one whose
// nodes clusterEnv names: skipped when it is unset, unless CI is set.
func TestReplicasCluster(t *testing.T) {
	replicaTests(t, startReplicas(t, nil, "-redis-cluster", requireCluster(t)))
}

// requireCluster returns the addresses in clusterEnv, or skips the test
// when it is unset, unless CI is set.
func requireCluster(t *testing.T) string {
	t.Helper()
	addrs := os.Getenv(clusterEnv)
	if addrs == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is not: the Redis Cluster tests must run in CI (scripts/test.sh starts a Cluster)", clusterEnv)
		}
		t.Skipf("no Redis Cluster: set %s=HOST:PORT,HOST:PORT,… (scripts/test.sh starts one) to run this test", clusterEnv)
	}
	return addrs
}

// replicaTests are the tests of three replicas behind the proxy that
// leave Redis alone.
func replicaTests(t *testing.T, c *cluster) {
	t.Run("conformance through the proxy", func(t *testing.T) {
		// The suite takes minutes: scripts/test.sh runs it in a stage of
		// its own ("replicas"), not in every go test.
		if os.Getenv("GOMCP_REPLICAS_CONFORMANCE") != "1" {
			t.Skip("GOMCP_REPLICAS_CONFORMANCE=1 is not set: the official suite through the proxy runs in the replicas stage of scripts/test.sh")
		}
		if os.Getenv("CONFORMANCE") == "" {
			t.Fatal("GOMCP_REPLICAS_CONFORMANCE=1 but CONFORMANCE (the suite's CLI, exported by scripts/tools.sh) is not set")
		}
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			cmd := exec.Command("bash", "../../scripts/conformance.sh", "server", c.url, v)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("conformance server suite at %s through three replicas: %v\n%s", v, err, out)
				continue
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "conformance server") || strings.Contains(line, "WARNING") {
					t.Log(strings.TrimSpace(line))
				}
			}
		}
		c.alive()
	})

	t.Run("session alternates between replicas", func(t *testing.T) {
		sid := session(t, c.url)
		seen := map[string]bool{}
		for i := range 6 {
			a := callTool(t, c.url, sid, "test_simple_text", `{}`)
			if a.status != 200 || a.msg.Error != nil || !strings.Contains(string(a.msg.Result), "simple text response") {
				t.Fatalf("call %d on replica %s: %d %s", i, a.replica, a.status, a.body)
			}
			seen[a.replica] = true
		}
		if len(seen) != 3 {
			t.Fatalf("the calls reached replicas %v, want all three", seen)
		}
		// The log level set through one replica holds on the others.
		if a := post(t, c.url, sid, request("logging/setLevel", `{"level":"error"}`)); a.status != 200 || a.msg.Error != nil {
			t.Fatalf("setLevel: %d %s", a.status, a.body)
		}
	})

	t.Run("subscription fires from another replica", func(t *testing.T) {
		sid := session(t, c.url)
		const uri = "test://watched-resource"
		if a := post(t, c.url, sid, request("resources/subscribe", `{"uri":"`+uri+`"}`)); a.status != 200 || a.msg.Error != nil {
			t.Fatalf("subscribe: %d %s", a.status, a.body)
		}
		s := openGET(t, c.url, sid, "")
		holder, _ := strconv.Atoi(s.replica)
		other := (holder + 1) % 3
		// A second session, whose requests go straight to another replica,
		// causes the change.
		caller := session(t, c.direct(other))
		c.touch(other, caller, uri)
		if got := updatedURI(t, s.next(t)); got != uri {
			t.Fatalf("updated %q, want %q", got, uri)
		}
		c.touch(other, caller, "test://not-subscribed")
		s.quiet(t, 300*time.Millisecond)
	})

	t.Run("task driven through every replica", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		before := [3]int64{c.proxy.Served(0), c.proxy.Served(1), c.proxy.Served(2)}
		// A 2026-07-28 client: every request stands alone, so each lands
		// on the next replica.
		cl := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			},
		})
		cs, err := cl.Connect(ctx, mcphttp.NewClientStream(c.url, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		// Created on one replica, polled and answered (tasks/update)
		// through the others, while its handler waits on the first.
		call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "confirm_delete", Arguments: json.RawMessage(`{"filename":"a.txt"}`)}, nil)
		if err != nil || call.Task == nil {
			t.Fatalf("CallToolTask: %+v, %v", call, err)
		}
		res, err := call.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "confirm_delete a.txt: accept") {
			t.Fatalf("task result %q", got)
		}
		// Cancelled through another replica than the one running it.
		slow, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "slow_compute", Arguments: json.RawMessage(`{"seconds":30,"label":"x"}`)}, nil)
		if err != nil || slow.Task == nil {
			t.Fatalf("CallToolTask slow_compute: %+v, %v", slow, err)
		}
		if err := tasks.Cancel(ctx, cs, slow.Task.TaskID); err != nil {
			t.Fatal(err)
		}
		for {
			dt, err := tasks.Get(ctx, cs, slow.Task.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			if dt.Status == tasks.TaskStatusCancelled {
				break
			}
			if dt.Status != tasks.TaskStatusWorking {
				t.Fatalf("after tasks/cancel: %s", dt.Status)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for i := range 3 {
			if c.proxy.Served(i) == before[i] {
				t.Fatalf("replica %d served none of the task's requests", i)
			}
		}
	})

	t.Run("GET stream resumes on another replica after SIGKILL", func(t *testing.T) {
		sid := session(t, c.url)
		if a := post(t, c.url, sid, request("resources/subscribe", `{"uri":"test://k"}`)); a.status != 200 || a.msg.Error != nil {
			t.Fatalf("subscribe: %d %s", a.status, a.body)
		}
		s := openGET(t, c.url, sid, "")
		holder, _ := strconv.Atoi(s.replica)
		other := (holder + 1) % 3
		caller := session(t, c.direct(other))
		var evs []event
		for range 5 {
			c.touch(other, caller, "test://k")
		}
		for range 5 {
			evs = append(evs, s.next(t))
		}
		// The client saw only the first two; the other three were lost in
		// flight with the replica.
		c.proxy.SetDown(holder, true)
		if err := c.reps[holder].cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-c.reps[holder].done
		c.reps[holder].done <- nil // for alive and the cleanup
		s.cancel()
		r := openGET(t, c.url, sid, evs[1].id)
		if r.replica == strconv.Itoa(holder) {
			t.Fatalf("resumed on the killed replica %d", holder)
		}
		for i := 2; i < 5; i++ {
			ev := r.next(t)
			if ev.id != evs[i].id || ev.data != evs[i].data {
				t.Fatalf("replayed event %d: %s %s, want %s %s", i, ev.id, ev.data, evs[i].id, evs[i].data)
			}
		}
		// Live again, on the new holder, with no duplicate.
		live := (holder + 2) % 3
		caller2 := session(t, c.direct(live))
		c.touch(live, caller2, "test://k")
		ev := r.next(t)
		if updatedURI(t, ev) != "test://k" || ev.id == evs[4].id {
			t.Fatalf("live event after resuming: %s %s", ev.id, ev.data)
		}
		r.quiet(t, 300*time.Millisecond)
		c.alive(holder)
	})
}

// redisDownAndBack stops the replicas' Redis and starts it again: they
// answer 503 meanwhile, and serve everything again by themselves after.
func (c *cluster) redisDownAndBack(t *testing.T) {
	sid := session(t, c.url)
	for _, i := range c.live() {
		c.probe(i, "/readyz", http.StatusOK)
	}
	c.redis.Stop()
	// The load balancer's probes: not ready (Redis does not answer),
	// but alive, so that nothing restarts the process.
	for _, i := range c.live() {
		c.probe(i, "/readyz", http.StatusServiceUnavailable)
		c.probe(i, "/livez", http.StatusOK)
	}
	// Anything that needs Redis gets a clear error with 503; the
	// processes stay up.
	for range 3 {
		a := post(t, c.url, "", request("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`))
		if a.status != http.StatusServiceUnavailable || a.msg.Error == nil {
			t.Fatalf("initialize while Redis is down: %d %s, want 503 with a JSON-RPC error", a.status, a.body)
		}
	}
	down := 0
	for range 3 {
		a := callTool(t, c.url, "never-issued-"+strconv.Itoa(idSeq), "test_simple_text", `{}`)
		if a.status == http.StatusServiceUnavailable && a.msg.Error != nil {
			down++
		}
	}
	if down == 0 {
		t.Fatal("no request for an unknown session got 503 while Redis was down")
	}
	c.alive(c.killed()...)
	c.redis.Start()
	// Full service again, by itself, with the session created before
	// the outage intact on every live replica.
	deadline := time.Now().Add(15 * time.Second)
	for {
		a := post(t, c.url, "", request("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`))
		if a.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("initialize after Redis came back: %d %s", a.status, a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, i := range c.live() {
		// Each replica's Redis client finds Redis again by itself, but
		// not all at the same moment: go-redis, after as many failed
		// dials as its pool has connections, dials again once a second.
		c.probeUntil(i, "/readyz", http.StatusOK, deadline)
		if a := callTool(t, c.direct(i), sid, "test_simple_text", `{}`); a.status != 200 || a.msg.Error != nil {
			t.Fatalf("old session on replica %d after the outage: %d %s", i, a.status, a.body)
		}
	}
	c.alive(c.killed()...)
}

func (c *cluster) killed() []int {
	var k []int
	for i := range c.reps {
		if c.reps[i].cmd.ProcessState != nil {
			k = append(k, i)
		}
	}
	return k
}

func (c *cluster) live() []int {
	var l []int
	for i := range c.reps {
		if c.reps[i].cmd.ProcessState == nil {
			l = append(l, i)
		}
	}
	return l
}
