package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// fakeAuthorizer hands out the token "good" once challenged.
type fakeAuthorizer struct {
	mu         sync.Mutex
	token      string
	challenges atomic.Int32
	fail       error
}

func (a *fakeAuthorizer) Authorize(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	return nil
}

func (a *fakeAuthorizer) Challenged(_ context.Context, _ *http.Request, resp *http.Response) (bool, error) {
	a.challenges.Add(1)
	if a.fail != nil {
		return false, a.fail
	}
	if resp.Header.Get("WWW-Authenticate") == "" {
		return false, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.token = "good"
	return true, nil
}

// requireToken answers 401 to any request without the token "good".
func requireToken(h http.Handler, seen *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			seen.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestAuthorizerRetry: the first request is refused with 401, the
// Authorizer obtains a token and the request (body intact) goes again, for
// Streamable HTTP (POST and GET stream) and HTTP+SSE alike.
func TestAuthorizerRetry(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := "streamable"
		if legacy {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			var h http.Handler
			url := "/mcp"
			if legacy {
				sh := NewSSEHandler(testServer(), nil)
				t.Cleanup(func() { sh.Close() })
				h, url = sh, "/sse"
			} else {
				h = NewHandler(testServer(), nil)
			}
			var refused atomic.Int32
			ts := httptest.NewServer(requireToken(h, &refused))
			t.Cleanup(ts.Close)
			az := &fakeAuthorizer{}
			opts := &ClientOptions{HTTPClient: ts.Client(), Authorizer: az}
			c := mcp.NewClient(nil, nil)
			var cs *mcp.ClientSession
			var err error
			if legacy {
				cs, err = c.Connect(ctx(t), NewSSEClientStream(ts.URL+url, opts))
			} else {
				cs, err = c.Connect(ctx(t), NewClientStream(ts.URL+url, opts))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := callText(t, cs, "echo", `{"text":"hi"}`); got != "hi" {
				t.Errorf("echo: %q", got)
			}
			if az.challenges.Load() != 1 || refused.Load() != 1 {
				t.Errorf("%d challenges, %d refusals; want 1 each", az.challenges.Load(), refused.Load())
			}
		})
	}
}

// TestAuthorizerError: an Authorizer's failure is the request's error, and
// a refusal it cannot resolve stays a 401.
func TestAuthorizerError(t *testing.T) {
	var refused atomic.Int32
	ts := httptest.NewServer(requireToken(NewHandler(testServer(), nil), &refused))
	t.Cleanup(ts.Close)
	boom := errors.New("no way to log in")
	c := mcp.NewClient(nil, nil)
	_, err := c.Connect(ctx(t), NewClientStream(ts.URL+"/mcp", &ClientOptions{HTTPClient: ts.Client(), Authorizer: &fakeAuthorizer{fail: boom}}))
	if !errors.Is(err, boom) {
		t.Errorf("Connect: %v, want %v", err, boom)
	}
	ts2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized) // no challenge
	}))
	t.Cleanup(ts2.Close)
	_, err = c.Connect(ctx(t), NewClientStream(ts2.URL+"/mcp", &ClientOptions{HTTPClient: ts2.Client(), Authorizer: &fakeAuthorizer{}, DisableSSEFallback: true}))
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized || !strings.Contains(err.Error(), "401") {
		t.Errorf("Connect: %v, want a 401 HTTPError", err)
	}
}
