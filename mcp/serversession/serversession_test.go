package serversession_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/serversession"
	"github.com/gomcp/sdk/transport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// connect opens a 2025-11-25 session between a server and a client made
// with opts, and returns the server's end.
func connect(t *testing.T, opts *mcp.ClientOptions) *mcp.ServerSession {
	t.Helper()
	a, b := transport.Pipe()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ProtocolVersion = mcp.Version20251125 // a revision with sessions
	ss := s.Connect(a, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	})
	return ss
}

func TestElicitOutsideARequest(t *testing.T) {
	ss := connect(t, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"echo": req.Params.Message}}, nil
		},
	})
	res, err := serversession.Elicit(context.Background(), ss, &mcp.ElicitParams{Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != mcp.ElicitActionAccept || res.Content["echo"] != "hi" {
		t.Errorf("got %+v", res)
	}
}

func TestCreateMessageOutsideARequest(t *testing.T) {
	ss := connect(t, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
		},
	})
	res, err := serversession.CreateMessage(context.Background(), ss, &mcp.CreateMessageParams{MaxTokens: 5,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: []mcp.Content{mcp.NewTextContent("q")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "m" {
		t.Errorf("got %+v", res)
	}
}

// A client that declared neither capability is not asked.
func TestUndeclaredCapability(t *testing.T) {
	ss := connect(t, nil)
	if _, err := serversession.Elicit(context.Background(), ss, &mcp.ElicitParams{Message: "hi"}); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("Elicit: %v, want ErrCapability", err)
	}
	if _, err := serversession.CreateMessage(context.Background(), ss, &mcp.CreateMessageParams{MaxTokens: 1}); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("CreateMessage: %v, want ErrCapability", err)
	}
}
