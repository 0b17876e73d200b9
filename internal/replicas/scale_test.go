//go:build scalebench

package replicas

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/cputime"
	"github.com/gomcp/sdk/redisstore"
	"github.com/redis/go-redis/v9"
)

// The scale measurement of BENCHMARKS.md ("Replicas and Redis"): run it
// with
//
//	go test -tags scalebench -run TestScale -v -timeout 30m ./internal/replicas/
//
// It starts its own redis-server (no persistence) and its own six-node
// Redis Cluster on free loopback ports, everything-server replicas on each
// behind the round-robin Proxy, and measures from outside the processes:
// tools/call throughput of -scale.sessions sessions through 1 and 3
// replicas, the CPU each process spent (/proc), the Redis commands
// (INFO commandstats) and round trips (MONITOR, script-internal commands
// left out) per call, Redis memory per idle session and per stored event
// (INFO memory), and the time to serve -scale.many sessions through 3
// replicas. Every figure is the median of -scale.rounds runs.
var (
	scaleWindow   = flag.Duration("scale.d", 5*time.Second, "one throughput window")
	scaleRounds   = flag.Int("scale.rounds", 3, "runs per figure; the median is reported")
	scaleSessions = flag.Int("scale.sessions", 64, "concurrent sessions calling tools in a closed loop")
	scaleMany     = flag.Int("scale.many", 10000, "sessions created (initialize, initialized, one tools/call) through 3 replicas")
	scaleEvents   = flag.Int("scale.events", 40000, "events stored to measure Redis memory per event")
)

// scaleBackend is a Redis deployment the replicas share.
type scaleBackend struct {
	name        string
	flag, value string   // the replicas' flag
	masters     []string // the nodes whose INFO is summed
	pids        []int    // every redis-server process, for CPU
	rdb         redis.UniversalClient
}

func TestScale(t *testing.T) {
	requireRedisServer(t)
	bin := buildServer(t)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	t.Logf("GOMAXPROCS-visible cores: %d; each figure the median of %d runs", numCPU(), *scaleRounds)
	for _, b := range []*scaleBackend{singleRedis(t), clusterRedis(t)} {
		t.Run(b.name, func(t *testing.T) {
			for _, direct := range []bool{false, true} {
				for _, n := range []int{1, 3} {
					scaleThroughput(t, bin, b, n, direct)
				}
			}
			scaleManySessions(t, bin, b)
			scaleStreamedCalls(t, bin, b)
			scaleEventMemory(t, b)
		})
	}
}

// singleRedis starts one redis-server without persistence.
func singleRedis(t *testing.T) *scaleBackend {
	rs := StartRedis(t, false)
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return &scaleBackend{name: "one Redis", flag: "-redis", value: rs.URL(), masters: []string{rs.Addr()}, pids: []int{rs.Pid()}, rdb: rdb}
}

// clusterRedis starts a six-node Redis Cluster (three masters with a
// replica each).
func clusterRedis(t *testing.T) *scaleBackend {
	rc := StartRedisCluster(t)
	b := &scaleBackend{name: "Redis Cluster", flag: "-redis-cluster", value: strings.Join(rc.Addrs(), ",")}
	for _, n := range rc.nodes {
		b.pids = append(b.pids, n.cmd.Process.Pid)
		if strings.Contains(n.info("replication"), "role:master") {
			b.masters = append(b.masters, n.addr)
		}
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: rc.Addrs()})
	t.Cleanup(func() { rdb.Close() })
	b.rdb = rdb
	return b
}

// scaleReplicas starts n replicas on b behind a Proxy, without session
// limits (every request comes from one loopback address), and returns the
// proxy's URL and a function stopping them all.
func scaleReplicas(t *testing.T, bin string, b *scaleBackend, n int) (string, []*replica, func()) {
	var reps []*replica
	var targets []*url.URL
	for range n {
		r := startReplica(t, bin, "127.0.0.1:0", b.flag, b.value, "-max-sessions", "-1", "-max-sessions-per-client", "-1")
		reps = append(reps, r)
		targets = append(targets, r.url)
	}
	ts := httptest.NewServer(NewProxy(targets))
	stop := func() {
		ts.Close()
		for _, r := range reps {
			_ = r.cmd.Process.Signal(syscall.SIGTERM)
			<-r.done
			r.done <- nil // for the cleanup
		}
	}
	return ts.URL + "/mcp", reps, stop
}

// mcpClient posts JSON-RPC messages with keep-alive connections, to its
// URLs in turn (one: the proxy; several: the replicas themselves, the
// client spreading its requests round-robin).
type mcpClient struct {
	hc   *http.Client
	urls []string
	next atomic.Int64
	id   atomic.Int64
}

