// Command mcpbench drives MCP servers as separate processes and prints a
// Markdown table comparing them, each throughput as a ratio to the first
// server (the floor). Every answer is decoded and checked: a wrong answer
// stops the run.
//
//	mcpbench -server floor=bin/floor -server gomcp=bin/gomcp -server 'ts=node server.mjs' ...
//
// Each server is a command that serves MCP over stdio, or over Streamable
// HTTP at http://ADDR/mcp when given the flag -http ADDR (a command ending
// in .mjs gets --http ADDR). Figures (run in rounds, servers interleaved
// within each round; the table shows medians):
//
//   - stdio1: one request in flight, calls/s and server CPU µs per call
//   - stdio32: 32 requests in flight, the same
//   - big: 1 MiB of text echoed over stdio, MB/s and server CPU ms per call
//   - http1: one Streamable HTTP session in a closed loop, calls/s
//   - http16: 16 sessions, calls/s, server CPU µs per call, peak RSS
//   - stateless: 16 clients of the stateless revision (2026-07-28) over
//     Streamable HTTP, each POST a complete request with its _meta and
//     SEP-2243 headers; calls/s, server CPU µs per call, peak RSS, and how
//     many of the revision's checks the server passed (stateless.go).
//     Servers named by -legacy are left out.
//   - idle: memory per idle Streamable HTTP session (RSS growth / sessions)
//   - startup: spawn to initialize answered over stdio, ms
//
// Server CPU time and memory come from /proc (Linux only).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const protocolVersion = "2025-06-18"

type server struct {
	name string
	argv []string
}

type serverList []server

func (l *serverList) String() string { return fmt.Sprint(*l) }

func (l *serverList) Set(v string) error {
	name, cmd, ok := strings.Cut(v, "=")
	if !ok || name == "" || cmd == "" {
		return errors.New("want NAME=COMMAND")
	}
	*l = append(*l, server{name, strings.Fields(cmd)})
	return nil
}

var (
	servers  serverList
	rounds   = flag.Int("rounds", 3, "rounds of every figure")
	dur      = flag.Duration("d", 1500*time.Millisecond, "measuring time of each throughput figure")
	warm     = flag.Duration("warmup", 300*time.Millisecond, "warm-up before each throughput figure")
	idleN    = flag.Int("idle", 2000, "sessions opened for the idle-session figure")
	startups = flag.Int("startups", 5, "spawns per round for the startup figure (median)")
	only     = flag.String("figures", "stdio1,stdio32,big,http1,http16,stateless,idle,startup", "figures to run")
	jsonOut  = flag.String("json", "", "also write every sample to this file")
	// legacyOnly names the servers that serve no stateless revision: the
	// stateless figure leaves them out ("–" in the table).
	legacyOnly = nameSet{}
)

func main() {
	flag.Var(&servers, "server", "NAME=COMMAND (repeatable; the first is the floor)")
	flag.Var(legacyOnly, "legacy", "NAME of a server that serves no stateless revision (repeatable)")
	flag.Parse()
	if len(servers) == 0 {
		fmt.Fprintln(os.Stderr, "mcpbench: no -server")
		os.Exit(2)
	}
	figs := strings.Split(*only, ",")
	samples := map[string]map[string][]float64{} // metric -> server -> samples
	add := func(metric, srv string, v float64) {
		if samples[metric] == nil {
			samples[metric] = map[string][]float64{}
		}
		samples[metric][srv] = append(samples[metric][srv], v)
	}
	for r := 0; r < *rounds; r++ {
		for _, fig := range figs {
			if fig == "startup" {
				ms, err := startupRound(servers, r)
				if err != nil {
					fmt.Fprintf(os.Stderr, "mcpbench: startup: %v\n", err)
					os.Exit(1)
				}
				for _, s := range servers {
					add("startup.ms", s.name, ms[s.name])
					fmt.Fprintf(os.Stderr, "round %d %-8s %-6s startup.ms=%.4g\n", r+1, fig, s.name, ms[s.name])
				}
				continue
			}
			// Rotate the order each round, so no server always runs first.
			for i := range servers {
				s := servers[(i+r)%len(servers)]
				if fig == "stateless" && legacyOnly[s.name] {
					continue
				}
				m, err := run(fig, s)
				if err != nil {
					fmt.Fprintf(os.Stderr, "mcpbench: %s %s: %v\n", fig, s.name, err)
					os.Exit(1)
				}
				for k, v := range m {
					add(k, s.name, v)
				}
				fmt.Fprintf(os.Stderr, "round %d %-8s %-6s %v\n", r+1, fig, s.name, fmtMap(m))
			}
		}
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(samples, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench:", err)
		}
	}
	printTable(samples)
}

