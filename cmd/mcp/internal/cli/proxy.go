package cli

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// proxy relays messages, unchanged and in both directions, between a client
// on stdin and stdout and the target: a client that only speaks stdio can
// so reach a server over HTTP, with the headers given by -H. It returns nil
// when the client closes stdin.
//
// Over HTTP a 2026-07-28 request must repeat parts of its body in headers
// (Mcp-Name, Mcp-Param-*) that only the mcp.Client computes, so to an HTTP
// target the proxy answers the client's server/discover probe with "method
// not found" itself: the client then falls back to the stateful revisions,
// which a relay carries unchanged.
func (inv *invocation) proxy(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	up, err := openStream(inv.target, &inv.tf, inv.stderr)
	if err != nil {
		return usageError{err}
	}
	if st, ok := up.(jsonrpc.Starter); ok {
		if err := st.Start(ctx); err != nil {
			_ = up.Close()
			return connectError{err}
		}
	}
	defer up.Close()
	var down jsonrpc.Stream
	if stdin == os.Stdin && stdout == os.Stdout {
		down = transport.Stdio() // reads honour ctx on a pipe
	} else {
		down = transport.NewLineStream(stdin, stdout, nil, nil)
	}
	defer down.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fromClient := make(chan error, 1)
	fromServer := make(chan error, 1)
	var refuse func(*jsonrpc.Message) *jsonrpc.Message
	if _, isCommand := up.(*transport.CommandTransport); !isCommand {
		refuse = refuseDiscover
	}
	go func() { fromClient <- relay(ctx, down, up, refuse) }()
	go func() { fromServer <- relay(ctx, up, down, nil) }()
	select {
	case err = <-fromClient:
		if errors.Is(err, io.EOF) {
			return nil // the client is done
		}
	case err = <-fromServer:
		if errors.Is(err, io.EOF) {
			return connectError{errors.New("the server closed the connection")}
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// refuseDiscover returns the answer to a server/discover request, or nil
// for any other message.
func refuseDiscover(m *jsonrpc.Message) *jsonrpc.Message {
	if !m.IsRequest() || m.Method != mcp.MethodServerDiscover {
		return nil
	}
	return jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
		"mcp proxy relays the stateful revisions only over HTTP; use initialize"))
}

// relay copies messages from src to dst until one fails. A message for
// which refuse (if not nil) returns an answer is answered on src instead.
func relay(ctx context.Context, src, dst jsonrpc.Stream, refuse func(*jsonrpc.Message) *jsonrpc.Message) error {
	for {
		m, err := src.Read(ctx)
		if err != nil {
			return err
		}
		if refuse != nil {
			if answer := refuse(m); answer != nil {
				if err := src.Write(ctx, answer); err != nil {
					return err
				}
				continue
			}
		}
		if err := dst.Write(ctx, m); err != nil {
			return err
		}
	}
}