func newMCPClient(urls ...string) *mcpClient {
	return &mcpClient{urls: urls, hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}}
}

// post sends body for session sid and returns the status, the session id
// header and the body.
func (c *mcpClient) post(sid, body string) (int, string, []byte, error) {
	u := c.urls[int(c.next.Add(1))%len(c.urls)]
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), b, err
}

// open runs the handshake and returns the session id.
func (c *mcpClient) open() (string, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"scale","version":"1"}}}`, c.id.Add(1), version)
	status, sid, b, err := c.post("", body)
	if err != nil || status != 200 || sid == "" {
		return "", fmt.Errorf("initialize: %d %v %.200s", status, err, b)
	}
	if status, _, b, err := c.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || status != 202 {
		return "", fmt.Errorf("initialized: %d %v %.200s", status, err, b)
	}
	return sid, nil
}

// call calls the tool test_simple_text in session sid.
func (c *mcpClient) call(sid string) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, c.id.Add(1))
	status, _, b, err := c.post(sid, body)
	if err != nil || status != 200 || !bytes.Contains(b, []byte(`"result"`)) || bytes.Contains(b, []byte(`"isError":true`)) {
		return fmt.Errorf("tools/call: %d %v %.200s", status, err, b)
	}
	return nil
}

// load calls tools in a closed loop, one goroutine per session, for d; it
// returns the calls answered and the failures.
func load(c *mcpClient, sids []string, d time.Duration) (calls, failed int64) {
	var ok, bad atomic.Int64
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for _, sid := range sids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				if c.call(sid) != nil {
					bad.Add(1)
				} else {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return ok.Load(), bad.Load()
}

// snapshot is what the processes and Redis had spent at one instant.
type snapshot struct {
	at        time.Time
	replicas  time.Duration // CPU of the replicas
	redis     time.Duration // CPU of every redis-server
	self      time.Duration // CPU of this process: the clients and the proxy
	commands  int64         // INFO commandstats calls, summed over the masters
	roundTrip int64         // commands clients sent (MONITOR)
	memory    int64         // used_memory, summed over the masters
}

func take(t *testing.T, b *scaleBackend, reps []*replica, mon *monitor) snapshot {
	s := snapshot{at: time.Now(), self: cputime.Process()}
	for _, r := range reps {
		s.replicas += procCPU(r.cmd.Process.Pid)
	}
	for _, pid := range b.pids {
		s.redis += procCPU(pid)
	}
	for _, addr := range b.masters {
		s.commands += infoCommands(t, addr)
	}
	s.memory = dataMemory(t, b)
	if mon != nil {
		s.roundTrip = mon.count()
	}
	return s
}

// scaleThroughput measures tools/call through n replicas on b, behind the
// Proxy or, direct, called by the client in turn.
func scaleThroughput(t *testing.T, bin string, b *scaleBackend, n int, direct bool) {
	u, reps, stop := scaleReplicas(t, bin, b, n)
	defer stop()
	c, how := newMCPClient(u), "proxy"
	if direct {
		var urls []string
		for _, r := range reps {
			urls = append(urls, r.url.String()+"/mcp")
		}
		c, how = newMCPClient(urls...), "direct"
	}
	defer c.hc.CloseIdleConnections()
	var sids []string
	for range *scaleSessions {
		sid, err := c.open()
		if err != nil {
			t.Fatal(err)
		}
		sids = append(sids, sid)
	}
	mon := startMonitor(t, b.masters)
	defer mon.stop()
	load(c, sids, time.Second) // every replica holds a copy of every session
	// The background (each replica's notifier blocks in XREAD, 2 a
	// second), measured idle, is taken off.
	idle0 := take(t, b, reps, mon)
	time.Sleep(2 * time.Second)
	idle1 := take(t, b, reps, mon)
	idleSecs := idle1.at.Sub(idle0.at).Seconds()
	bgCmd := float64(idle1.commands-idle0.commands) / idleSecs
	bgRT := float64(idle1.roundTrip-idle0.roundTrip) / idleSecs
	type run struct {
		rate                      float64
		repCPU, redisCPU, selfCPU float64 // µs per call
		cmds, rts                 float64 // per call
		failed                    int64
	}
	var runs []run
	for range *scaleRounds {
		s0 := take(t, b, reps, mon)
		calls, failed := load(c, sids, *scaleWindow)
		s1 := take(t, b, reps, mon)
		secs := s1.at.Sub(s0.at).Seconds()
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(calls) }
		runs = append(runs, run{
			rate:   float64(calls) / secs,
			repCPU: per(s1.replicas - s0.replicas), redisCPU: per(s1.redis - s0.redis), selfCPU: per(s1.self - s0.self),
			cmds:   (float64(s1.commands-s0.commands) - bgCmd*secs) / float64(calls),
			rts:    (float64(s1.roundTrip-s0.roundTrip) - bgRT*secs) / float64(calls),
			failed: failed,
		})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].rate < runs[j].rate })
	m := runs[len(runs)/2]
	t.Logf("| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %d |", b.name, how, n, m.rate,
		m.repCPU, m.redisCPU, m.selfCPU, 1e6/m.repCPU, m.cmds, m.rts, m.failed)
}

// scaleManySessions creates -scale.many sessions through 3 replicas, each
// with its handshake and one tools/call, from 64 goroutines.
func scaleManySessions(t *testing.T, bin string, b *scaleBackend) {
	type run struct {
		secs, rts, mem, rss float64 // seconds; per session: round trips, Redis bytes, replica bytes
		redisCPU, repCPU    float64 // µs per session
		failed              int64
	}
	var runs []run
	for range *scaleRounds {
		u, reps, stop := scaleReplicas(t, bin, b, 3)
		c := newMCPClient(u)
		mon := startMonitor(t, b.masters)
		s0 := take(t, b, reps, mon)
		var rss0 int64
		for _, r := range reps {
			rss0 += procRSS(r.cmd.Process.Pid)
		}
		var next, failed atomic.Int64
		var wg sync.WaitGroup
		for range *scaleSessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(*scaleMany) {
					sid, err := c.open()
					if err == nil {
						err = c.call(sid)
					}
					if err != nil {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		s1 := take(t, b, reps, mon)
		var rss1 int64
		for _, r := range reps {
			rss1 += procRSS(r.cmd.Process.Pid)
		}
		mon.stop()
		stop()
		c.hc.CloseIdleConnections()
		n := float64(*scaleMany)
		runs = append(runs, run{secs: s1.at.Sub(s0.at).Seconds(), rts: float64(s1.roundTrip-s0.roundTrip) / n,
			mem: float64(s1.memory-s0.memory) / n, rss: float64(rss1-rss0) / n, failed: failed.Load(),
			redisCPU: float64((s1.redis - s0.redis).Microseconds()) / n, repCPU: float64((s1.replicas - s0.replicas).Microseconds()) / n})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].secs < runs[j].secs })
	m := runs[len(runs)/2]
	t.Logf("%s: %d sessions through 3 replicas in %.1fs (%.0f/s), %.1f Redis round trips, %.0f µs of Redis CPU and %.0f µs of replica CPU each; Redis %.0f bytes and replicas %.0f bytes (RSS, 3 copies) per idle session; %d failed",
		b.name, *scaleMany, m.secs, float64(*scaleMany)/m.secs, m.rts, m.redisCPU, m.repCPU, m.mem, m.rss, m.failed)
}

// scaleStreamedCalls calls a tool that logs three messages while it runs
// (so its answer is an SSE stream, stored for resumption) -scale.many/10
// times from -scale.sessions sessions through 3 replicas, and reports the
// Redis round trips and memory each call costs.
func scaleStreamedCalls(t *testing.T, bin string, b *scaleBackend) {
	type run struct{ rts, mem, redisCPU, repCPU float64 }
	var runs []run
	calls := max(*scaleMany/10, *scaleSessions)
	for range *scaleRounds {
		u, reps, stop := scaleReplicas(t, bin, b, 3)
		c := newMCPClient(u)
		var sids []string
		for range *scaleSessions {
			sid, err := c.open()
			if err != nil {
				t.Fatal(err)
			}
			sids = append(sids, sid)
		}
		load(c, sids, time.Second) // every replica holds a copy of every session
		mon := startMonitor(t, b.masters)
		s0 := take(t, b, reps, mon)
		var next, failed atomic.Int64
		var wg sync.WaitGroup
		for _, sid := range sids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(calls) {
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`, c.id.Add(1))
					if status, _, b, err := c.post(sid, body); err != nil || status != 200 || !bytes.Contains(b, []byte(`"result"`)) {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		s1 := take(t, b, reps, mon)
		mon.stop()
		stop()
		c.hc.CloseIdleConnections()
		if failed.Load() > 0 {
			t.Errorf("%d streamed calls failed", failed.Load())
		}
		n := float64(calls)
		runs = append(runs, run{rts: float64(s1.roundTrip-s0.roundTrip) / n, mem: float64(s1.memory-s0.memory) / n,
			redisCPU: float64((s1.redis - s0.redis).Microseconds()) / n, repCPU: float64((s1.replicas - s0.replicas).Microseconds()) / n})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].mem < runs[j].mem })
	m := runs[len(runs)/2]
	t.Logf("%s: a call answered on an SSE stream (three log messages, then the result): %.1f Redis round trips, %.0f µs of Redis CPU, %.0f µs of replica CPU, %.0f bytes of Redis memory until EventTTL",
		b.name, m.rts, m.redisCPU, m.repCPU, m.mem)
}

