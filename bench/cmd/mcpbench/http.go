package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Streamable HTTP of the stateful revisions: sessions, their closed loops,
// and idle sessions; closedLoops also drives the stateless figure.

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func startHTTP(s server) (*proc, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	p, err := start(s, addr)
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p, "http://" + addr + "/mcp", nil
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, "", fmt.Errorf("not listening on %s: %v (stderr: %.500s)", addr, err, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}

type httpSession struct {
	url, sid string
}

// postBody POSTs body to url with the headers hdr, and returns the
// response and its whole body, read and closed.
func postBody(ctx context.Context, url string, hdr http.Header, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = hdr
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

func (s *httpSession) post(ctx context.Context, body []byte, wantID int64) (*answer, error) {
	hdr := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	if s.sid != "" {
		hdr["Mcp-Session-Id"] = []string{s.sid}
		hdr["Mcp-Protocol-Version"] = []string{protocolVersion}
	}
	resp, data, err := postBody(ctx, s.url, hdr, body)
	if err != nil {
		return nil, err
	}
	if wantID < 0 { // a notification
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("notification: HTTP %d %.200s", resp.StatusCode, data)
		}
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d %.200s", resp.StatusCode, data)
	}
	if s.sid == "" {
		s.sid = resp.Header.Get("Mcp-Session-Id")
	}
	return decodeAnswer(resp.Header.Get("Content-Type"), data, wantID)
}

// decodeAnswer finds the answer to wantID in a POST's response body: a
// JSON message, or an event stream holding it among notifications.
func decodeAnswer(contentType string, data []byte, wantID int64) (*answer, error) {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		var a answer
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, fmt.Errorf("%v: %.200s", err, data)
		}
		return &a, nil
	}
	for _, ev := range bytes.Split(data, []byte("\n\n")) {
		var payload []byte
		for _, line := range bytes.Split(ev, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				payload = append(payload, bytes.TrimPrefix(d, []byte(" "))...)
			}
		}
		if len(payload) == 0 {
			continue
		}
		var a answer
		if err := json.Unmarshal(payload, &a); err != nil {
			return nil, fmt.Errorf("%v: %.200s", err, payload)
		}
		if a.ID != nil && *a.ID == wantID && a.Method == "" {
			return &a, nil
		}
	}
	return nil, fmt.Errorf("no answer to %d in the event stream: %.300s", wantID, data)
}

func openSession(ctx context.Context, url string) (*httpSession, error) {
	s := &httpSession{url: url}
	a, err := s.post(ctx, initializeBody(0), 0)
	if err != nil {
		return nil, fmt.Errorf("initialize: %v", err)
	}
	b, _ := json.Marshal(a)
	if err := checkInit(b); err != nil {
		return nil, err
	}
	if s.sid == "" {
		return nil, errors.New("initialize: no Mcp-Session-Id")
	}
	_, err = s.post(ctx, initializedBody, -1)
	return s, err
}

func httpThroughput(srv server, sessions int, fig string) (map[string]float64, error) {
	p, url, err := startHTTP(srv)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	want := func(id int64) string { return "m" + strconv.FormatInt(id, 10) }
	rate, cpuPer, err := closedLoops(p, sessions, func(ctx context.Context) (func(int64, []byte) ([]byte, error), error) {
		s, err := openSession(ctx, url)
		if err != nil {
			return nil, err
		}
		return func(id int64, b []byte) ([]byte, error) {
			b = echoBody(b[:0], id, want(id))
			a, err := s.post(ctx, b, id)
			if err == nil {
				err = checkEcho(a, id, want)
			}
			return b, err
		}, nil
	})
	if err != nil {
		return nil, err
	}
	m := map[string]float64{fig + ".calls": rate, fig + ".cpu_us": cpuPer}
	if sessions > 1 {
		m[fig+".peak_rss_mib"] = memKiB(p.cmd.Process.Pid, "VmHWM") / 1024
	}
	return m, nil
}

// firstAnswerTimeout bounds the wait for a server's first answer, which
// starts the warm-up: a runtime that compiles as it goes (Node) can take
// longer than the warm-up to answer at all on a loaded machine.
const firstAnswerTimeout = 15 * time.Second

// closedLoops runs n clients against the server p, each a closed loop of
// the call its open returns (which gets the request's id and a buffer to
// reuse, and checks the answer), and measures calls/s and the server's CPU
// µs per call. The warm-up starts at the first answer.
func closedLoops(p *proc, n int, open func(context.Context) (func(id int64, b []byte) ([]byte, error), error)) (rate, cpuPer float64, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		answered atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		failed   = make(chan struct{})
		first    = make(chan struct{})
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; close(failed) })
		stop.Store(true)
	}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call, err := open(ctx)
			if err != nil {
				fail(err)
				return
			}
			var b []byte
			for id := int64(1); !stop.Load(); id++ {
				if b, err = call(id, b); err != nil {
					if !stop.Load() {
						fail(err)
					}
					return
				}
				if answered.Add(1) == 1 {
					close(first)
				}
			}
		}()
	}
	wait := func(d time.Duration) {
		select {
		case <-failed:
		case <-time.After(d):
		}
	}
	select {
	case <-first:
	case <-failed:
	case <-time.After(firstAnswerTimeout):
	}
	wait(*warm)
	pid := p.cmd.Process.Pid
	cpu0, n0, t0 := cpuTime(pid), answered.Load(), time.Now()
	wait(*dur)
	cpu1, n1, t1 := cpuTime(pid), answered.Load(), time.Now()
	stop.Store(true)
	cancel()
	wg.Wait()
	if firstErr != nil {
		return 0, 0, fmt.Errorf("%v (stderr: %.500s)", firstErr, p.stderr.String())
	}
	calls := float64(n1 - n0)
	if calls == 0 {
		return 0, 0, errors.New("no answer in the measuring window")
	}
	return calls / t1.Sub(t0).Seconds(), float64(cpu1-cpu0) / calls / 1e3, nil
}

func idleSessions(srv server) (map[string]float64, error) {
	p, url, err := startHTTP(srv)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	ctx := context.Background()
	// A few sessions first, so that what is made once is not counted.
	for range 20 {
		if _, err := openSession(ctx, url); err != nil {
			return nil, err
		}
	}
	time.Sleep(300 * time.Millisecond)
	pid := p.cmd.Process.Pid
	before := memKiB(pid, "VmRSS")
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		errc = make(chan error, 8)
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(*idleN) {
				if _, err := openSession(ctx, url); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errc:
		return nil, err
	default:
	}
	time.Sleep(time.Second)
	after := memKiB(pid, "VmRSS")
	return map[string]float64{"idle.kib": (after - before) / float64(*idleN)}, nil
}
