package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// pingingSessions is the in-memory session store with a Ping that fails
// when err is set, as a Redis store's would when Redis is down.
type pingingSessions struct {
	shared.SessionStore
	err error
}

func (s *pingingSessions) Ping(context.Context) error { return s.err }

// pingingEvents is the same for an event store.
type pingingEvents struct {
	EventStore
	err error
}

func (s *pingingEvents) Ping(context.Context) error { return s.err }

// probe runs one probe against handler and decodes a readiness body.
func probe(t *testing.T, handler http.Handler, method string) (int, string, ReadyReport) {
	t.Helper()
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequestWithContext(ctx(t), method, "/readyz", nil))
	var rep ReadyReport
	if rec.Header().Get("Content-Type") == "application/json" && method == http.MethodGet {
		if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
			t.Fatalf("readiness body %q: %v", rec.Body.String(), err)
		}
	}
	return rec.Code, rec.Body.String(), rep
}

func TestReady(t *testing.T) {
	down := errors.New("dial tcp 10.0.0.7:6379: connection refused")
	for _, tc := range []struct {
		name       string
		sessionErr error
		eventErr   error
		extra      map[string]Pinger
		close      bool
		wantStatus int
		wantChecks map[string]string
	}{
		{name: "memory stores", wantStatus: 200,
			wantChecks: map[string]string{"handler": "ok"}},
		{name: "stores answer", sessionErr: nil, eventErr: nil, extra: map[string]Pinger{"tasks": PingFunc(func(context.Context) error { return nil })},
			wantStatus: 200, wantChecks: map[string]string{"handler": "ok", "session store": "ok", "event store": "ok", "tasks": "ok"}},
		{name: "session store down", sessionErr: down, wantStatus: 503,
			wantChecks: map[string]string{"handler": "ok", "session store": "failed", "event store": "ok"}},
		{name: "extra check down", extra: map[string]Pinger{"tasks": PingFunc(func(context.Context) error { return down })},
			wantStatus: 503, wantChecks: map[string]string{"handler": "ok", "session store": "ok", "event store": "ok", "tasks": "failed"}},
		{name: "check panics", extra: map[string]Pinger{"tasks": PingFunc(func(context.Context) error { panic("boom") })},
			wantStatus: 503, wantChecks: map[string]string{"handler": "ok", "session store": "ok", "event store": "ok", "tasks": "failed"}},
		{name: "handler closed", close: true, wantStatus: 503,
			wantChecks: map[string]string{"handler": "closed", "session store": "ok", "event store": "ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts *HandlerOptions
			if tc.name != "memory stores" {
				opts = &HandlerOptions{
					SessionStore: &pingingSessions{shared.NewMemorySessionStore(nil), tc.sessionErr},
					EventStore:   &pingingEvents{NewMemoryEventStore(nil), tc.eventErr},
				}
			}
			h := NewHandler(testServer(), opts)
			defer h.Close()
			if tc.close {
				h.Close()
			}
			hc := NewHealth(h, &HealthOptions{Checks: tc.extra})
			status, body, rep := probe(t, hc.Ready(), http.MethodGet)
			if status != tc.wantStatus || rep.Ready != (tc.wantStatus == 200) {
				t.Errorf("status %d ready %v, want %d (body %s)", status, rep.Ready, tc.wantStatus, body)
			}
			if len(rep.Checks) != len(tc.wantChecks) {
				t.Errorf("checks %v, want %v", rep.Checks, tc.wantChecks)
			}
			for k, v := range tc.wantChecks {
				if rep.Checks[k] != v {
					t.Errorf("check %q = %q, want %q (all %v)", k, rep.Checks[k], v, rep.Checks)
				}
			}
			if strings.Contains(body, "10.0.0.7") {
				t.Errorf("the body tells the prober the store's error: %s", body)
			}
			if got := hc.Check(ctx(t)); tc.sessionErr != nil && !errors.Is(got.Errors["session store"], down) {
				t.Errorf("Check errors %v, want the session store's", got.Errors)
			}
			if status, body, _ := probe(t, hc.Ready(), http.MethodHead); status != tc.wantStatus || body != "" {
				t.Errorf("HEAD: %d %q, want %d and no body", status, body, tc.wantStatus)
			}
		})
	}
}

