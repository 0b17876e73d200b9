package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
)

// TestCallToolRequest builds a tools/call request for a handler called
// directly: its arguments are what was given, and the request works as
// one from a client that declared nothing.
func TestCallToolRequest(t *testing.T) {
	type args struct {
		Owner  string `json:"owner"`
		Number int    `json:"number"`
	}
	for name, a := range map[string]any{
		"struct":  args{Owner: "o", Number: 42},
		"map":     map[string]any{"owner": "o", "number": 42},
		"raw":     json.RawMessage(`{"owner":"o","number":42}`),
		"pointer": &args{Owner: "o", Number: 42},
	} {
		t.Run(name, func(t *testing.T) {
			req := mcptest.CallToolRequest("get_issue", a)
			var got args
			if err := json.Unmarshal(req.Params.Arguments, &got); err != nil || got != (args{"o", 42}) || req.Params.Name != "get_issue" {
				t.Errorf("params %s %s (%v)", req.Params.Name, req.Params.Arguments, err)
			}
			if req.ProtocolVersion() != mcp.LatestStatefulVersion || req.Stateless() {
				t.Errorf("ProtocolVersion %q, Stateless %v", req.ProtocolVersion(), req.Stateless())
			}
			if _, err := req.Elicit(context.Background(), &mcp.ElicitParams{Message: "?"}); !errors.Is(err, mcp.ErrCapability) {
				t.Errorf("Elicit: %v", err)
			}
		})
	}
	if got := string(mcptest.CallToolRequest("t", nil).Params.Arguments); got != "{}" {
		t.Errorf("nil arguments: %s", got)
	}
	for _, bad := range []any{[]int{1}, "text", make(chan int)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("CallToolRequest(%T) did not panic", bad)
				}
			}()
			mcptest.CallToolRequest("t", bad)
		}()
	}
}

// TestNewRequest gives a request the client RequestOptions describes: its
// identity, capabilities and revision, the answers to its questions, and
// the notifications it receives.
func TestNewRequest(t *testing.T) {
	ctx := context.Background()
	var sent []string
	req := mcptest.NewRequest(&mcp.CallToolParams{Name: "t", Meta: &mcp.Meta{ProgressToken: mcp.ProgressToken{}}}, &mcptest.RequestOptions{
		ProtocolVersion:    mcp.Version20260728,
		ClientInfo:         &mcp.Implementation{Name: "tester", Version: "9"},
		ClientCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		Meta:               &mcp.Meta{ProgressToken: jsonrpc.StringID("p1")},
		Input: func(_ context.Context, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
			out := map[string]*mcp.InputResponse{}
			for k, q := range reqs {
				if q.Elicit != nil {
					out[k] = &mcp.InputResponse{Elicit: &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}}
				}
			}
			return out, nil
		},
		Notify: func(_ context.Context, method string, params any) error {
			switch p := params.(type) {
			case *mcp.LoggingMessageNotificationParams:
				sent = append(sent, method+" "+string(p.Data))
			case *mcp.ProgressNotificationParams:
				sent = append(sent, method+" "+p.Message)
			default:
				sent = append(sent, method)
			}
			return nil
		},
	})
	if req.ClientInfo().Name != "tester" || req.ClientCapabilities().Elicitation == nil || !req.Stateless() || req.ProtocolVersion() != mcp.Version20260728 {
		t.Errorf("client: %+v %+v stateless %v %s", req.ClientInfo(), req.ClientCapabilities(), req.Stateless(), req.ProtocolVersion())
	}
	if tok, ok := req.ProgressToken(); !ok || tok != jsonrpc.StringID("p1") {
		t.Errorf("ProgressToken %v %v", tok, ok)
	}
	type form struct {
		Name string `json:"name"`
	}
	v, res, err := mcp.ElicitFor[form](ctx, req, "Who?")
	if err != nil || res.Action != mcp.ElicitActionAccept || v.Name != "Ada" {
		t.Errorf("ElicitFor: %+v %+v %v", v, res, err)
	}
	if err := req.Log(ctx, mcp.LevelDebug, "l", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
		t.Fatal(err)
	}
	req.Logger().Info("via slog")
	want := []string{`notifications/message "hello"`, "notifications/progress half", `notifications/message {"msg":"via slog"}`}
	if len(sent) != len(want) {
		t.Fatalf("sent %q, want %q", sent, want)
	}
	for i := range want {
		if sent[i] != want[i] {
			t.Errorf("sent[%d] = %q, want %q", i, sent[i], want[i])
		}
	}
	// The params' own _meta, when no Meta is given.
	r2 := mcptest.NewRequest(&mcp.ReadResourceParams{URI: "file:///a", Meta: &mcp.Meta{ProgressToken: jsonrpc.Int64ID(7)}}, nil)
	if _, ok := r2.ProgressToken(); !ok {
		t.Errorf("the params' progress token was lost")
	}
}

// getIssue is a tool handler as servers write them, called directly by
// the tests below.
func getIssue(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Owner  string `json:"owner"`
		Number int    `json:"number"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	req.Logger().Info("fetching", "owner", in.Owner, "client", req.ClientInfo().Name)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(in.Owner + "#" + strconv.Itoa(in.Number))}}, nil
}

// A handler called directly, with a request built for the test: no
// server, session or connection.
func ExampleCallToolRequest() {
	res, err := getIssue(context.Background(), mcptest.CallToolRequest("get_issue", map[string]any{"owner": "octo", "number": 42}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: octo#42
}

// The same handler, with a client that says who it is and receives the
// handler's log messages.
func ExampleNewRequest() {
	req := mcptest.NewRequest(&mcp.CallToolParams{Name: "get_issue", Arguments: json.RawMessage(`{"owner":"octo","number":7}`)}, &mcptest.RequestOptions{
		ClientInfo: &mcp.Implementation{Name: "ide", Version: "2"},
		Notify: func(ctx context.Context, method string, params any) error {
			if p, ok := params.(*mcp.LoggingMessageNotificationParams); ok {
				fmt.Println(method, p.Level, string(p.Data))
			}
			return nil
		},
	})
	if _, err := getIssue(context.Background(), req); err != nil {
		fmt.Println(err)
	}
	// Output: notifications/message info {"client":"ide","msg":"fetching","owner":"octo"}
}
