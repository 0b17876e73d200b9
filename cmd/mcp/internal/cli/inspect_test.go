package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

func TestInspectorRefusesStrangers(t *testing.T) {
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "s3cret", asks: map[int]chan json.RawMessage{}}
	h := in.handler("127.0.0.1:4000")
	for _, tc := range []struct {
		name, method, path, host, origin, ctype string
		want                                    int
	}{
		{"page", "GET", "/s3cret/", "127.0.0.1:4000", "", "", 200},
		{"page via localhost", "GET", "/s3cret/", "localhost:4000", "", "", 200},
		{"script", "GET", "/s3cret/app.js", "127.0.0.1:4000", "", "", 200},
		{"no token", "GET", "/", "127.0.0.1:4000", "", "", 403},
		{"wrong token", "GET", "/s3creT/", "127.0.0.1:4000", "", "", 403},
		{"token as a prefix", "GET", "/s3cretX/", "127.0.0.1:4000", "", "", 403},
		{"rebound name", "GET", "/s3cret/", "evil.example:4000", "", "", 403},
		{"other port", "GET", "/s3cret/", "127.0.0.1:4001", "", "", 403},
		{"cross-site post", "POST", "/s3cret/api/state", "127.0.0.1:4000", "http://evil.example", "application/json", 403},
		{"same-site post", "POST", "/s3cret/api/state", "127.0.0.1:4000", "http://127.0.0.1:4000", "application/json", 200},
		{"form post", "POST", "/s3cret/api/state", "127.0.0.1:4000", "", "text/plain", 415},
		{"unknown action", "POST", "/s3cret/api/nope", "127.0.0.1:4000", "", "application/json", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, strings.NewReader("{}"))
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if w.Code == 200 && w.Header().Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy")
			}
		})
	}
}

func TestInspectorRefusesNonLoopback(t *testing.T) {
	inv := &invocation{stdout: io.Discard, stderr: io.Discard, addr: "0.0.0.0:0", target: []string{"http://127.0.0.1:1/mcp"}}
	err := inv.inspect(context.Background())
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v, want a usage error", err)
	}
}

