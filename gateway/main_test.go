package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// upstreamEnv, when set, makes the test binary an upstream MCP server over
// stdio (see runUpstream): the process the fault tests kill.
const upstreamEnv = "GATEWAY_TEST_UPSTREAM"

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	if mode := os.Getenv(upstreamEnv); mode != "" {
		runUpstream(mode)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// runUpstream serves the test upstream on stdin and stdout. Mode
// "garbage" also writes lines that are not JSON-RPC between its messages.
func runUpstream(mode string) {
	s := newUpstreamServer(os.Getenv("GATEWAY_TEST_NAME"), nil)
	mcp.AddTool(s, &mcp.Tool{Name: "pid"}, func(context.Context, *mcp.CallToolRequest, struct{}) (int, error) {
		return os.Getpid(), nil
	})
	if mode == "garbage" {
		go func() {
			for {
				fmt.Fprintln(os.Stdout, "}{ this is not JSON-RPC \x00\x01")
				fmt.Fprintln(os.Stdout, `{"jsonrpc":"2.0","id":999999,"result":{}}`)
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	_ = s.Run(context.Background(), transport.Stdio())
}

type textIn struct {
	Text string `json:"text"`
}

// probe records what an upstream's handlers saw, for the tests to check.
type probe struct {
	cancelled chan string   // tool "wait" sends its text when its ctx ends
	inFlight  atomic.Int32  // calls of "askwait" in flight
	gate      chan struct{} // "askwait" asks once this is closed
}

func newProbe() *probe {
	return &probe{cancelled: make(chan string, 16), gate: make(chan struct{})}
}

// newUpstreamServer is an upstream named name: tools echo, ask (sampling),
// elicit, roots, wait (progress, then blocks until cancelled), prompts, a
// resource and a template.
func newUpstreamServer(name string, pr *probe) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (string, error) {
			return name + ":" + in.Text, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		if pr != nil {
			pr.inFlight.Add(1)
			select { // both callers in flight before either asks
			case <-pr.gate:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent(in.Text)}}}})
		if err != nil {
			return "", err
		}
		return "sampled:" + res.Content[0].(*mcp.TextContent).Text, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "elicit"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: in.Text, RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "who", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString}}}}})
		if err != nil {
			return "", err
		}
		who, _ := res.Content["who"].(string)
		return "elicited:" + who, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ textIn) (string, error) {
		res, err := req.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, ","), nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		return "logged", req.Log(ctx, mcp.LevelWarning, "tool", in.Text)
	})
	mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		for i := 1; i <= 3; i++ {
			_ = req.NotifyProgress(ctx, float64(i), 10, fmt.Sprintf("step %d", i))
		}
		<-ctx.Done()
		if pr != nil {
			pr.cancelled <- in.Text
		}
		return "", ctx.Err()
	})
	_ = s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: mcp.NewTextContent(name + " greets " + req.Params.Arguments["who"])}}}, nil
		})
	_ = s.AddResource(&mcp.Resource{URI: "file:///shared.txt", Name: "shared"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
				&mcp.TextResourceContents{URI: req.Params.URI, Text: "from " + name}}}, nil
		})
	_ = s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://" + name + "/{key}", Name: "mem"},
		func(_ context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
				&mcp.TextResourceContents{URI: req.Params.URI, Text: name + " key " + vars["key"]}}}, nil
		})
	return s
}

// inProcess dials the named upstream servers over in-memory pipes; each
// dial is a new connection (the gateway opens several per upstream).
type inProcess struct {
	mu      sync.Mutex
	servers map[string]*mcp.Server
	conns   []jsonrpc.Stream
	dials   map[string]int
}

func (p *inProcess) dial(_ context.Context, name string, _ *gateway.Upstream) (jsonrpc.Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.servers[name]
	if s == nil {
		return nil, nil // a command: the gateway runs it
	}
	a, b := transport.Pipe()
	s.Connect(b, nil)
	p.conns = append(p.conns, a)
	if p.dials == nil {
		p.dials = map[string]int{}
	}
	p.dials[name]++
	return a, nil
}

func (p *inProcess) dialCount(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials[name]
}

// config is a configuration naming upstreams reached through Dial.
func config(names ...string) *gateway.Config {
	c := &gateway.Config{Servers: map[string]*gateway.Upstream{}}
	for _, n := range names {
		c.Servers[n] = &gateway.Upstream{Command: "unused-" + n}
	}
	return c
}

// startGateway starts a gateway over the given in-process upstreams and
// closes it when the test ends.
func startGateway(t *testing.T, cfg *gateway.Config, opts *gateway.Options, servers map[string]*mcp.Server) *gateway.Gateway {
	t.Helper()
	if opts == nil {
		opts = &gateway.Options{}
	}
	if opts.Dial == nil {
		p := &inProcess{servers: servers}
		opts.Dial = p.dial
	}
	g, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// connectDown connects a downstream client at version to the gateway's
// server in memory.
func connectDown(t *testing.T, g *gateway.Gateway, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, _, _ := pipeDown(t, g, version, opts, nil)
	return cs
}

// pipeDown connects a downstream client in memory and returns it with its
// end of the connection (closing which drops the connection) and the
// server's session.
func pipeDown(t *testing.T, g *gateway.Gateway, version string, opts *mcp.ClientOptions, so *mcp.SessionOptions) (*mcp.ClientSession, jsonrpc.Stream, *mcp.ServerSession) {
	t.Helper()
	o := mcp.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	a, b := transport.Pipe()
	ss := g.Server().Connect(b, so)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "1"}, &o).Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
		_ = ss.Wait()
	})
	return cs, a, ss
}

// text returns the text of a tool result's first content block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("result has no content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T is not text", res.Content[0])
	}
	return tc.Text
}

func call(ctx context.Context, cs *mcp.ClientSession, name, arg string) (*mcp.CallToolResult, error) {
	args, _ := json.Marshal(textIn{Text: arg})
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func toolNames(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// versions are the downstream revisions every routing test runs at.
var versions = []string{mcp.Version20241105, mcp.Version20251125, mcp.LatestVersion}
