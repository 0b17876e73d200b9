package mcphttp

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

func TestSmoke(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		srv := mcp.NewServer(nil, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{ S string }) (string, error) {
			return "echo:" + in.S + ":" + RequestInfoFromContext(ctx).Header.Get("X-Test"), nil
		})
		h := NewHandler(srv, &HandlerOptions{JSONResponse: jsonMode})
		ts := httptest.NewServer(h)
		c := mcp.NewClient(nil, nil)
		hdr := map[string][]string{"X-Test": {"hello"}}
		cs, err := c.Connect(context.Background(), NewClientStream(ts.URL, &ClientOptions{Header: hdr}))
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"S":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("json=%v %+v", jsonMode, res.Content[0])
		cs.Close()
		h.Close()
		ts.Close()
	}
}
