package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"go.uber.org/goleak"
)

// TestMain fails the tests if a session outlives them: Connect must close
// what it opens.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestExample(t *testing.T) { testAdd(t) }

// newServer returns a server with a tool that reports progress and one that
// asks the user for confirmation.
func newServer(t *testing.T) *mcp.Server {
	s := newAdder(t)
	must(t, s.AddTool(&mcp.Tool{Name: "count", Description: "count to three, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				if err := req.NotifyProgress(ctx, float64(i+1), 3, fmt.Sprintf("step %d", i+1)); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "1 2 3"}}}, nil
		}))
	must(t, s.AddTool(&mcp.Tool{Name: "confirm", Description: "ask the user to confirm"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message: "Proceed?",
				RequestedSchema: &mcp.ElicitSchema{
					Properties: []mcp.ElicitProperty{{Name: "ok", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaBoolean}}},
					Required:   []string{"ok"},
				},
			})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res.Action)}}}, nil
		}))
	return s
}

// must fails the test if err is not nil.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// accept is a client's elicitation handler that accepts every form.
func accept(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"ok": true}}, nil
}

// TestTranscriptGolden records a session with a handshake, a listing,
// progress and elicitation, at the newest stateful revision and at the
// default (the stateless 2026-07-28), and compares each with its golden
// file. Progress tokens and request states, which differ between runs,
// appear as placeholders.
func TestTranscriptGolden(t *testing.T) {
	for _, tc := range []struct{ name, version string }{
		{"session-2025-11-25", mcp.Version20251125},
		{"session-default", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr mcptest.Transcript
			cs := mcptest.Connect(t, newServer(t), &mcptest.Options{
				ProtocolVersion: tc.version,
				Client:          &mcp.ClientOptions{ElicitationHandler: accept},
				Transcript:      &tr,
			})
			ctx := t.Context()
			for _, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
			}
			var steps int
			pctx := mcp.WithProgress(ctx, func(*mcp.ProgressNotificationParams) { steps++ })
			if _, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "count"}); err != nil {
				t.Fatal(err)
			}
			if steps != 3 {
				t.Errorf("%d progress notifications, want 3", steps)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != string(mcp.ElicitActionAccept) {
				t.Errorf("confirm = %q, want accept", got)
			}
			mcptest.Golden(t, filepath.Join("testdata", tc.name+".golden"), tr.String())
		})
	}
}

// TestConnectVersions connects at every revision and at the default.
func TestConnectVersions(t *testing.T) {
	for _, v := range append(mcp.SupportedVersions(), "") {
		cs := mcptest.Connect(t, newAdder(t), &mcptest.Options{ProtocolVersion: v})
		want := v
		if v == "" {
			want = mcp.LatestVersion
		}
		if got := cs.ProtocolVersion(); got != want {
			t.Errorf("asked for %q: got revision %q, want %q", v, got, want)
		}
	}
	// Options.ProtocolVersion overrides the client's own.
	cs := mcptest.Connect(t, newAdder(t), &mcptest.Options{
		ProtocolVersion: mcp.Version20250326,
		Client:          &mcp.ClientOptions{ProtocolVersion: mcp.Version20250618},
	})
	if got := cs.ProtocolVersion(); got != mcp.Version20250326 {
		t.Errorf("got revision %q, want %s", got, mcp.Version20250326)
	}
}

// TestConnectCloses checks that the session Connect returns is closed, on
// both sides, when the test ends.
func TestConnectCloses(t *testing.T) {
	s := newAdder(t)
	var (
		cs *mcp.ClientSession
		ss []*mcp.ServerSession
	)
	t.Run("inner", func(t *testing.T) {
		cs = mcptest.Connect(t, s, nil)
		ss = s.Sessions()
	})
	if len(ss) != 1 {
		t.Fatalf("%d server sessions during the test, want 1", len(ss))
	}
	for what, done := range map[string]<-chan struct{}{"client": cs.Done(), "server": ss[0].Done()} {
		select {
		case <-done:
		default:
			t.Errorf("the %s session is still open after the test", what)
		}
	}
}

// fakeT is a testing.TB that records failures instead of failing, so the
// tests can check that mcptest reports them. Fatal ends the goroutine, as
// it does for a real test, so calls must run in run.
type fakeT struct {
	testing.TB // the real test, for Context, TempDir and Logf
	mu         sync.Mutex
	errors     []string
	fatal      bool
	cleanups   []func()
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.mu.Lock()
	f.fatal = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// run calls fn with f on a goroutine of its own, then f's cleanups, last
// first, and returns the failures reported.
func (f *fakeT) run(fn func(testing.TB)) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errors, "\n")
}

