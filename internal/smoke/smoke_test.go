package smoke

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

type In struct {
	A int `json:"a"`
	B int `json:"b"`
}
type Out struct {
	Sum int `json:"sum"`
}

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
		return Out{in.A + in.B}, nil
	})
	a, b := transport.Pipe()
	ss, err := s.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(nil, nil)
	cs, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tool)
		t.Logf("tool: %s", b)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(res)
	t.Logf("result: %s", b2)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":"x"}`)})
	b2, _ = json.Marshal(res)
	t.Logf("bad result: %s %v", b2, err)
	cs.Close()
	ss.Wait()
}
