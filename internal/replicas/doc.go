// Package replicas tests a stateful deployment end to end: several
// everything-server processes sharing Redis (the -redis and
// -redis-cluster flags, package redisstore) behind a round-robin reverse
// proxy, so that any request or connection may land on any replica. It
// holds the proxy and a Redis Cluster a test starts to fail a master
// over; the tests are the point.
package replicas

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
)

// Proxy spreads requests over its backends in turn, skipping those marked
// down (as a load balancer's health check would), and names the backend
// that served each answer in the X-Replica header.
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
	p.rp = &httputil.ReverseProxy{
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
		r.ContentLength = int64(len(b))
	}
	p.rp.ServeHTTP(w, r)
}