// scaleEventMemory stores -scale.events resource updates, as a Handler
// does (AppendOnce, with a notice id), 200 per session stream, and reports
// Redis memory per event: the first of a stream (with its keys, and the
// stream's first node, which Redis sizes for the entries to come) and the
// others.
func scaleEventMemory(t *testing.T, b *scaleBackend) {
	const perStream = 200
	ctx := context.Background()
	es := redisstore.NewEventStore(b.rdb, &redisstore.Options{Prefix: "scale-events:"})
	data := func(i int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://resource/%06d"}}`, i)
	}
	var seq atomic.Int64
	key := func() string { return fmt.Sprintf("%026d", seq.Add(1)) } // as long as rand.Text's
	streams := max(*scaleEvents/perStream, 1)
	mem := func() int64 { return dataMemory(t, b) }
	appendAll := func() {
		for i := range streams {
			if _, _, err := es.AppendOnce(ctx, "scale-session-"+strconv.Itoa(i), "0", key(), data(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	m0 := mem()
	appendAll()
	m1 := mem()
	for range perStream - 1 {
		appendAll()
	}
	m2 := mem()
	t.Logf("%s: %d-byte events, %d streams of %d: the first of a stream %.0f bytes (with its keys), each further one %.0f bytes",
		b.name, len(data(0)), streams, perStream, float64(m1-m0)/float64(streams), float64(m2-m1)/float64((perStream-1)*streams))
}

// monitor counts the commands clients send to some Redis nodes (MONITOR),
// leaving out those a script runs and this test's INFO.
type monitor struct {
	n     atomic.Int64
	conns []net.Conn
	wg    sync.WaitGroup
}

func startMonitor(t *testing.T, addrs []string) *monitor {
	m := &monitor{}
	for _, addr := range addrs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("*1\r\n$7\r\nMONITOR\r\n")); err != nil {
			t.Fatal(err)
		}
		m.conns = append(m.conns, c)
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			sc := bufio.NewScanner(c)
			sc.Buffer(make([]byte, 1<<16), 1<<24)
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "+OK") || strings.Contains(line, " lua] ") || strings.Contains(line, `] "info"`) {
					continue
				}
				m.n.Add(1)
			}
		}()
	}
	return m
}

