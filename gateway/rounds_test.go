package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
)

// TestInputRoundsPassThrough: at 2026-07-28 on both sides, an upstream's
// input-required round reaches the caller as the upstream wrote it (its
// keys, all its questions at once), and the upstream asks only what the
// caller declared it can answer, as it would with the caller itself.
func TestInputRoundsPassThrough(t *testing.T) {
	up, err := everything.NewServer(&everything.Options{Step: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, config("everything"), &gateway.Options{ProtocolVersion: mcp.Version20260728},
		map[string]*mcp.Server{"everything": up})
	sample := func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.NewTextContent("hi")}}, nil
	}
	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
	}
	for _, tc := range []struct {
		name, tool string
		opts       mcp.ClientOptions
		want       []string
		says       string // in the result
	}{
		{"all three", "test_input_required_result_multiple_inputs",
			mcp.ClientOptions{CreateMessageHandler: sample, ElicitationHandler: elicit, Roots: []*mcp.Root{{URI: "file:///r"}}},
			[]string{"client_roots", "greeting", "user_name"}, "name=Ada"},
		{"elicitation only", "test_input_required_result_capabilities",
			mcp.ClientOptions{ElicitationHandler: elicit}, []string{"user_name"}, "Got 1 answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var rounds [][]string // the keys of each input-required round, as received
			o := tc.opts
			o.Sending = []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					res, err := next(ctx, r)
					if raw, ok := res.(json.RawMessage); ok && r.Method == mcp.MethodToolsCall {
						var ir mcp.InputRequiredResult
						if json.Unmarshal(raw, &ir) == nil && ir.ResultType == mcp.ResultTypeInputRequired {
							keys := make([]string, 0, len(ir.InputRequests))
							for k := range ir.InputRequests {
								keys = append(keys, k)
							}
							slices.Sort(keys)
							mu.Lock()
							rounds = append(rounds, keys)
							mu.Unlock()
						}
					}
					return res, err
				}
			}}
			cs := connectDown(t, g, mcp.Version20260728, &o)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || !strings.Contains(text(t, res), tc.says) {
				t.Errorf("result: %s", text(t, res))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(rounds) != 1 || !slices.Equal(rounds[0], tc.want) {
				t.Errorf("input-required rounds %v, want one with %v", rounds, tc.want)
			}
		})
	}
}
