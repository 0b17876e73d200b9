package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Pinger is implemented by a store that can tell whether it answers: a
// Redis store pings its server, a database store its database. The
// readiness check asks every store the Handler uses (its SessionStore,
// its EventStore, the mcp.Server's Notifier) that implements it, and
// whatever else HealthOptions.Checks names. The in-memory stores always
// answer and need not implement it.
type Pinger interface {
	// Ping returns nil when the store answers, an error saying why not
	// otherwise. It must honour ctx's deadline.
	Ping(ctx context.Context) error
}

// PingFunc makes a function a Pinger, for a check that is not a store.
type PingFunc func(ctx context.Context) error

// Ping calls f.
func (f PingFunc) Ping(ctx context.Context) error { return f(ctx) }

// DefaultHealthTimeout bounds a readiness check when HealthOptions.Timeout
// is zero: well under the usual load balancer probe timeout.
const DefaultHealthTimeout = 2 * time.Second

// HealthOptions configures the checks of a Health.
type HealthOptions struct {
	// Checks are more things readiness asks, by the name the report gives
	// them: a task store, a database the tools need. The Handler's stores
	// are asked without being listed.
	Checks map[string]Pinger
	// Timeout bounds one readiness check (every store, asked at once).
	// Default DefaultHealthTimeout.
	Timeout time.Duration
}

// Health answers a load balancer's or orchestrator's probes for a
// Handler, without any telemetry dependency:
//
//   - Live (liveness, e.g. /livez) answers 200 while the process can
//     serve HTTP at all; it asks nothing else, so that a slow store never
//     gets a healthy process restarted.
//   - Ready (readiness, e.g. /readyz) answers 200 when the Handler is open
//     and every store answers its Ping, 503 otherwise (and from the moment
//     the Handler drains or is closed, Shutdown or Close, so that a load
//     balancer sends its traffic elsewhere). Its JSON
//     body names each check and whether it passed; the errors themselves
//     go to the Handler's Logger, not to whoever probes.
//
// Probes arriving while a check runs share its outcome, so a burst of
// probes costs the stores one round of pings.
type Health struct {
	h       *Handler
	timeout time.Duration
	checks  []namedCheck

	mu      sync.Mutex
	running *readyCheck // the check in progress, if any
}

// namedCheck is one Pinger and the name the report gives it.
type namedCheck struct {
	name string
	p    Pinger
}

// readyCheck is one round of pings, shared by the probes that wait on it.
type readyCheck struct {
	done   chan struct{}
	report ReadyReport
}

// ReadyReport is the outcome of a readiness check, and the JSON body Ready
// answers with.
type ReadyReport struct {
	// Ready is true when the Handler is open and every check passed.
	Ready bool `json:"ready"`
	// Checks maps each check's name to "ok" or "failed"; "handler" is
	// "closed" once the Handler drains or is closed.
	Checks map[string]string `json:"checks"`
	// Errors holds the error of each failed check, by name; it is not
	// part of the HTTP answer.
	Errors map[string]error `json:"-"`
}

// NewHealth returns the probes for h. opts may be nil.
func NewHealth(h *Handler, opts *HealthOptions) *Health {
	hc := &Health{h: h, timeout: DefaultHealthTimeout}
	if opts != nil && opts.Timeout > 0 {
		hc.timeout = opts.Timeout
	}
	add := func(name string, v any) {
		if p, ok := v.(Pinger); ok && p != nil {
			hc.checks = append(hc.checks, namedCheck{name, p})
		}
	}
	add("session store", h.states)
	add("event store", h.events)
	add("notifier", h.notifier)
	if opts != nil {
		for name, p := range opts.Checks {
			add(name, p)
		}
	}
	return hc
}

// Live is the liveness probe: 200 "ok" to GET and HEAD.
func (hc *Health) Live() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probeMethod(w, r) {
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte("ok\n"))
		}
	})
}

// Ready is the readiness probe: 200 or 503, with a ReadyReport as JSON.
func (hc *Health) Ready() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probeMethod(w, r) {
			return
		}
		rep := hc.Check(r.Context())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		status := http.StatusOK
		if !rep.Ready {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			_ = json.NewEncoder(w).Encode(rep)
		}
	})
}

// probeMethod allows GET and HEAD, answering 405 to anything else.
func probeMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

// Check runs the readiness check, or waits for the one already running,
// and returns its report. ctx bounds only the wait: the check itself runs
// under the Health's timeout, so a probe giving up early does not fail the
// others sharing it.
func (hc *Health) Check(ctx context.Context) ReadyReport {
	hc.mu.Lock()
	c := hc.running
	if c == nil {
		c = &readyCheck{done: make(chan struct{})}
		hc.running = c
		go hc.run(c)
	}
	hc.mu.Unlock()
	// A Ping that ignores its deadline holds up its round; the probes
	// give up on it after the timeout, and the next probe after the round
	// ends starts a new one, so a hung store costs one goroutine, not one
	// per probe.
	wait := time.NewTimer(hc.timeout + hc.timeout/4)
	defer wait.Stop()
	select {
	case <-c.done:
		return c.report
	case <-wait.C:
		return notReady("timeout", errors.New("mcphttp: a readiness check is still running after the timeout"))
	case <-ctx.Done():
		return notReady("probe", context.Cause(ctx))
	}
}

// notReady is the report of a probe that got no answer from the checks.
func notReady(name string, err error) ReadyReport {
	return ReadyReport{Checks: map[string]string{name: "failed"}, Errors: map[string]error{name: err}}
}

// run asks every check at once and publishes the report.
func (hc *Health) run(c *readyCheck) {
	rep := ReadyReport{Ready: true, Checks: make(map[string]string, len(hc.checks)+1)}
	hc.h.mu.Lock()
	closed := hc.h.closed
	hc.h.mu.Unlock()
	if closed {
		rep.Ready = false
		rep.Checks["handler"] = "closed"
	} else {
		rep.Checks["handler"] = "ok"
	}
	ctx, cancel := context.WithTimeout(context.Background(), hc.timeout)
	errs := make([]error, len(hc.checks))
	var wg sync.WaitGroup
	for i, nc := range hc.checks {
		wg.Go(func() { errs[i] = ping(ctx, nc.p) }) // at once: the slowest bounds the round
	}
	wg.Wait()
	cancel()
	for i, nc := range hc.checks {
		if errs[i] == nil {
			rep.Checks[nc.name] = "ok"
			continue
		}
		rep.Ready = false
		rep.Checks[nc.name] = "failed"
		if rep.Errors == nil {
			rep.Errors = make(map[string]error)
		}
		rep.Errors[nc.name] = errs[i]
		hc.h.log.Warn("mcphttp: readiness check failed", "check", nc.name, "err", errs[i])
	}
	hc.mu.Lock()
	c.report = rep
	hc.running = nil
	hc.mu.Unlock()
	close(c.done)
}

// ping asks p, turning a panic into an error.
func ping(ctx context.Context, p Pinger) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("mcphttp: Ping panicked: %v", v)
		}
	}()
	return p.Ping(ctx)
}
