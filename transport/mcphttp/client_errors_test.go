package mcphttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// TestClientUnattributedErrorBody: the Python SDK refuses a POST it cannot
// take (bad headers, a body it cannot parse or validate) before it reads the
// request's id, with an HTTP error whose body is a JSON-RPC error under the
// id "server-error" (v1.29: pydantic's compact JSON) or null (v2). The
// caller of the request sees the server's code and message, and the HTTP
// status.
func TestClientUnattributedErrorBody(t *testing.T) {
	bodies := map[string]string{
		"v1.29": `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32602,"message":"Validation error: 1 validation error for JSONRPCMessage"}}`,
		"v2":    `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Validation error: 1 validation error for JSONRPCMessage"}}`,
	}
	for name, refusal := range bodies {
		t.Run(name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				b, _ := io.ReadAll(r.Body)
				m := jsonrpc.Decode(b)
				w.Header().Set("Content-Type", "application/json")
				switch m.Method {
				case mcp.MethodInitialize:
					w.Header().Set("Mcp-Session-Id", "7c1f")
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"py","version":"1.29.0"}}}`)
				case mcp.NotificationInitialized:
					w.WriteHeader(http.StatusAccepted)
				default:
					w.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(w, refusal)
				}
			}))
			t.Cleanup(ts.Close)
			cs, _ := connectTo(t, ts, ts.URL, nil, nil)
			_, err := cs.ListTools(ctx(t), nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "Validation error: 1 validation error") {
				t.Errorf("ListTools: %v, want the server's -32602 and its message", err)
			}
			var he *HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "Validation error") {
				t.Errorf("ListTools: %v, want an HTTPError 400 with the message", err)
			}
		})
	}
}

// TestClientUnattributedErrorNotification: the same refusal of a POSTed
// notification reaches the writer with the server's code and message.
func TestClientUnattributedErrorNotification(t *testing.T) {
	const refusal = `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Bad Request: Missing session ID"}}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, refusal)
	}))
	t.Cleanup(ts.Close)
	stream := NewClientStream(ts.URL, &ClientOptions{HTTPClient: ts.Client(), DisableSSEFallback: true})
	t.Cleanup(func() { stream.Close() })
	err := stream.Write(ctx(t), jsonrpc.NewNotification(mcp.NotificationRootsListChanged, nil))
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidRequest || je.Message != "Bad Request: Missing session ID" {
		t.Errorf("Write: %v, want the server's -32600 and its message", err)
	}
}

// TestClientGETRefusedKeepsSession: a server that offers no standalone
// stream and says so with a 4xx other than 405 (the conformance suite's
// test server answers the GET with 400 and a parse error) leaves the
// session working: the stream is optional, and ending the session for it
// failed the suite's initialize scenario.
func TestClientGETRefusedKeepsSession(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusForbidden, http.StatusMethodNotAllowed} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var gets atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					gets.Add(1)
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
					return
				}
				b, _ := io.ReadAll(r.Body)
				m := jsonrpc.Decode(b)
				w.Header().Set("Content-Type", "application/json")
				switch m.Method {
				case mcp.MethodInitialize:
					w.Header().Set("Mcp-Session-Id", "7c1f")
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
				case mcp.NotificationInitialized:
					w.WriteHeader(http.StatusAccepted)
				default:
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"tools":[]}}`)
				}
			}))
			t.Cleanup(ts.Close)
			cs, _ := connectTo(t, ts, ts.URL, nil, nil)
			deadline := time.Now().Add(5 * time.Second)
			for gets.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if gets.Load() == 0 {
				t.Fatal("the client never asked for the standalone stream")
			}
			time.Sleep(100 * time.Millisecond) // what the refusal would do, done
			select {
			case <-cs.Done():
				t.Fatalf("the session ended after the GET was refused with %d: %v", status, cs.Wait())
			default:
			}
			if _, err := cs.ListTools(ctx(t), nil); err != nil {
				t.Errorf("ListTools after the GET was refused with %d: %v", status, err)
			}
			if n := gets.Load(); n != 1 {
				t.Errorf("%d GETs, want 1: a refused stream is not asked for again", n)
			}
		})
	}
}
