package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"slices"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addResult struct {
	Sum    int    `json:"sum"`
	Client string `json:"client"`
	Name   string `json:"name"`
	Rev    string `json:"rev"`
}

// customServer has one typed custom method written against the request
// handle: it asks for a form, logs, reports progress and returns a typed
// result; and one typed notification.
func customServer(t *testing.T, notified chan<- string) *mcp.Server {
	s := mcp.NewServer(serverImpl, nil)
	err := mcp.AddMethod(s, "example/add", func(ctx context.Context, req *mcp.ServerRequest[addParams]) (*addResult, error) {
		form, _, err := mcp.ElicitFor[handleForm](ctx, req, "Who are you?")
		if err != nil {
			return nil, err // ErrInputRequired at 2026-07-28: returned as it is
		}
		if err := req.Log(ctx, mcp.LevelInfo, "add", "adding"); err != nil {
			return nil, err
		}
		if err := req.NotifyProgress(ctx, 1, 1, "added"); err != nil {
			return nil, err
		}
		return &addResult{Sum: req.Params.A + req.Params.B, Client: req.ClientInfo().Name, Name: form.Name, Rev: req.ProtocolVersion()}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = mcp.AddNotificationHandler(s, "example/ping", func(_ context.Context, req *mcp.ServerRequest[addParams]) {
		notified <- fmt.Sprintf("%d %s", req.Params.A, req.ClientInfo().Name)
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTypedCustomMethod calls a typed custom method with mcp.Call on a
// stateful session and on stateless requests, over memory and HTTP: the
// handler elicits, logs, reports progress and returns a typed result the
// same way at each.
func TestTypedCustomMethod(t *testing.T) {
	for _, tr := range handleTransports {
		if tr.name == "stdio" {
			continue // the same connection code as memory
		}
		for _, rev := range []string{mcp.Version20251125, mcp.Version20260728} {
			if !tr.serves(rev) {
				continue
			}
			t.Run(tr.name+"/"+rev, func(t *testing.T) {
				t.Parallel()
				testTypedCustomMethod(t, rev, tr.connect)
			})
		}
	}
}

func testTypedCustomMethod(t *testing.T, rev string, connect handleConn) {
	var mu sync.Mutex
	var logs []string
	c := mcp.NewClient(&mcp.Implementation{Name: "custom-client", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: rev,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			mu.Lock()
			logs = append(logs, p.Level.String()+" "+string(p.Data))
			mu.Unlock()
		},
	})
	notified := make(chan string, 1)
	cs, done := connect(t, customServer(t, notified), c)
	defer done()
	ctx := testCtx(t)
	if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
		t.Fatal(err)
	}
	var progress []string
	pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
		progress = append(progress, fmt.Sprintf("%v/%v %s", p.Progress, p.Total, p.Message))
	})
	got, err := mcp.Call[addResult](pctx, cs, "example/add", addParams{A: 2, B: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := (addResult{Sum: 5, Client: "custom-client", Name: "Ada", Rev: rev}); got != want {
		t.Errorf("result %+v, want %+v", got, want)
	}
	if !slices.Equal(progress, []string{"1/1 added"}) {
		t.Errorf("progress %q", progress)
	}
	mu.Lock()
	if !slices.Equal(logs, []string{`info "adding"`}) {
		t.Errorf("logs %q", logs)
	}
	mu.Unlock()

	// Params are decoded strictly: an unknown member is invalid params.
	_, err = mcp.Call[addResult](ctx, cs, "example/add", map[string]int{"a": 1, "c": 2})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown member: %v, want invalid params", err)
	}
	if err := cs.Notify(ctx, "example/ping", addParams{A: 7}); err != nil {
		t.Fatal(err)
	}
	if n := recv(t, notified, "the notification"); n != "7 custom-client" {
		t.Errorf("notification handler saw %q", n)
	}
}

// TestAddMethodRefusesSpecNames: a typed method may not take a name the
// specification defines, even one this server does not serve.
func TestAddMethodRefusesSpecNames(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	h := func(context.Context, *mcp.ServerRequest[struct{}]) (struct{}, error) { return struct{}{}, nil }
	for _, name := range []string{"", mcp.MethodToolsCall, mcp.MethodElicitationCreate, tasks.MethodList, mcp.NotificationMessage} {
		if err := mcp.AddMethod(s, name, h); !errors.Is(err, mcp.ErrInvalidMethod) {
			t.Errorf("AddMethod(%q): %v, want ErrInvalidMethod", name, err)
		}
	}
	if err := mcp.AddNotificationHandler(s, mcp.NotificationProgress, func(context.Context, *mcp.ServerRequest[struct{}]) {}); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("AddNotificationHandler(progress): %v", err)
	}
	if err := mcp.AddMethod[struct{}, struct{}](s, "x/nil", nil); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("AddMethod with a nil handler: %v", err)
	}
}

// A typed custom method: params and result are Go types, and the handler
// has the same request handle as a tool's.
func ExampleAddMethod() {
	s := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	err := mcp.AddMethod(s, "example/add", func(ctx context.Context, req *mcp.ServerRequest[addParams]) (addResult, error) {
		if err := req.NotifyProgress(ctx, 1, 1, "adding"); err != nil {
			return addResult{}, err
		}
		return addResult{Sum: req.Params.A + req.Params.B, Client: req.ClientInfo().Name}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	cs := connectInMemory(s, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil))
	res, err := mcp.Call[addResult](context.Background(), cs, "example/add", addParams{A: 2, B: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Sum, res.Client)
	if err := cs.Close(); err != nil {
		log.Fatal(err)
	}
	// Output: 5 client
}

// TestCustomMethodRetryBinding: at 2026-07-28 the requestState of a typed
// method's input-required result is bound to its params: a retry with
// other params is refused, one with the same params gets the answer.
func TestCustomMethodRetryBinding(t *testing.T) {
	s := customServer(t, make(chan string, 1))
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	call := func(id int64, params string) *jsonrpc.Message {
		m := &jsonrpc.Message{ID: jsonrpc.Int64ID(id), Method: "example/add", Params: json.RawMessage(params)}
		return s.HandleStateless(testCtx(t), m, func(context.Context, *jsonrpc.Message) error { return nil })
	}
	first := call(1, `{"a":1,"b":2,`+meta+`}`)
	var ir mcp.InputRequiredResult
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.RequestState == "" || len(ir.InputRequests) != 1 {
		t.Fatalf("first round: %+v %s", first.Error, first.Result)
	}
	var key string
	for k := range ir.InputRequests {
		key = k
	}
	retry := func(id int64, a int) *jsonrpc.Message {
		state, _ := json.Marshal(ir.RequestState)
		return call(id, fmt.Sprintf(`{"a":%d,"b":2,"requestState":%s,"inputResponses":{%q:{"action":"accept","content":{"name":"Ada"}}},%s}`, a, state, key, meta))
	}
	if r := retry(2, 5); r.Error == nil {
		t.Errorf("a retry with other params was answered: %s", r.Result)
	}
	r := retry(3, 1)
	var got addResult
	if r.Error != nil || json.Unmarshal(r.Result, &got) != nil || got.Sum != 3 || got.Name != "Ada" {
		t.Errorf("retry: %+v %s", r.Error, r.Result)
	}
}
