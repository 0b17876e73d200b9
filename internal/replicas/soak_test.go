//go:build soak

package replicas

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/faultproxy"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// The soak of issue 32 (BENCHMARKS.md, "Soak"): run it with
//
//	go test -tags soak -run TestSoak -timeout 90m ./internal/replicas/ \
//	    -soak.d 1h -soak.restart 3m -soak.pace 50ms -soak.csv soak.csv -soak.svg soak.svg
//
// Three Redis-backed everything-servers behind the round-robin Proxy take
// mixed traffic for -soak.d: 16 sessions at 2025-11-25 (a GET stream and a
// subscription each) and 16 stateless clients at 2026-07-28 calling in
// closed loops; tasks; 256 KiB arguments and answers; two long-lived
// sessions (one of each era) through a faultproxy that injects a fault
// every 20 s; and every -soak.restart one replica drained with SIGTERM and
// started again. Every -soak.sample it records, from outside the
// processes, the replicas' resident memory, goroutines and open
// descriptors, Redis's memory, and the test's own goroutines and heap.
//
// It fails when a call of the unfaulted clients fails, a resource update
// is lost or duplicated, a task does not end, a faulted client does not
// recover, an error is untyped, or a sampled figure grows: the last
// quarter of the run may not exceed the first quarter after warm-up by
// more than the slack growthLimit allows.
var (
	soakDuration = flag.Duration("soak.d", 5*time.Minute, "how long the traffic runs")
	soakRestart  = flag.Duration("soak.restart", time.Minute, "how often a replica is drained and started again (0: never)")
	soakSample   = flag.Duration("soak.sample", 10*time.Second, "how often the figures are sampled")
	soakCSV      = flag.String("soak.csv", "", "write the samples to this `file` as CSV")
	soakSVG      = flag.String("soak.svg", "", "draw the samples in this SVG `file`")
	soakPace     = flag.Duration("soak.pace", 10*time.Millisecond, "the pause between calls of one client of the closed loops")
)

// soakRow is one sample of the figures.
type soakRow struct {
	at             time.Duration
	rssKiB         int64 // the replicas' resident memory, summed
	goroutines     int64 // the replicas' goroutines, summed
	fds            int64 // the replicas' open descriptors, summed
	redisKiB       int64 // Redis used_memory
	testGoroutines int64 // this process (every client)
	testHeapKiB    int64
	calls          int64 // calls answered so far, every client
}