func fmtMap(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%.4g ", k, m[k])
	}
	return b.String()
}

func run(fig string, s server) (map[string]float64, error) {
	switch fig {
	case "stdio1":
		return stdioThroughput(s, 1, 16, "stdio1")
	case "stdio32":
		return stdioThroughput(s, 32, 16, "stdio32")
	case "big":
		return stdioThroughput(s, 1, 1<<20, "big")
	case "http1":
		return httpThroughput(s, 1, "http1")
	case "http16":
		return httpThroughput(s, 16, "http16")
	case "stateless":
		return statelessThroughput(s)
	case "idle":
		return idleSessions(s)
	}
	return nil, fmt.Errorf("unknown figure %q", fig)
}

// --- processes ---

type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr bytes.Buffer
}

func start(s server, httpAddr string) (*proc, error) {
	argv := append([]string(nil), s.argv...)
	if httpAddr != "" {
		flagName := "-http"
		if strings.HasSuffix(argv[len(argv)-1], ".mjs") {
			flagName = "--http"
		}
		argv = append(argv, flagName, httpAddr)
	}
	p := &proc{cmd: exec.Command(argv[0], argv[1:]...)}
	p.cmd.Stderr = &limitedBuffer{b: &p.stderr, max: 64 << 10}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	return p, p.cmd.Start()
}

func (p *proc) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

type limitedBuffer struct {
	mu  sync.Mutex
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < l.max {
		l.b.Write(p[:min(len(p), l.max-l.b.Len())])
	}
	return len(p), nil
}

// cpuTime is the process's user plus system CPU time, from /proc.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// memKiB reads a field (VmRSS, VmHWM) of /proc/PID/status, in KiB.
func memKiB(pid int, field string) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return n
		}
	}
	return 0
}

// --- messages ---

func initializeBody(id int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1.0.0"}}}`)
}

var initializedBody = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

func echoBody(b []byte, id int64, text string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":`...)
	b = strconv.AppendQuote(b, text) // text is ASCII: a valid JSON string
	return append(b, `}}}`...)
}

type answer struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// checkInit validates an initialize answer.
func checkInit(b []byte) error {
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("initialize: %v: %.200s", err, b)
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &r) != nil || r.ProtocolVersion != protocolVersion {
		return fmt.Errorf("initialize answered %.300s", b)
	}
	return nil
}

// checkEcho validates a tools/call echo answer: id id, text want.
func checkEcho(a *answer, id int64, want func(int64) string) error {
	if a.ID == nil || *a.ID != id && id >= 0 {
		return fmt.Errorf("answer id %v, want %d", a.ID, id)
	}
	if a.Error != nil {
		return fmt.Errorf("error answer: %d %s", a.Error.Code, a.Error.Message)
	}
	var r toolResult
	if err := json.Unmarshal(a.Result, &r); err != nil {
		return err
	}
	if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != want(*a.ID) {
		return fmt.Errorf("wrong answer to %d: %.200s", *a.ID, a.Result)
	}
	return nil
}

func bigText() string {
	b := make([]byte, 1<<20)
	const words = "the quick brown fox jumps over the lazy dog 0123456789 "
	for i := range b {
		b[i] = words[i%len(words)]
	}
	return string(b)
}

var big = bigText()

// --- stdio ---

type stdioConn struct {
	p *proc
	w *bufio.Writer
	r *bufio.Reader
}