func (m *monitor) count() int64 { return m.n.Load() }

func (m *monitor) stop() {
	for _, c := range m.conns {
		c.Close()
	}
	m.wg.Wait()
}

// dataMemory sums, over the masters of b, the memory Redis holds for its
// data: used_memory without what buffers for replicas, clients and the
// Cluster bus hold (which come and go with traffic, and the replication
// backlog fills up to its size with the first writes).
func dataMemory(t *testing.T, b *scaleBackend) int64 {
	var m int64
	for _, addr := range b.masters {
		in := info(t, addr, "memory")
		m += field(t, in, "used_memory") - field(t, in, "mem_total_replication_buffers") - field(t, in, "mem_clients_normal") - field(t, in, "mem_cluster_links")
	}
	return m
}

// infoCommands sums the calls of INFO commandstats at addr but INFO's.
func infoCommands(t *testing.T, addr string) int64 {
	var n int64
	for _, line := range strings.Split(info(t, addr, "commandstats"), "\r\n") {
		if name, rest, ok := strings.Cut(line, ":calls="); ok && name != "cmdstat_info" {
			v, _, _ := strings.Cut(rest, ",")
			c, _ := strconv.ParseInt(v, 10, 64)
			n += c
		}
	}
	return n
}

// field returns the integer field name of an INFO answer.
func field(t *testing.T, info, name string) int64 {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("INFO has no %s", name)
	return 0
}

// infoClients keeps one connection per node for INFO, so that no
// connection handshake is counted.
var infoClients sync.Map

func info(t *testing.T, addr, section string) string {
	v, ok := infoClients.Load(addr)
	if !ok {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
		v, _ = infoClients.LoadOrStore(addr, c)
		t.Cleanup(func() { infoClients.Delete(addr); c.Close() })
	}
	c := v.(*redis.Client)
	s, err := c.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatalf("INFO %s at %s: %v", section, addr, err)
	}
	return s
}

// procCPU is the user and system CPU time process pid spent.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100) // USER_HZ
}

// procRSS is the resident memory of process pid, in bytes.
func procRSS(pid int) int64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}
