package transport

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// TestInlineHandoff: over a line stream, a request read with nothing behind
// it runs on the reader's goroutine; a handler that blocks must not stop
// the next messages from being read (reading moves to another goroutine
// within the inline budget), and a cancellation reaches it.
func TestInlineHandoff(t *testing.T) {
	tests := []struct {
		name  string
		spare bool // a pipelined request follows the blocking one at once
	}{
		{"alone", false},
		{"pipelined", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			started := make(chan struct{})
			cancelled := make(chan struct{})
			var c *jsonrpc.Conn
			h := jsonrpc.HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
				switch m.Method {
				case "block":
					close(started)
					<-ctx.Done()
					close(cancelled)
					return nil, ctx.Err()
				case "notifications/cancelled":
					c.CancelIncoming(jsonrpc.Int64ID(1))
					return nil, nil
				}
				return map[string]string{"method": m.Method}, nil
			})
			c = jsonrpc.NewConn(NewLineStream(inR, outW, closers{inR, outW}, nil), jsonrpc.ConnOptions{Handler: h})
			out := bufio.NewReader(outR)
			write := func(s string) {
				t.Helper()
				if _, err := io.WriteString(inW, s+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			if tt.spare {
				write(`{"jsonrpc":"2.0","id":1,"method":"block"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"fast"}`)
			} else {
				write(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
				<-started
				write(`{"jsonrpc":"2.0","id":2,"method":"fast"}`)
			}
			got := make(chan string, 1)
			go func() {
				line, _ := out.ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if !strings.Contains(line, `"id":2`) || !strings.Contains(line, `"fast"`) {
					t.Fatalf("first answer %s", line)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the request after a blocked handler was not answered")
			}
			<-started
			write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the blocked handler was not cancelled")
			}
			_ = inW.Close()
			_ = c.Wait()
			_ = outR.Close()
		})
	}
}

// closers closes every one of its elements.
type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		_ = c.Close()
	}
	return nil
}