func dialStdio(s server) (*stdioConn, error) {
	p, err := start(s, "")
	if err != nil {
		return nil, err
	}
	c := &stdioConn{p: p, w: bufio.NewWriterSize(p.stdin, 64<<10), r: bufio.NewReaderSize(p.stdout, 64<<10)}
	if err := c.send(initializeBody(0)); err != nil {
		return c, err
	}
	line, err := c.next()
	if err != nil {
		return c, err
	}
	if err := checkInit(line); err != nil {
		return c, err
	}
	return c, c.send(initializedBody)
}

func (c *stdioConn) send(b []byte) error {
	c.w.Write(b)
	c.w.WriteByte('\n')
	return c.w.Flush()
}

// next returns the next message line that is not a notification.
func (c *stdioConn) next() ([]byte, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			buf := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = c.r.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if err != nil {
			return nil, fmt.Errorf("reading: %v (stderr: %.500s)", err, c.p.stderr.String())
		}
		if bytes.Contains(line[:min(len(line), 200)], []byte(`"method":"notifications/`)) {
			continue
		}
		return line, nil
	}
}

func stdioThroughput(s server, inFlight, size int, fig string) (map[string]float64, error) {
	c, err := dialStdio(s)
	if c != nil {
		defer c.p.stop()
	}
	if err != nil {
		return nil, err
	}
	want := func(id int64) string { return "m" + strconv.FormatInt(id, 10) }
	if size > 1<<10 {
		want = func(int64) string { return big }
	}
	var (
		next     atomic.Int64
		answered atomic.Int64
		stop     atomic.Bool
		mu       sync.Mutex
		werr     error
	)
	slots := make(chan struct{}, inFlight)
	for range inFlight {
		slots <- struct{}{}
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		var b []byte
		for !stop.Load() {
			<-slots
			if stop.Load() {
				return
			}
			id := next.Add(1)
			b = echoBody(b[:0], id, want(id))
			if err := c.send(b); err != nil {
				mu.Lock()
				werr = err
				mu.Unlock()
				return
			}
		}
	}()
	readErr := make(chan error, 1)
	first := make(chan struct{}) // closed at the first answer
	go func() {
		for {
			line, err := c.next()
			if err != nil {
				readErr <- err
				return
			}
			var a answer
			if err := json.Unmarshal(line, &a); err != nil {
				readErr <- fmt.Errorf("%v: %.200s", err, line)
				return
			}
			if err := checkEcho(&a, -1, want); err != nil {
				readErr <- err
				return
			}
			if answered.Add(1) == 1 {
				close(first)
			}
			slots <- struct{}{}
		}
	}()
	wait := func(d time.Duration) error {
		select {
		case err := <-readErr:
			return err
		case <-time.After(d):
			return nil
		}
	}
	select { // the warm-up starts at the first answer
	case <-first:
	case err := <-readErr:
		return nil, err
	case <-time.After(firstAnswerTimeout):
	}
	if err := wait(*warm); err != nil {
		return nil, err
	}
	pid := c.p.cmd.Process.Pid
	cpu0, n0, t0 := cpuTime(pid), answered.Load(), time.Now()
	if err := wait(*dur); err != nil {
		return nil, err
	}
	cpu1, n1, t1 := cpuTime(pid), answered.Load(), time.Now()
	stop.Store(true)
	select {
	case slots <- struct{}{}: // unblock the writer
	default: // it is not waiting: the slots are full
	}
	<-writerDone
	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		return nil, werr
	}
	calls := float64(n1 - n0)
	if calls == 0 {
		return nil, errors.New("no answer in the measuring window")
	}
	rate := calls / t1.Sub(t0).Seconds()
	cpuPer := float64(cpu1-cpu0) / calls // ns
	if fig == "big" {
		return map[string]float64{"big.MBps": rate * float64(len(big)) / 1e6, "big.cpu_ms": cpuPer / 1e6}, nil
	}
	return map[string]float64{fig + ".calls": rate, fig + ".cpu_us": cpuPer / 1e3}, nil
}

// --- startup ---

