package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/tasks"
	"github.com/redis/go-redis/v9"
)

// replicated is a redis-server master with one replica of its own, whose
// replication link runs through a relay the test can hold, so that the
// replica lags as long as the test wants: what the master takes meanwhile
// is lost when it dies, as with a master killed before passing a write on.
type replicated struct {
	master, replica *exec.Cmd
	masterAddr      string
	replicaAddr     string
	relay           *relay
}

// startReplicated starts the pair, stopped when the test ends, and waits
// until the replica is in sync. It runs where the Redis tests run.
func startReplicated(t testing.TB) *replicated {
	t.Helper()
	requireEnv(t, URLEnv, "redis://HOST:PORT/DB", "redis-server")
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not on PATH: %v", err)
	}
	port := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	start := func(p int, extra ...string) *exec.Cmd {
		cmd := exec.Command("redis-server", append([]string{"--port", strconv.Itoa(p), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", t.TempDir()}, extra...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
		return cmd
	}
	r := &replicated{}
	mp := port()
	r.masterAddr = "127.0.0.1:" + strconv.Itoa(mp)
	r.master = start(mp, "--repl-diskless-sync-delay", "0")
	r.relay = startRelay(t, r.masterAddr)
	rp := port()
	r.replicaAddr = "127.0.0.1:" + strconv.Itoa(rp)
	host, relayPort, _ := net.SplitHostPort(r.relay.addr)
	r.replica = start(rp, "--replicaof", host, relayPort)
	c := redis.NewClient(&redis.Options{Addr: r.masterAddr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(20 * time.Second); ; {
		n, err := c.Do(context.Background(), "wait", 1, 100).Int()
		if err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never came in sync: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r
}

// promote kills the master (SIGKILL) and makes the replica a master, as
// Sentinel or the Cluster does, once it took what the relay passed on.
func (r *replicated) promote(t testing.TB) {
	t.Helper()
	_ = r.master.Process.Kill()
	r.relay.close()
	c := redis.NewClient(&redis.Options{Addr: r.replicaAddr, MaxRetries: -1})
	defer c.Close()
	if err := c.Do(context.Background(), "replicaof", "no", "one").Err(); err != nil {
		t.Fatal(err)
	}
}

// relay passes a replica's connection to its master on, the master's side
// held while hold is set.
type relay struct {
	ln   net.Listener
	addr string

	mu    sync.Mutex
	held  bool
	conns []net.Conn
	wg    sync.WaitGroup
}

func startRelay(t testing.TB, to string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, addr: ln.Addr().String()}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, in, out)
			r.mu.Unlock()
			r.wg.Add(2)
			go func() { defer r.wg.Done(); _, _ = io.Copy(out, in) }()
			go func() { defer r.wg.Done(); r.pass(in, out) }()
		}
	}()
	t.Cleanup(r.close)
	return r
}

// pass copies what the master sends to the replica, but not while held:
// what it reads then is dropped with the connection.
func (r *relay) pass(to io.Writer, from io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		for {
			r.mu.Lock()
			held := r.held
			r.mu.Unlock()
			if !held {
				break
			}
			time.Sleep(time.Millisecond)
			if r.closed() {
				return
			}
		}
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (r *relay) hold(h bool) {
	r.mu.Lock()
	r.held = h
	r.mu.Unlock()
}

func (r *relay) closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns == nil
}

// close drops the relay's connections, and what it held.
func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
}

// TestReplicaAcks: with Options.ReplicaAcks, an event, a task's change and
// a session's save that the master took but its replica never got are not
// acknowledged: when the master dies before the replica holds them, the
// write fails, so that nobody relies on it (the transport sends such an
// event without an id; a task's outcome is recorded again). Without
// ReplicaAcks each would be acknowledged, then lost with the master. A
// notice whose append is cut so is appended again once Redis answers, and
// heard once.
func TestReplicaAcks(t *testing.T) {
	for _, acks := range []int{1, -1} {
		t.Run("ReplicaAcks="+strconv.Itoa(acks), func(t *testing.T) { testReplicaAcks(t, acks) })
	}
}

