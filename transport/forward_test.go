package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// The line stream tells a whole line waiting from part of one.
var _ jsonrpc.MessageBuffer = (*lineStream)(nil)

// TestForwardedBeforePartialLine: a Conn whose handler forwards each
// request to another peer over a line stream (a gateway, a proxy) holds
// what it forwards only while a whole request waits behind it. A client
// that sent a request and then part of the next one, and waits for the
// first answer before it sends the rest, gets that answer: the bytes of a
// line not finished do not hold the forwarded request back. (Before, the
// request stayed held in the upstream's stream while the reader waited
// for the rest of the line: the call never reached the upstream.)
func TestForwardedBeforePartialLine(t *testing.T) {

	// The upstream: answers each request with its id, over two pipes.
	upIn, upInW := io.Pipe()   // what the gateway writes upstream
	upOutR, upOut := io.Pipe() // what the upstream answers
	go func() {
		sc := bufio.NewScanner(upIn)
		for sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if _, err := io.WriteString(upOut, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":"up"}`+"\n"); err != nil {
				return
			}
		}
	}()
	up := jsonrpc.NewConn(NewLineStream(upOutR, upInW, nil, nil), jsonrpc.ConnOptions{})

	// The gateway: its downstream reads from the client's pipe.
	downR, client := io.Pipe()
	answers, downW := io.Pipe()
	down := jsonrpc.NewConn(NewLineStream(downR, downW, nil, nil), jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
			return up.CallRaw(ctx, "up", nil)
		}),
	})
	t.Cleanup(func() {
		_ = client.Close() // ends the gateway's input: io.Pipe has no deadline
		_ = upOut.Close()  // ends the upstream's answers
		_ = answers.Close()
		_ = upIn.Close()
		_ = down.Close()
		_ = up.Close()
	})

	got := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(answers).ReadString('\n')
		if err == nil {
			got <- line
		}
	}()
	// One write: the pipe hands both to one read of the gateway's.
	if _, err := io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"f"}`+"\n"+`{"jsonrpc":"2.0","id":2,"me`); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-got:
		if !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"up"`) {
			t.Fatalf("answer %q, want the upstream's answer to id 1", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer to a forwarded request while the client's next line is unfinished")
	}
}