// TestInspectorActions drives the page's API: lists, a call whose
// elicitation is answered through the feed, a call with progress, and a
// connection to another server.
func TestInspectorActions(t *testing.T) {
	ctx := context.Background()
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}}
	if err := in.connect(ctx, []string{everythingURL(t)}, &targetFlags{}); err != nil {
		t.Fatal(err)
	}
	defer in.close()
	recent, feed := in.hub.subscribe()
	defer in.hub.unsubscribe(feed)
	kinds := map[string]bool{}
	for _, e := range recent {
		kinds[e.Kind+e.Dir] = true
	}
	for _, k := range []string{"connecting", "messageout", "messagein", "connected"} {
		if !kinds[k] {
			t.Errorf("no %s event before the page connected: %v", k, kinds)
		}
	}

	tools, err := in.do(ctx, "tools", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tools.([]*mcp.Tool)); n < 5 {
		t.Errorf("%d tools", n)
	}

	// The server's question reaches the feed; the answer goes back.
	type callResult struct {
		res any
		err error
	}
	done := make(chan callResult, 1)
	go func() {
		res, err := in.do(ctx, "call", []byte(`{"name":"test_elicitation","arguments":{"message":"who?"}}`))
		done <- callResult{res, err}
	}()
	var id int
	for id == 0 {
		select {
		case e := <-feed:
			if e.Kind == "elicit" {
				var d struct {
					ID     int              `json:"id"`
					Params mcp.ElicitParams `json:"params"`
				}
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				if d.Params.Message != "who?" {
					t.Errorf("message %q", d.Params.Message)
				}
				id = d.ID
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no elicit event")
		}
	}
	answer := `{"id":` + strconv.Itoa(id) + `,"result":{"action":"accept","content":{"username":"bob","email":"b@x"}}}`
	if _, err := in.do(ctx, "answer", []byte(answer)); err != nil {
		t.Fatal(err)
	}
	if _, err := in.do(ctx, "answer", []byte(answer)); err == nil {
		t.Error("a second answer to the same question was accepted")
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	text := r.res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"username":"bob"`) {
		t.Errorf("result %q", text)
	}

	// Progress reaches the feed.
	if _, err := in.do(ctx, "call", []byte(`{"name":"test_tool_with_progress"}`)); err != nil {
		t.Fatal(err)
	}
	sawProgress := false
	for !sawProgress {
		select {
		case e := <-feed:
			sawProgress = e.Kind == "progress"
		case <-time.After(10 * time.Second):
			t.Fatal("no progress event")
		}
	}

	// Another server, without restarting.
	st, err := in.do(ctx, "connect", []byte(`{"target":"`+everythingURL(t)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !st.(map[string]any)["connected"].(bool) {
		t.Errorf("state %v", st)
	}
	if _, err := in.do(ctx, "connect", []byte(`{"target":"   "}`)); err == nil {
		t.Error("an empty target was accepted")
	}
	if _, err := in.do(ctx, "call", []byte(`{"name":`)); err == nil {
		t.Error("a malformed body was accepted")
	}
}

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b ", []string{"a", "b"}},
		{`node "my server.js" --x='1 2'`, []string{"node", "my server.js", "--x=1 2"}},
		{`a\ b c`, []string{"a b", "c"}},
		{`''`, []string{""}},
	} {
		got, err := splitWords(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := splitWords(`a "b`); err == nil {
		t.Error("an unclosed quote was accepted")
	}
}

func TestHubDropsSlowPages(t *testing.T) {
	var h hub
	_, c := h.subscribe()
	for i := 0; i < inspectSubQueue+inspectRecent+10; i++ {
		h.publish("x", "", i)
	}
	n := 0
	for range c { // closed once it fell behind
		n++
	}
	if n != inspectSubQueue {
		t.Errorf("%d events queued, want %d", n, inspectSubQueue)
	}
	recent, c2 := h.subscribe()
	h.unsubscribe(c2)
	if len(recent) != inspectRecent || recent[len(recent)-1].Seq != int64(inspectSubQueue+inspectRecent+10) {
		t.Errorf("%d recent events, last %d", len(recent), recent[len(recent)-1].Seq)
	}
}

// TestInspectorStartsWithoutServer: when the first connection fails, mcp
// inspect stays up, the page shows why, and another target can be picked.
func TestInspectorStartsWithoutServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr bytes.Buffer // read once Run is done
	go func() {
		code := Run(ctx, []string{"inspect", "--addr", "127.0.0.1:0", "http://127.0.0.1:1/mcp"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
		done <- code
	}()
	defer func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("exit %d", code)
		}
		// One prefix: the command's, not the library's too.
		if msg := stderr.String(); !strings.HasPrefix(msg, "mcp inspect: ") || strings.Contains(msg, "mcp inspect: mcp: ") || !strings.Contains(msg, "connection refused") {
			t.Errorf("stderr %q", msg)
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("mcp inspect ended: %v", err)
	}
	go io.Copy(io.Discard, pr)
	page, ok := strings.CutPrefix(strings.TrimSpace(line), "inspector at ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	api := func(op, body string) map[string]any {
		t.Helper()
		resp, err := http.Post(page+"api/"+op, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct {
			Result map[string]any
		}
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v.Result
	}
	st := api("state", "{}")
	if msg, _ := st["error"].(string); st["connected"] != false || msg == "" || strings.HasPrefix(msg, "mcp: ") || st["target"] != "http://127.0.0.1:1/mcp" {
		t.Errorf("state after a failed start: %v", st)
	}
	st = api("connect", fmt.Sprintf(`{"target":%q}`, everythingURL(t)))
	if st["connected"] != true {
		t.Errorf("state after connecting elsewhere: %v", st)
	}
}

// A URL-mode elicitation reaches the page only with an http or https URL,
// which the page makes a link: a javascript: (or data:, file:) URL from a
// server is refused before it gets there.
func TestInspectorElicitationURLSchemes(t *testing.T) {
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}}
	_, feed := in.hub.subscribe()
	defer in.hub.unsubscribe(feed)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel() // the page never answers: ask returns once it has published
	for u, shown := range map[string]bool{
		"https://example.com/login":         true,
		"http://127.0.0.1:8080/x":           true,
		"javascript:alert(1)":               false,
		"JavaScript:alert(1)":               false,
		"data:text/html,<script>1</script>": false,
		"file:///etc/passwd":                false,
		"//example.com/login":               false,
		"https:relative":                    false,
		"":                                  false,
	} {
		_, err := in.elicit(cancelled, &mcp.ElicitRequest{Params: &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "go", URL: u}})
		var got bool // an elicit event, then (cancelled) an answered one
	drain:
		for {
			select {
			case e := <-feed:
				got = got || e.Kind == "elicit"
			default:
				break drain
			}
		}
		if got != shown {
			t.Errorf("%q: shown to the page %v, want %v", u, got, shown)
		}
		if !shown && (err == nil || !strings.Contains(err.Error(), "http and https")) {
			t.Errorf("%q: %v, want a refusal", u, err)
		}
	}
}

// TestInspectorFailedSwitch: connecting to a server that cannot be started
// ends the session with the previous one: the page is left disconnected,
// saying why, and its calls are refused rather than run against the old
// server.
func TestInspectorFailedSwitch(t *testing.T) {
	ctx := context.Background()
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}}
	if _, err := in.do(ctx, "connect", fmt.Appendf(nil, `{"target":%q}`, everythingBin)); err != nil {
		t.Fatal(err)
	}
	defer in.close()
	in.mu.Lock()
	old := in.cs
	in.mu.Unlock()
	missing := filepath.Join(t.TempDir(), "no-such-server")
	if _, err := in.do(ctx, "connect", fmt.Appendf(nil, `{"target":%q}`, missing)); err == nil {
		t.Fatal("connecting to a missing command succeeded")
	}
	select {
	case <-old.Done():
	case <-time.After(10 * time.Second):
		t.Error("the previous session is still open")
	}
	st := in.state()
	if st["connected"] != false || st["target"] != missing || !strings.Contains(st["error"].(string), "no-such-server") {
		t.Errorf("state after the failed switch: %v", st)
	}
	for _, op := range []string{"tools", "call"} {
		_, err := in.do(ctx, op, []byte(`{"name":"test_simple_text"}`))
		if err == nil || !strings.Contains(err.Error(), "not connected") || !strings.Contains(err.Error(), "no-such-server") {
			t.Errorf("%s after the failed switch: %v", op, err)
		}
	}
}