func TestSoak(t *testing.T) {
	rs := StartRedis(t, true)
	redisURL := rs.URL()
	c := startReplicas(t, rs, "-redis", redisURL, "-debug-stats")
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { defer close(watched); c.proxy.Watch(wctx, 25*time.Millisecond) }()
	defer func() { stopWatch(); <-watched }()
	ctx, cancel := context.WithTimeout(context.Background(), *soakDuration+5*time.Minute)
	defer cancel()

	trafficPace = *soakPace
	tr := startTraffic(t, ctx, c.url, "soak")
	fp, err := faultproxy.New(strings.TrimSuffix(c.url, "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	side := &sideTraffic{t: t, ctx: ctx, stop: make(chan struct{})}
	side.start(c.url, fp.URL()+"/mcp")

	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	defer rdb.Close()
	var rows []soakRow
	begin := time.Now()
	sample := time.NewTicker(*soakSample)
	defer sample.Stop()
	var restarts <-chan time.Time // none with -soak.restart 0
	if *soakRestart > 0 {
		restart := time.NewTicker(*soakRestart)
		defer restart.Stop()
		restarts = restart.C
	}
	faults := time.NewTicker(20 * time.Second)
	defer faults.Stop()
	end := time.After(*soakDuration)
	rows = append(rows, c.sample(ctx, rdb, 0, tr, side))
	next, fault := 0, 0
loop:
	for {
		select {
		case <-end:
			break loop
		case <-sample.C:
			rows = append(rows, c.sample(ctx, rdb, time.Since(begin), tr, side))
		case <-restarts:
			c.restart(t, next%len(c.reps), "-debug-stats")
			next++
		case <-faults.C:
			f := soakFaults[fault%len(soakFaults)]
			fault++
			side.fault(fp, f)
		}
	}
	_ = fp.Heal()
	side.check(t)
	tr.check()
	c.alive()
	rows = append(rows, c.sample(ctx, rdb, time.Since(begin), tr, side))
	t.Logf("%d restarts, %d faults, %d samples", next, fault, len(rows))
	writeSoak(t, rows)
	checkFlat(t, rows)
}

// soakFaults are the faults the side sessions meet in turn, each for two
// seconds.
var soakFaults = []faultproxy.Fault{faultproxy.ResetStreams, faultproxy.Unavailable, faultproxy.TruncateSSE,
	faultproxy.Refuse, faultproxy.BadGateway, faultproxy.Stall, faultproxy.ResetRequest, faultproxy.GatewayTimeout}

// sample reads the figures of every process.
func (c *cluster) sample(ctx context.Context, rdb *redis.Client, at time.Duration, tr *traffic, side *sideTraffic) soakRow {
	row := soakRow{at: at, calls: tr.calls.Load() + side.calls.Load()}
	for _, r := range c.reps {
		pid := r.cmd.Process.Pid
		row.rssKiB += procStatus(pid, "VmRSS:")
		if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
			row.fds += int64(len(ents))
		}
		var st struct{ Goroutines int64 }
		if resp, err := http.Get(r.url.String() + "/debug/stats"); err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		row.goroutines += st.Goroutines
	}
	if info, err := rdb.Info(ctx, "memory").Result(); err == nil {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				row.redisKiB = n / 1024
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	row.testGoroutines, row.testHeapKiB = int64(runtime.NumGoroutine()), int64(ms.HeapInuse/1024)
	return row
}

// procStatus reads a figure in kB from /proc/PID/status.
func procStatus(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// sideTraffic is the soak's traffic beside the closed loops of traffic:
// tasks, large payloads, and two sessions behind the fault proxy.
type sideTraffic struct {
	t       *testing.T
	ctx     context.Context
	stop    chan struct{}
	wg      sync.WaitGroup
	calls   atomic.Int64
	tasks   atomic.Int64 // tasks that reached their result
	large   atomic.Int64 // large calls answered whole
	closes  []func()
	faulted []*faultedClient // set up before the loops start
}

// faultedClient is one long-lived session behind the fault proxy.
type faultedClient struct {
	name     string
	cs       *mcp.ClientSession
	ok, fail atomic.Int64
	lastOK   atomic.Int64 // unix nanoseconds
}

func (s *sideTraffic) connect(url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak-side", Version: "1"}, opts).Connect(s.ctx, mcphttp.NewClientStream(url, nil))
	if err != nil {
		s.t.Fatalf("soak side client: %v", err)
	}
	s.closes = append(s.closes, func() { cs.Close() })
	return cs
}

func (s *sideTraffic) start(direct, faulted string) {
	s.t.Cleanup(func() {
		s.halt()
		for _, f := range s.closes {
			f()
		}
	})
	tasker := s.connect(direct, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
	large := s.connect(direct, nil)
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		fc := &faultedClient{name: "faulted " + v, cs: s.connect(faulted, &mcp.ClientOptions{ProtocolVersion: v})}
		s.faulted = append(s.faulted, fc)
		s.wg.Add(1)
		go s.faultedLoop(fc)
	}
	s.wg.Add(2)
	go s.taskLoop(tasker)
	go s.largeLoop(large)
}

// every runs f every d until halt.
func (s *sideTraffic) every(d time.Duration, f func() bool) {
	defer s.wg.Done()
	for {
		select {
		case <-s.stop:
			return
		case <-time.After(d):
		}
		if !f() {
			return
		}
	}
}

// taskLoop starts a short task every second and follows it to its result.
func (s *sideTraffic) taskLoop(cs *mcp.ClientSession) {
	s.every(time.Second, func() bool {
		// Kept two minutes, not the server's default hour, so that Redis
		// holds a steady number of them within a short run.
		call, err := tasks.CallTool(s.ctx, cs, &mcp.CallToolParams{Name: "slow_compute", Arguments: json.RawMessage(`{"seconds":0.2,"label":"soak"}`)},
			&tasks.CallOptions{TTL: 2 * time.Minute})
		if s.ctx.Err() != nil {
			return false
		}
		if err != nil || call.Task == nil {
			s.t.Errorf("soak task: %+v, %v", call, err)
			return true
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			d, err := tasks.Get(s.ctx, cs, call.Task.TaskID)
			if err == nil && d.Status.Terminal() {
				if d.Status != tasks.TaskStatusCompleted {
					s.t.Errorf("soak task %s ended %s: %q", call.Task.TaskID, d.Status, d.StatusMessage)
				}
				s.tasks.Add(1)
				s.calls.Add(1)
				return true
			}
			if time.Now().After(deadline) || s.ctx.Err() != nil {
				s.t.Errorf("soak task %s did not end within 30s: %+v, %v", call.Task.TaskID, d, err)
				return s.ctx.Err() == nil
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// largeLoop sends 256 KiB arguments and checks the 256 KiB answers.
func (s *sideTraffic) largeLoop(cs *mcp.ClientSession) {
	name := strings.Repeat("x", 256<<10)
	args, _ := json.Marshal(map[string]string{"name": name})
	s.every(500*time.Millisecond, func() bool {
		res, err := cs.CallTool(s.ctx, &mcp.CallToolParams{Name: "greet", Arguments: args})
		if s.ctx.Err() != nil {
			return false
		}
		if err != nil || res.IsError || len(res.Content) != 1 {
			s.t.Errorf("soak large call: %v %+v", err, res)
			return true
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || len(tc.Text) != len(name)+len("Hello, !") {
			s.t.Errorf("soak large call: the answer is not whole")
			return true
		}
		s.large.Add(1)
		s.calls.Add(1)
		return true
	})
}

// faultedLoop calls a tool with a 5 s deadline every 100 ms; a failure
// must be typed and end by its deadline.
func (s *sideTraffic) faultedLoop(fc *faultedClient) {
	s.every(100*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		start := time.Now()
		res, err := fc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: json.RawMessage(`{}`)})
		cancel()
		if s.ctx.Err() != nil {
			return false
		}
		if took := time.Since(start); took > 5500*time.Millisecond {
			s.t.Errorf("%s: a call took %v, past its 5s deadline", fc.name, took)
		}
		if err == nil && !res.IsError {
			fc.ok.Add(1)
			fc.lastOK.Store(time.Now().UnixNano())
			s.calls.Add(1)
			return true
		}
		fc.fail.Add(1)
		var je *jsonrpc.Error
		if err != nil && !errors.Is(err, jsonrpc.ErrNotSent) && !errors.Is(err, jsonrpc.ErrOutcomeUnknown) &&
			!errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &je) {
			s.t.Errorf("%s: an untyped error: %v", fc.name, err)
		}
		return true
	})
}

// fault injects f for two seconds.
func (s *sideTraffic) fault(fp *faultproxy.Proxy, f faultproxy.Fault) {
	if err := fp.Set(f); err != nil {
		s.t.Errorf("fault %s: %v", f, err)
		return
	}
	time.Sleep(2 * time.Second)
	if err := fp.Heal(); err != nil {
		s.t.Errorf("heal %s: %v", f, err)
	}
}

func (s *sideTraffic) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
}

// check waits for every faulted client to have succeeded after the last
// fault healed, then stops the side traffic.
func (s *sideTraffic) check(t *testing.T) {
	t.Helper()
	healed := time.Now()
	for _, fc := range s.faulted {
		for fc.lastOK.Load() < healed.UnixNano() && time.Since(healed) < 10*time.Second {
			time.Sleep(50 * time.Millisecond)
		}
		if fc.lastOK.Load() < healed.UnixNano() {
			t.Errorf("%s: no call succeeded within 10s of the last fault healing", fc.name)
		}
	}
	s.halt()
	for _, fc := range s.faulted {
		t.Logf("%s: %d calls answered, %d failed under faults", fc.name, fc.ok.Load(), fc.fail.Load())
	}
	t.Logf("%d tasks ended with their result, %d large calls answered whole", s.tasks.Load(), s.large.Load())
	if s.tasks.Load() == 0 || s.large.Load() == 0 {
		t.Errorf("the side traffic did not run")
	}
}