// TestReadyNotifier checks that the server's Notifier is asked too when
// it implements Pinger.
func TestReadyNotifier(t *testing.T) {
	n := &pingingNotifier{Notifier: shared.NewMemoryNotifier(), err: errors.New("pubsub down")}
	h := NewHandler(testServerWith(&mcp.ServerOptions{Notifier: n}), nil)
	defer h.Close()
	_, _, rep := probe(t, NewHealth(h, nil).Ready(), http.MethodGet)
	if rep.Ready || rep.Checks["notifier"] != "failed" {
		t.Errorf("report %+v, want the notifier failed", rep)
	}
}

type pingingNotifier struct {
	shared.Notifier
	err error
}

func (n *pingingNotifier) Ping(context.Context) error { return n.err }

func TestLive(t *testing.T) {
	h := NewHandler(testServer(), &HandlerOptions{SessionStore: &pingingSessions{shared.NewMemorySessionStore(nil), errors.New("down")}})
	defer h.Close()
	live := NewHealth(h, nil).Live()
	for _, tc := range []struct {
		method     string
		wantStatus int
		wantBody   string
	}{
		{http.MethodGet, 200, "ok\n"}, // a store down does not fail liveness
		{http.MethodHead, 200, ""},
		{http.MethodPost, 405, "method not allowed\n"},
	} {
		rec := httptest.NewRecorder()
		live.ServeHTTP(rec, httptest.NewRequest(tc.method, "/livez", nil))
		if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
			t.Errorf("%s: %d %q, want %d %q", tc.method, rec.Code, rec.Body.String(), tc.wantStatus, tc.wantBody)
		}
	}
	_, _, rep := probe(t, NewHealth(h, nil).Ready(), http.MethodPost)
	if rep.Ready {
		t.Error("POST to readiness was answered as ready")
	}
}

// TestReadyShared checks that probes arriving while a check runs share it
// (the stores see one ping), and that a Ping ignoring its deadline makes
// the probes give up after the timeout.
func TestReadyShared(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	slow := PingFunc(func(context.Context) error {
		calls.Add(1)
		select {
		case started <- struct{}{}:
		default:
		}
		<-release // ignores ctx, like a store with no deadline
		return nil
	})
	h := NewHandler(testServer(), nil)
	defer h.Close()
	hc := NewHealth(h, &HealthOptions{Checks: map[string]Pinger{"slow": slow}, Timeout: 100 * time.Millisecond})

	var wg sync.WaitGroup
	reps := make([]ReadyReport, 8)
	for i := range reps {
		wg.Go(func() { reps[i] = hc.Check(ctx(t)) })
	}
	<-started
	wg.Wait() // every probe gave up after the timeout
	for i, rep := range reps {
		if rep.Ready || rep.Checks["timeout"] != "failed" {
			t.Errorf("probe %d: %+v, want a timeout", i, rep)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d pings for 8 concurrent probes, want 1", n)
	}
	close(release)
	// The round ends; the next probe starts a new one, which answers.
	eventually(t, "a fresh round", func() bool {
		rep := hc.Check(ctx(t))
		return rep.Ready && rep.Checks["slow"] == "ok"
	})
}

// ExampleNewHealth serves the MCP endpoint with a liveness and a readiness
// probe for the load balancer next to it.
func ExampleNewHealth() {
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	h := NewHandler(s, nil)
	defer h.Close()
	health := NewHealth(h, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/livez", health.Live())
	mux.Handle("/readyz", health.Ready())

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output: 200 {"ready":true,"checks":{"handler":"ok"}}
}
