package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
)

// eras are the (upstream, downstream) revision pairs the routing tests run.
var eras = [][2]string{
	{mcp.Version20251125, mcp.Version20251125},
	{mcp.Version20251125, mcp.LatestVersion},
	{mcp.LatestVersion, mcp.Version20251125},
	{mcp.LatestVersion, mcp.LatestVersion},
}

// caller is a downstream client whose handlers answer with its own name
// and count how often they ran.
type caller struct {
	name              string
	sampled, elicited atomic.Int32
}

func (c *caller) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			c.sampled.Add(1)
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m",
				Content: []mcp.Content{mcp.NewTextContent(c.name)}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.elicited.Add(1)
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"who": c.name}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///" + c.name}},
	}
}

// TestQuestionsReachTheirCaller: two downstream clients call, at the same
// time, a tool that asks its client (sampling, elicitation, roots): each
// client gets its own question and no other, at every pair of eras.
func TestQuestionsReachTheirCaller(t *testing.T) {
	for _, era := range eras {
		t.Run(era[0]+"_up/"+era[1]+"_down", func(t *testing.T) {
			pr := newProbe()
			servers := map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", pr), "beta": newUpstreamServer("beta", nil)}
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: era[0]}, servers)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			callers := []*caller{{name: "ann"}, {name: "bob"}}
			sessions := make([]*mcp.ClientSession, len(callers))
			for i, c := range callers {
				sessions[i] = connectDown(t, g, era[1], c.options())
			}
			results := make([]string, len(callers))
			var wg sync.WaitGroup
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := call(ctx, sessions[i], "alpha_ask", "q")
					if err != nil {
						results[i] = "error: " + err.Error()
						return
					}
					results[i] = text(t, res)
				}()
			}
			for pr.inFlight.Load() < 2 { // both calls are upstream, neither asked yet
				if ctx.Err() != nil {
					t.Fatal("the two calls never were in flight together")
				}
				time.Sleep(5 * time.Millisecond)
			}
			close(pr.gate)
			wg.Wait()
			for i, c := range callers {
				if want := "sampled:" + c.name; results[i] != want {
					t.Errorf("caller %s got %q, want %q", c.name, results[i], want)
				}
				if n := c.sampled.Load(); n != 1 {
					t.Errorf("caller %s was asked %d times, want once", c.name, n)
				}
			}
			for i, c := range callers {
				res, err := call(ctx, sessions[i], "beta_elicit", "who?")
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "elicited:"+c.name {
					t.Errorf("elicit for %s = %q", c.name, got)
				}
				res, err = call(ctx, sessions[i], "beta_roots", "")
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "file:///"+c.name {
					t.Errorf("roots for %s = %q", c.name, got)
				}
				if n := c.elicited.Load(); n != 1 {
					t.Errorf("caller %s elicited %d times, want once", c.name, n)
				}
			}
		})
	}
}

// TestNoQuestionsWithoutCapability: a client that declared no sampling
// gets the upstream's failure, not another client's answer.
func TestNoQuestionsWithoutCapability(t *testing.T) {
	for _, upv := range []string{mcp.Version20251125, mcp.LatestVersion} {
		g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: upv}, twoUpstreams())
		able := &caller{name: "ann"}
		connectDown(t, g, mcp.Version20251125, able.options())
		plain := connectDown(t, g, mcp.Version20251125, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := call(ctx, plain, "alpha_ask", "q")
		cancel()
		if err == nil && !res.IsError {
			t.Errorf("upstream %s: a client without sampling got %q", upv, text(t, res))
		}
		if able.sampled.Load() != 0 {
			t.Errorf("upstream %s: another client was asked", upv)
		}
	}
}

// TestProgressAndCancel: the upstream's progress reaches the downstream
// request's token, and cancelling the downstream request cancels the
// upstream call.
func TestProgressAndCancel(t *testing.T) {
	for _, era := range eras {
		t.Run(era[0]+"_up/"+era[1]+"_down", func(t *testing.T) {
			pr := newProbe()
			servers := map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "beta": newUpstreamServer("beta", pr)}
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: era[0]}, servers)
			cs := connectDown(t, g, era[1], nil)
			progress := make(chan *mcp.ProgressNotificationParams, 8)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { progress <- p })
			done := make(chan error, 1)
			go func() {
				_, err := call(pctx, cs, "beta_wait", "w1")
				done <- err
			}()
			for i := 1; i <= 3; i++ {
				select {
				case p := <-progress:
					if p.Progress != float64(i) || p.Total != 10 || p.Message == "" {
						t.Errorf("progress %d: %+v", i, p)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("progress %d never came", i)
				}
			}
			cancel()
			select {
			case got := <-pr.cancelled:
				if got != "w1" {
					t.Errorf("cancelled %q", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the upstream call was not cancelled")
			}
			if err := <-done; err == nil {
				t.Error("the cancelled call returned no error")
			}
		})
	}
}

// TestOneCallSessionsReused: the calls of a 2026-07-28 client that can be
// asked questions, to a stateful upstream, each get a session of their
// own, but not a new one each time (over stdio, a new process).
func TestOneCallSessionsReused(t *testing.T) {
	p := &inProcess{servers: twoUpstreams()}
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125, Dial: p.dial}, nil)
	c := &caller{name: "ann"}
	cs := connectDown(t, g, mcp.LatestVersion, c.options())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := p.dialCount("alpha")
	for range 5 {
		res, err := call(ctx, cs, "alpha_ask", "q")
		if err != nil || text(t, res) != "sampled:ann" {
			t.Fatalf("alpha_ask: %v", err)
		}
	}
	if n := p.dialCount("alpha") - before; n != 1 {
		t.Errorf("5 calls opened %d upstream sessions, want 1", n)
	}
}

// TestCallerCapabilities: a 2026-07-28 upstream sees, in a forwarded call,
// what the caller can answer, not what the gateway can route.
func TestCallerCapabilities(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "alpha", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "caps"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		c := req.ClientCapabilities()
		return fmt.Sprintf("sampling=%v elicitation=%v roots=%v", c != nil && c.Sampling != nil,
			c != nil && c.Elicitation != nil, c != nil && c.Roots != nil), nil
	})
	g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.LatestVersion},
		map[string]*mcp.Server{"alpha": up})
	able := connectDown(t, g, mcp.Version20251125, (&caller{name: "ann"}).options())
	plain := connectDown(t, g, mcp.LatestVersion, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for cs, want := range map[*mcp.ClientSession]string{
		able:  "sampling=true elicitation=true roots=true",
		plain: "sampling=false elicitation=false roots=false",
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "caps"})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != want {
			t.Errorf("upstream saw %q, want %q", got, want)
		}
	}
}
