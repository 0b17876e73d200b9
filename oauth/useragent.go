package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// UserAgent is the step of the authorization-code flow that involves the
// user: visiting the authorization URL and bringing back the parameters the
// authorization server redirected to the redirect URL with.
type UserAgent interface {
	// RedirectURL is the redirect_uri to register and to send.
	RedirectURL(ctx context.Context) (string, error)
	// Authorize visits authURL and returns the query of the redirect back.
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// HeadlessUserAgent completes the authorization step without a person or
// a browser, for tests, CI and authorization servers that approve without
// a login page: it requests the authorization URL with an http.Client,
// follows redirects within the authorization server's origin, and takes
// the parameters from the redirect to Redirect, which is never contacted.
type HeadlessUserAgent struct {
	// HTTPClient sends the requests (its CheckRedirect is not used).
	// Default http.DefaultClient.
	HTTPClient *http.Client
	// Redirect is the redirect URL. Default http://localhost:3000/callback.
	Redirect string
}

// RedirectURL implements UserAgent.
func (h *HeadlessUserAgent) RedirectURL(context.Context) (string, error) {
	if h.Redirect == "" {
		return "http://localhost:3000/callback", nil
	}
	return h.Redirect, nil
}

// Authorize implements UserAgent.
func (h *HeadlessUserAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	redirect, _ := h.RedirectURL(ctx)
	ru, err := url.Parse(redirect)
	if err != nil {
		return nil, fmt.Errorf("oauth: bad redirect URL: %w", err)
	}
	hc := http.DefaultClient
	if h.HTTPClient != nil {
		hc = h.HTTPClient
	}
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cur, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	start := cur
	for hop := 0; hop < 10; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cur.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("oauth: authorization request: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode < 300 || resp.StatusCode > 399 {
			return nil, fmt.Errorf("oauth: authorization request: %s, not a redirect", resp.Status)
		}
		next, err := cur.Parse(resp.Header.Get("Location"))
		if err != nil || resp.Header.Get("Location") == "" {
			return nil, errors.New("oauth: authorization request: redirect without a valid Location")
		}
		if sameOrigin(next, ru) && next.Path == ru.Path {
			return next.Query(), nil
		}
		if !sameOrigin(next, start) {
			return nil, fmt.Errorf("oauth: authorization request redirected to %s, neither the authorization server nor the redirect URL", next.Redacted())
		}
		cur = next
	}
	return nil, errors.New("oauth: authorization request: too many redirects")
}

// LoopbackUserAgent is the UserAgent for people: it listens on a loopback
// address, opens the authorization URL in the browser and waits for the
// browser to come back to http://127.0.0.1:PORT/callback (RFC 8252 §7.3).
// A callback whose state is not the authorization's (from another process
// on the machine, or a page in the browser) gets an error page and the
// wait goes on, until the real answer or the timeout.
type LoopbackUserAgent struct {
	// Addr is the listening address. Default 127.0.0.1:0 (any free port).
	Addr string
	// Open shows the URL to the user. Default OpenBrowser; an error from
	// it ends the authorization.
	Open func(authURL string) error
	// Timeout bounds the wait for the browser. Default 5 minutes.
	Timeout time.Duration

	mu sync.Mutex
	ln net.Listener
}

// RedirectURL implements UserAgent: it starts the listener.
func (l *LoopbackUserAgent) RedirectURL(context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		addr := l.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return "", fmt.Errorf("oauth: loopback listener: %w", err)
		}
		l.ln = ln
	}
	return "http://" + l.ln.Addr().String() + "/callback", nil
}

// Close stops a listener that RedirectURL started for an authorization
// that never took place.
func (l *LoopbackUserAgent) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return nil
	}
	err := l.ln.Close()
	l.ln = nil
	return err
}

// Authorize implements UserAgent.
func (l *LoopbackUserAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	if _, err := l.RedirectURL(ctx); err != nil {
		return nil, err
	}
	l.mu.Lock()
	ln := l.ln
	l.ln = nil // the next authorization listens afresh
	l.mu.Unlock()
	state, err := stateOf(authURL)
	if err != nil {
		return nil, err
	}
	got := make(chan url.Values, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			if st := q["state"]; state != "" && (len(st) != 1 || subtle.ConstantTimeCompare([]byte(st[0]), []byte(state)) != 1) {
				// Anyone on this machine, or a page in the browser, can
				// call the listener: only the answer to this authorization
				// ends the wait.
				http.Error(w, "This is not the answer to the pending authorization: ignored.", http.StatusBadRequest)
				return
			}
			// The page goes out before the code is handed on: once it is,
			// Authorize returns and the server shuts down.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("Authorization complete; you may close this window.\n"))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			select {
			case got <- q:
			default:
			}
		}),
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	defer func() {
		// Shutdown lets the callback's response finish; a browser that
		// holds its connection open does not hold up the return for long.
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		<-done
	}()
	open := l.Open
	if open == nil {
		open = OpenBrowser
	}
	if err := open(authURL); err != nil {
		return nil, fmt.Errorf("oauth: open %s in a browser: %w", authURL, err)
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case q := <-got:
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errors.New("oauth: timed out waiting for the browser")
	}
}

// stateOf returns the state parameter of an authorization URL, "" if it
// has none.
func stateOf(authURL string) (string, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", fmt.Errorf("oauth: authorization URL: %w", err)
	}
	return u.Query().Get("state"), nil
}

// OpenBrowser opens the http(s) URL u in the system's browser (with open,
// rundll32 or xdg-open), without waiting for it; the default Open of a
// LoopbackUserAgent, for programs that print the URL as well.
func OpenBrowser(u string) error {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return errors.New("not an http(s) URL")
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
