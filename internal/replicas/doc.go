// Package replicas tests a stateful deployment end to end: several
// everything-server processes sharing Redis (the -redis and
// -redis-cluster flags, package redisstore) behind a round-robin reverse
// proxy, so that any request or connection may land on any replica. It
// holds the proxy, a redis-server a test starts for itself (also for the
// mcp command's gateway replica test) and a Redis Cluster a test starts
// to fail a master over; the tests are the point.
package replicas

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy spreads requests over its backends in turn, skipping those marked
// down (as a load balancer's health check would: see Watch), and names the
// backend that served each answer in the X-Replica header. Like nginx's
// proxy_next_upstream, it sends a request that could not be delivered (the
// backend refused the connection) to the next backend, marking the first
// down.
type Proxy struct {
	rp *httputil.ReverseProxy

	mu      sync.Mutex
	targets []*url.URL
	down    []bool
	next    int
	served  []atomic.Int64
}

// NewProxy returns a proxy over targets.
func NewProxy(targets []*url.URL) *Proxy {
	p := &Proxy{targets: targets, down: make([]bool, len(targets)), served: make([]atomic.Int64, len(targets))}
	// A connection per request: a backend that stops refuses new ones
	// (which are sent elsewhere), instead of closing a kept-alive one
	// under a request.
	base := &http.Transport{DisableKeepAlives: true}
	p.rp = &httputil.ReverseProxy{
		Transport: &nextUpstream{p: p, base: base},
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := p.pick()
			pr.SetURL(p.targets[i])
			pr.Out.Header.Set("X-Replica", strconv.Itoa(i))
			p.served[i].Add(1)
		},
		ModifyResponse: func(r *http.Response) error {
			r.Header.Set("X-Replica", r.Request.Header.Get("X-Replica"))
			return nil
		},
		FlushInterval: -1, // stream SSE events as they come
	}
	return p
}

// nextUpstream sends a request whose backend refused the connection to the
// next backend: nothing reached the first, so nothing runs twice.
type nextUpstream struct {
	p    *Proxy
	base http.RoundTripper
}

func (n *nextUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		resp, err := n.base.RoundTrip(r)
		var op *net.OpError
		if err == nil || try == len(n.p.targets) || !errors.As(err, &op) || op.Op != "dial" || (r.Body != nil && r.GetBody == nil) {
			return resp, err
		}
		i, _ := strconv.Atoi(r.Header.Get("X-Replica"))
		n.p.SetDown(i, true)
		j := n.p.pick()
		if r.GetBody != nil {
			if r.Body, err = r.GetBody(); err != nil {
				return nil, err
			}
		}
		r.URL.Scheme, r.URL.Host = n.p.targets[j].Scheme, n.p.targets[j].Host
		r.Host = ""
		r.Header.Set("X-Replica", strconv.Itoa(j))
		n.p.served[j].Add(1)
	}
}

// Watch asks every backend's readiness probe (/readyz) every interval
// until ctx ends, taking those that are not ready out of the rotation and
// putting them back once they are, as a load balancer's health check does.
func (p *Proxy) Watch(ctx context.Context, interval time.Duration) {
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for i, u := range p.targets {
			req, _ := http.NewRequestWithContext(ctx, "GET", u.String()+"/readyz", nil)
			resp, err := hc.Do(req)
			ready := err == nil && resp.StatusCode == http.StatusOK
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if ctx.Err() != nil {
				return
			}
			p.SetDown(i, !ready)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pick returns the next backend that is up.
func (p *Proxy) pick() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range p.targets {
		i := p.next % len(p.targets)
		p.next++
		if !p.down[i] {
			return i
		}
	}
	return 0
}

// SetDown takes backend i out of the rotation (or puts it back).
func (p *Proxy) SetDown(i int, down bool) {
	p.mu.Lock()
	p.down[i] = down
	p.mu.Unlock()
}

// Down reports whether backend i is out of the rotation.
func (p *Proxy) Down(i int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down[i]
}

// Served reports how many requests backend i was given.
func (p *Proxy) Served(i int) int64 { return p.served[i].Load() }

// maxBody bounds a request body the proxy buffers.
const maxBody = 4 << 20

// ServeHTTP implements http.Handler. It reads the request body whole
// before forwarding it, as load balancers do: the Go HTTP/1 server may
// close an unread request body once the response headers are flushed,
// which a streaming answer does at once.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(b) > maxBody {
			http.Error(w, "proxy: bad request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		r.ContentLength = int64(len(b))
	}
	p.rp.ServeHTTP(w, r)
}
