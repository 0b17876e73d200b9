package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
)

// weatherSchema is the input schema of surfaceServer's tool, units being
// the enum's values.
func weatherSchema(units string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"enum":[` + units + `]}},"required":["city"]}`)
}

// surfaceServer is a server with a tool, a prompt, a resource and a
// template; units are the values of the tool's units enum.
func surfaceServer(t *testing.T, units string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.2.3"}, &mcp.ServerOptions{Instructions: "Ask for the weather."})
	ro := true
	must(t, s.AddTool(&mcp.Tool{Name: "forecast", Description: "the forecast", InputSchema: weatherSchema(units),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: &ro}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"celsius":21}`)}, nil
		}))
	must(t, s.AddPrompt(&mcp.Prompt{Name: "plan", Arguments: []*mcp.PromptArgument{{Name: "day", Required: true}, {Name: "city"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		}))
	must(t, s.AddResource(&mcp.Resource{URI: "weather://stations", Name: "stations", MIMEType: "application/json"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		}))
	must(t, s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "weather://city/{name}", Name: "city"},
		func(context.Context, *mcp.ReadResourceRequest, map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		}))
	return s
}

// TestSurface checks the server against its golden surface, written with
// MCPTEST_UPDATE=1 go test -run TestSurface.
func TestSurface(t *testing.T) {
	mcptest.Surface(t, surfaceServer(t, `"c","f"`), "testdata/surface.json")
}

// recordingTB is a testing.TB that records Errorf and Fatalf (which ends
// its goroutine, as FailNow does) instead of failing the test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// failures runs f with a recordingTB on its own goroutine (Fatalf ends
// it) and returns what f reported.
func failures(t *testing.T, f func(tb testing.TB)) []string {
	r := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// TestSurfaceFailsOnChange checks that Surface fails the test when the
// server's schema changes, naming each change and its class, and passes
// when only the order of a set changes.
func TestSurfaceFailsOnChange(t *testing.T) {
	golden := "testdata/surface.json"
	for _, tc := range []struct {
		name, units string
		want        []string // in the one failure; none: no failure
	}{
		{"same set in another order", `"f","c"`, nil},
		{"enum narrowed", `"c"`, []string{"1 breaking, 0 compatible", `breaking /tools/forecast/inputSchema/properties/units/enum: tool "forecast": argument "units": enum narrowed: "f" removed`}},
		{"enum widened", `"c","f","k"`, []string{"0 breaking, 1 compatible", "compatible /tools/forecast/inputSchema/properties/units/enum", "MCPTEST_UPDATE=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, tc.units), golden) })
			switch {
			case tc.want == nil && len(got) != 0:
				t.Errorf("Surface failed: %q", got)
			case tc.want != nil && len(got) != 1:
				t.Fatalf("Surface reported %d failures, want 1: %q", len(got), got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("the failure lacks %q:\n%s", w, got[0])
				}
			}
		})
	}
}

// TestSurfaceUpdate checks the one way to update a golden surface, and
// that the revision it was taken at is kept.
func TestSurfaceUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "surface.json")
	got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, `"c"`), path) })
	if len(got) != 1 || !strings.Contains(got[0], "MCPTEST_UPDATE=1") {
		t.Fatalf("a missing golden file: %q", got)
	}
	t.Setenv(mcptest.UpdateEnv, "1")
	if got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, `"c"`), path) }); len(got) != 0 {
		t.Fatalf("updating: %q", got)
	}
	// Pin an older revision: updating keeps it.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`"protocolVersion": "[^"]*"`).ReplaceAll(b, []byte(`"protocolVersion": "`+mcp.Version20250618+`"`))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, `"c","f"`), path) }); len(got) != 0 {
		t.Fatalf("updating: %q", got)
	}
	b, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"protocolVersion": "`+mcp.Version20250618+`"`) || !strings.Contains(string(b), `"f"`) {
		t.Errorf("the updated snapshot:\n%s", b)
	}
	t.Setenv(mcptest.UpdateEnv, "")
	if got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, `"c","f"`), path) }); len(got) != 0 {
		t.Errorf("after the update: %q", got)
	}
}

// TestSurfaceFormOnly checks that a golden file differing from the
// server only where no client looks (an unused $defs entry) still fails,
// saying so.
func TestSurfaceFormOnly(t *testing.T) {
	b, err := os.ReadFile("testdata/surface.json")
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `"inputSchema": {`, `"inputSchema": {"$defs": {"unused": {"type": "string"}},`, 1))
	path := filepath.Join(t.TempDir(), "surface.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got := failures(t, func(tb testing.TB) { mcptest.Surface(tb, surfaceServer(t, `"c","f"`), path) })
	if len(got) != 1 || !strings.Contains(got[0], "no change a client would see") {
		t.Errorf("failures: %q", got)
	}
}
