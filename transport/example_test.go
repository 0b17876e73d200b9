package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/transport"
)

// writeCounter prints each Write call it receives.
type writeCounter struct{ n int }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.n++
	fmt.Printf("write %d:\n%s", w.n, p)
	return len(p), nil
}

// A line stream is a jsonrpc.HoldingStream: answers written with WriteHeld
// wait for the next Write (or FlushHeld, Close, or the stream's next wait
// for input) and go out with it in one write. A jsonrpc.Conn uses it for
// the answers of requests a peer sent together.
func ExampleNewLineStream() {
	s := transport.NewLineStream(strings.NewReader(""), &writeCounter{}, nil, nil)
	hs := s.(jsonrpc.HoldingStream)
	ctx := context.Background()
	_ = hs.WriteHeld(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`"a"`)))
	_ = hs.WriteHeld(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(2), json.RawMessage(`"b"`)))
	fmt.Println("nothing written yet")
	_ = s.Write(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(3), json.RawMessage(`"c"`)))
	// Output:
	// nothing written yet
	// write 1:
	// {"jsonrpc":"2.0","id":1,"result":"a"}
	// {"jsonrpc":"2.0","id":2,"result":"b"}
	// {"jsonrpc":"2.0","id":3,"result":"c"}
}