func TestConnectFails(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, ""} {
		var (
			mu       sync.Mutex
			sessions []*mcp.ServerSession
		)
		refuse := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if ss, ok := r.Session.(*mcp.ServerSession); ok { // nil for a stateless request
					mu.Lock()
					sessions = append(sessions, ss)
					mu.Unlock()
				}
				return nil, errors.New("refused")
			}
		}
		s := mcp.NewServer(nil, &mcp.ServerOptions{Receiving: []mcp.Middleware{refuse}})
		ft := &fakeT{TB: t}
		got := ft.run(func(t testing.TB) {
			mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: v})
			t.Errorf("Connect returned")
		})
		if !ft.fatal || !strings.Contains(got, "mcptest: connecting the client") || !strings.Contains(got, "refused") {
			t.Errorf("version %q: failures %q, want a fatal connection error", v, got)
		}
		// The server's side is closed before Connect gives up.
		mu.Lock()
		if len(sessions) == 0 {
			t.Errorf("version %q: the server received nothing", v)
		}
		for _, ss := range sessions {
			select {
			case <-ss.Done():
			default:
				t.Errorf("version %q: the server session is still open after a failed Connect", v)
			}
		}
		mu.Unlock()
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	golden := func(got string) string {
		ft := &fakeT{TB: t}
		return ft.run(func(t testing.TB) { mcptest.Golden(t, path, got) })
	}
	setUpdate(t, false) // whatever go test was run with
	if got := golden("a\n"); !strings.Contains(got, "MCPTEST_UPDATE=1") {
		t.Errorf("missing file: failures %q, want a hint to run with MCPTEST_UPDATE=1", got)
	}

	setUpdate(t, true)
	if got := golden("a\nb\n"); got != "" {
		t.Fatalf("with MCPTEST_UPDATE=1: failures %q", got)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("with MCPTEST_UPDATE=1 the file holds %q, %v; want %q", b, err, "a\nb\n")
	}
	setUpdate(t, false)

	if got := golden("a\nb\n"); got != "" {
		t.Errorf("same text: failures %q", got)
	}
	for _, tc := range []struct{ got, want string }{
		{"a\nc\n", "line 2"},
		{"a\nb\nc\n", "line 3"},
		{"a\n", "(end of text)"},
		{"a\nb", "no newline at end"},
	} {
		if got := golden(tc.got); !strings.Contains(got, tc.want) || !strings.Contains(got, "MCPTEST_UPDATE=1") {
			t.Errorf("Golden(%q) failures %q, want them to mention %q and MCPTEST_UPDATE=1", tc.got, got, tc.want)
		}
	}
	if err := os.WriteFile(path, []byte("a\r\nb\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := golden("a\nb\n"); got != "" {
		t.Errorf("file with \\r\\n line endings: failures %q", got)
	}
}

// setUpdate sets MCPTEST_UPDATE until the test ends.
func setUpdate(t *testing.T, on bool) {
	t.Helper()
	v := "0"
	if on {
		v = "1"
	}
	t.Setenv(mcptest.UpdateEnv, v)
}

// TestNoFlags checks that importing mcptest defines no flag in the test
// binary of its user, where it could clash with the user's own.
func TestNoFlags(t *testing.T) {
	flag.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			t.Errorf("the test binary has a flag -%s", f.Name)
		}
	})
}

// TestTranscriptNormalizes checks the placeholders on hand-made traffic
// that a session sends through a pipe: the same token gets the same
// placeholder, a member named like a varying one inside a string value or
// as a value is kept, and the rest is kept byte for byte.
func TestTranscriptNormalizes(t *testing.T) {
	var seen []json.RawMessage
	s := mcp.NewServer(nil, nil)
	s.AddTool(&mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen = append(seen, req.Params.Arguments)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "progressToken"}}}, nil
	})
	var tr mcptest.Transcript
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: mcp.Version20250618, Transcript: &tr})
	args := []string{
		`{"progressToken":"abc","x":["progressToken",{"requestState":"s1","progressToken":7}],"y":{"requestState":"s1"}}`,
		"{\"n\": {\"progressToken\" :\n\t\"abc\"}, \"requestState\":\"s2\",\"z\":\"requestState\"}",
	}
	for _, a := range args {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(a)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("the tool ran %d times, want 2", len(seen))
	}
	want := []string{
		`"arguments":{"progressToken":"<progressToken 1>","x":["progressToken",{"requestState":"<requestState 1>","progressToken":"<progressToken 2>"}],"y":{"requestState":"<requestState 1>"}}`,
		`"arguments":{"n":{"progressToken":"<progressToken 1>"},"requestState":"<requestState 2>","z":"requestState"}`,
		`{"type":"text","text":"progressToken"}`,
	}
	got := tr.String()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("transcript lacks %s:\n%s", w, got)
		}
	}
	var dirs []string
	for l := range strings.Lines(got) {
		dirs = append(dirs, l[:2])
	}
	if d := strings.Join(dirs, " "); d != "-> <- -> -> <- -> <-" {
		t.Errorf("directions %s, want -> <- -> -> <- -> <- (initialize, initialized, two calls):\n%s", d, got)
	}
}
