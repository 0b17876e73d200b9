package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gapsGoSDK uses the go-sdk API whose gomcp counterparts live beside
// package mcp: a custom method called through the client, a sending
// middleware that sets a progress token (which the server's receiving
// middleware reports), ClientSession.ID, ServerSession.Elicit,
// NewSSEHandler per request and req.Extra.Header.
const gapsGoSDK = `package main

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type EchoParams struct {
	mcp.ParamsBase
	Text string ` + "`json:\"text\"`" + `
}

type EchoResult struct {
	mcp.ResultBase
	Echo string ` + "`json:\"echo\"`" + `
}

var token any

func setToken(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if rp, ok := req.GetParams().(mcp.RequestParams); ok {
			rp.SetProgressToken("tok-1")
		}
		return next(ctx, method, req)
	}
}

func seeToken(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if rp, ok := req.GetParams().(mcp.RequestParams); ok && method == "example/echo" {
			token = rp.GetProgressToken()
		}
		return next(ctx, method, req)
	}
}

func header(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	return nil, req.Extra.Header.Get("X-Test"), nil
}

func main() {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "gaps"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "header"}, header)
	s.AddReceivingMiddleware(seeToken)
	if err := mcp.AddReceivingCustomMethod(s, "example/echo", func(ctx context.Context, ss *mcp.ServerSession, p *EchoParams) (*EchoResult, error) {
		return &EchoResult{Echo: p.Text + "!"}, nil
	}); err != nil {
		log.Fatal(err)
	}
	_ = mcp.NewSSEHandler(func(r *http.Request) *mcp.Server {
		if r.URL.Path == "/gaps" {
			return s
		}
		return nil
	}, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil)
	c.AddSendingMiddleware(setToken)
	if err := mcp.AddSendingCustomMethod[*EchoParams, *EchoResult](c, "example/echo"); err != nil {
		log.Fatal(err)
	}
	mcp.AddSendingCustomMethod[*EchoParams, *EchoResult](c, "example/other")
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := mcp.CallCustomMethod[*EchoParams, *EchoResult](ctx, cs, "example/echo", &EchoParams{Text: "hi"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("echo=%s session=%q token=%v\n", res.Echo, cs.ID(), token)
	if _, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "config?"}); err == nil {
		log.Fatal("elicitation from a client that declared none succeeded")
	}
}
`

// TestGapRules migrates go-sdk code using the API gomcp has beside package
// mcp (mcp/serversession, mcphttp.NewSSEHandlerFor, mcp.AddMethod/Call,
// mcphttp.RequestInfoFromContext), checks that no TODO is left for them,
// and runs the migrated program: the custom method answers.
func TestGapRules(t *testing.T) {
	dir := newGoSDKModule(t, gapsGoSDK)
	res, err := Migrate(Config{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		for _, todo := range f.TODOs {
			if !strings.Contains(todo.Msg, "serversession.Elicit needs a session") {
				t.Errorf("TODO left: %s", todo)
			}
		}
	}
	main, _ := os.ReadFile(dir + "/main.go")
	for _, want := range []string{"mcp.AddMethod(s, \"example/echo\", mcpmigrateCustomMethod(", "mcp.Call[*EchoResult, *EchoParams](",
		"mcphttp.NewSSEHandlerFor(", "serversession.Elicit(ctx, ss, ", "mcpmigrateClientSessionID(cs)", "mcpmigrateHeader(ctx)",
		"mcpmigrateRequestParams(req)"} {
		if !strings.Contains(string(main), want) {
			t.Errorf("migrated main.go lacks %q:\n%s", want, main)
		}
	}
	if strings.Contains(string(main), "AddSendingCustomMethod") || strings.Contains(string(main), "ParamsBase") {
		t.Errorf("go-sdk's registration or base types left:\n%s", main)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `echo=hi! session="" token=tok-1`) {
		t.Fatalf("migrated program: %v\n%s\n%s", err, out, main)
	}
}