func testReplicaAcks(t *testing.T, acks int) {
	ctx := testCtx(t)
	r := startReplicated(t)
	fast := func(addr string) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond, ReadTimeout: 5 * time.Second, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	rdb := fast(r.masterAddr)
	opts := &Options{Prefix: "acks:", ReplicaAcks: acks, ReplicaAckTimeout: 4 * time.Second}
	es, ts, ss := NewEventStore(rdb, opts), NewTaskStore(rdb, opts), NewSessionStore(rdb, opts)
	now := time.Now()
	if err := ts.Create(ctx, &tasks.Record{ID: "t", Owner: "o", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	before, err := es.Append(ctx, "s", "0", []byte("before"))
	if err != nil {
		t.Fatal(err)
	}

	if err := rdb.Do(ctx, "wait", 1, 5000).Err(); err != nil { // the replica has all that
		t.Fatal(err)
	}
	r.relay.hold(true) // the replica hears nothing more
	var wg sync.WaitGroup
	var appendErr, updateErr, saveErr error
	var id string
	wg.Add(3)
	go func() { defer wg.Done(); id, appendErr = es.Append(ctx, "s", "0", []byte("lagging")) }()
	go func() {
		defer wg.Done()
		_, updateErr = ts.Update(ctx, "t", func(rec *tasks.Record) error { rec.Status = "completed"; return nil })
	}()
	go func() {
		defer wg.Done()
		saveErr = ss.Save(ctx, &shared.SessionState{ID: "lagging", Initialized: true})
	}()
	time.Sleep(300 * time.Millisecond) // the master has them all
	r.promote(t)
	wg.Wait()

	// What the replica, master now, holds is what was acknowledged.
	after := fast(r.replicaAddr)
	es2, ts2, ss2 := NewEventStore(after, opts), NewTaskStore(after, opts), NewSessionStore(after, opts)
	var ids []string
	if err := es2.Replay(ctx, "s", "0", "", func(id string, _ []byte) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	var lost []string
	if appendErr == nil && (len(ids) != 2 || ids[1] != id) {
		lost = append(lost, "event "+id)
	}
	if len(ids) == 0 || ids[0] != before {
		t.Errorf("after the failover the stream holds %v, want %s first", ids, before)
	}
	rec, err := ts2.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if updateErr == nil && rec.Status != "completed" {
		lost = append(lost, "task change")
	}
	if _, err := ss2.Load(ctx, "lagging"); saveErr == nil && err != nil {
		lost = append(lost, "session")
	}
	if acks < 0 {
		// The harness works: without ReplicaAcks all three were
		// acknowledged, and are gone.
		if len(lost) != 3 {
			t.Fatalf("without ReplicaAcks, lost %v (errors %v, %v, %v); want all three acknowledged and lost", lost, appendErr, updateErr, saveErr)
		}
		return
	}
	if len(lost) > 0 {
		t.Errorf("with ReplicaAcks, acknowledged and lost: %v", lost)
	}
	if !errors.Is(appendErr, ErrUnavailable) || !errors.Is(updateErr, ErrUnavailable) || !errors.Is(saveErr, ErrUnavailable) {
		t.Errorf("writes the replica never got: %v, %v, %v; want ErrUnavailable", appendErr, updateErr, saveErr)
	}
}

// TestNotifierCopyHeardOnce: a notice appended twice (its first append
// failed in a way that may have appended it, so it was appended again) is
// heard once by every other Notifier; distinct notices are all heard.
func TestNotifierCopyHeardOnce(t *testing.T) { eachRedis(t, testNotifierCopyHeardOnce) }

func testNotifierCopyHeardOnce(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	a, _, heard := twoNotifiers(t, rdb, rdb, opts)
	for _, uri := range []string{"one", "two"} {
		env, err := json.Marshal(envelope{From: a.self, ID: randomID(), Notice: &shared.Notice{Method: "m", URI: uri}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := a.append(ctx, env); err != nil {
				t.Fatal(err)
			}
		}
	}
	hearInOrder(t, heard, "one", "two")
	select {
	case got := <-heard:
		t.Fatalf("heard %q twice", got)
	case <-time.After(300 * time.Millisecond):
	}
}

// BenchmarkReplicaAcks measures what Options.ReplicaAcks costs each write,
// against a master with one replica on loopback: the write and its WAIT
// go in one round trip, and WAIT answers once the replica acknowledged.
// Each iteration makes the write once without and once with it,
// alternating which goes first, so that both see the same load; it
// reports the median of each (off-µs, on-µs) and their difference.
func BenchmarkReplicaAcks(b *testing.B) {
	r := startReplicated(b)
	rdb := redis.NewClient(&redis.Options{Addr: r.masterAddr})
	b.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	type stores struct {
		es *EventStore
		ts *TaskStore
		ss *SessionStore
		n  *Notifier
	}
	var cs [2]stores
	for i, acks := range []int{-1, 1} {
		opts := &Options{Prefix: "bench:", ReplicaAcks: acks}
		cs[i] = stores{NewEventStore(rdb, opts), NewTaskStore(rdb, opts), NewSessionStore(rdb, opts), NewNotifier(rdb, opts, nil)}
		b.Cleanup(func() { cs[i].n.Close() })
	}
	now := time.Now()
	if err := cs[0].ts.Create(ctx, &tasks.Record{ID: "t", Owner: "o", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil && !errors.Is(err, tasks.ErrExists) {
		b.Fatal(err)
	}
	data := []byte(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://x"}}`)
	ops := []struct {
		name string
		do   func(s stores, i int) error
	}{
		{"publish", func(s stores, _ int) error {
			return s.n.Publish(ctx, &shared.Notice{ID: "x", Method: "m", URI: "test://x"})
		}},
		{"append", func(s stores, _ int) error { _, err := s.es.Append(ctx, "s", "0", data); return err }},
		{"appendOnce", func(s stores, i int) error {
			_, _, err := s.es.AppendOnce(ctx, "s", "0", strconv.Itoa(i), data)
			return err
		}},
		{"taskUpdate", func(s stores, _ int) error {
			_, err := s.ts.Update(ctx, "t", func(rec *tasks.Record) error { rec.StatusMessage = "x"; return nil })
			return err
		}},
		{"sessionSave", func(s stores, _ int) error {
			return s.ss.Save(ctx, &shared.SessionState{ID: "s", Initialized: true})
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			var took [2][]time.Duration
			i := 0
			for b.Loop() {
				i++
				for k := range 2 {
					k = (k + i) % 2
					start := time.Now()
					if err := op.do(cs[k], i); err != nil {
						b.Fatal(err)
					}
					took[k] = append(took[k], time.Since(start))
				}
			}
			var med [2]float64
			for k := range 2 {
				slices.Sort(took[k])
				med[k] = float64(took[k][len(took[k])/2].Microseconds())
			}
			b.ReportMetric(med[0], "off-µs")
			b.ReportMetric(med[1], "on-µs")
			b.ReportMetric(med[1]-med[0], "added-µs")
		})
	}
}

// TestNotifierStreamBehind: after a failover, the stream of notices may end
// before the last entry a Notifier read (entries the old master never
// passed on), and what is appended then may have ids below it (the new
// master's clock behind the old one's): a Notifier whose read failed reads
// on from the stream's end, and hears them.
func TestNotifierStreamBehind(t *testing.T) {
	ctx := testCtx(t)
	rdb, prefix := testRedis(t)
	opts := &Options{Prefix: prefix}
	o := *rdb.Options()
	o.ClientName = "behind-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	own := redis.NewClient(&o)
	defer own.Close()
	a, _, heard := twoNotifiers(t, rdb, own, opts)
	// An entry from a master whose clock ran an hour ahead.
	env, _ := json.Marshal(envelope{From: "elsewhere", ID: randomID(), Notice: &shared.Notice{Method: "m", URI: "ahead"}})
	ahead := strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10) + "-0"
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: a.key, ID: ahead, Values: map[string]any{"d": env}}).Err(); err != nil {
		t.Fatal(err)
	}
	hearInOrder(t, heard, "ahead")
	// The failover: that master's entries are gone, and b's connections
	// with it.
	if err := rdb.Del(ctx, a.key).Err(); err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, line := range strings.Split(rdb.ClientList(ctx).Val(), "\n") {
		if !strings.Contains(line, " name="+o.ClientName+" ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if id, ok := strings.CutPrefix(f, "id="); ok && rdb.Do(ctx, "client", "kill", "id", id).Err() == nil {
				killed++
			}
		}
	}
	if killed == 0 {
		t.Fatal("no connection of b's client to kill")
	}
	if err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "after"}); err != nil {
		t.Fatal(err)
	}
	hearInOrder(t, heard, "after")
}