// startupRound spawns every server -startups times, one server after the
// other spawn by spawn (rotated by round), and returns each one's median.
// Spawning one server's whole series before the next one's would let the
// machine's drift over the round (frequency, the host's other guests)
// weigh on one server more than another: a spawn takes a few
// milliseconds, and the figure compares a few hundred microseconds.
func startupRound(servers []server, round int) (map[string]float64, error) {
	ds := map[string][]float64{}
	for range *startups {
		for i := range servers {
			s := servers[(i+round)%len(servers)]
			t0 := time.Now()
			c, err := dialStdio(s)
			d := time.Since(t0)
			if c != nil {
				c.p.stop()
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			ds[s.name] = append(ds[s.name], float64(d)/1e6)
		}
	}
	ms := map[string]float64{}
	for name, v := range ds {
		ms[name] = median(v)
	}
	return ms, nil
}

// --- the table ---

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type row struct {
	label, metric string
	ratio         bool // show as a ratio to the floor
	format        string
}

var rows = []row{
	{"stdio, 1 in flight: calls/s ratio", "stdio1.calls", true, ""},
	{"stdio, 1 in flight: calls/s", "stdio1.calls", false, "%.0f"},
	{"stdio, 1 in flight: server CPU µs/call", "stdio1.cpu_us", false, "%.1f"},
	{"stdio, 32 in flight: calls/s ratio", "stdio32.calls", true, ""},
	{"stdio, 32 in flight: calls/s", "stdio32.calls", false, "%.0f"},
	{"stdio, 32 in flight: server CPU µs/call", "stdio32.cpu_us", false, "%.1f"},
	{"1 MiB text echoed over stdio: MB/s ratio", "big.MBps", true, ""},
	{"1 MiB text echoed over stdio: MB/s", "big.MBps", false, "%.1f"},
	{"1 MiB: server CPU ms/call", "big.cpu_ms", false, "%.1f"},
	{"Streamable HTTP, 1 session closed loop: calls/s ratio", "http1.calls", true, ""},
	{"Streamable HTTP, 1 session: calls/s", "http1.calls", false, "%.0f"},
	{"Streamable HTTP, 1 session: server CPU µs/call", "http1.cpu_us", false, "%.1f"},
	{"HTTP, 16 sessions: calls/s ratio", "http16.calls", true, ""},
	{"HTTP, 16 sessions: calls/s", "http16.calls", false, "%.0f"},
	{"HTTP, 16 sessions: server CPU µs/call", "http16.cpu_us", false, "%.1f"},
	{"HTTP, 16 sessions: server peak RSS MiB", "http16.peak_rss_mib", false, "%.1f"},
	{"2026-07-28 stateless HTTP, 16 clients: calls/s ratio", "stateless.calls", true, ""},
	{"2026-07-28 stateless HTTP, 16 clients: calls/s", "stateless.calls", false, "%.0f"},
	{"2026-07-28 stateless HTTP: server CPU µs/call", "stateless.cpu_us", false, "%.1f"},
	{"2026-07-28 stateless HTTP: server peak RSS MiB", "stateless.peak_rss_mib", false, "%.1f"},
	{"2026-07-28 stateless HTTP: revision checks passed (of " + strconv.Itoa(len(statelessProbes)) + ")", "stateless.probes", false, "%.0f"},
	{"idle HTTP session, KiB each", "idle.kib", false, "%.1f"},
	{"startup, spawn → initialize answered, ms", "startup.ms", false, "%.1f"},
}

func printTable(samples map[string]map[string][]float64) {
	floor := servers[0].name
	fmt.Print("| figure |")
	for _, s := range servers {
		fmt.Printf(" %s |", s.name)
	}
	fmt.Print("\n|---|")
	for range servers {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, r := range rows {
		m := samples[r.metric]
		if m == nil {
			continue
		}
		fmt.Printf("| %s |", r.label)
		base := median(m[floor])
		for _, s := range servers {
			v := median(m[s.name])
			switch {
			case len(m[s.name]) == 0:
				fmt.Print(" – |")
			case r.ratio && base > 0:
				fmt.Printf(" %.2f |", v/base)
			case r.ratio:
				fmt.Print(" – |")
			default:
				fmt.Printf(" "+r.format+" |", v)
			}
		}
		fmt.Println()
	}
}
