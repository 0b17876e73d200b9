package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// trySteps are the commands mcp try runs, as a user would type them.
var trySteps = [][]string{
	{"info"},
	{"tools"},
	{"call", "greet", "name=Go", "style=loud"},
	{"call", "count", "to=3"},
	{"read", "demo://readme"},
	{"get", "review", "language=go"},
	{"complete", "review", "language=r"},
}

// wireWidth is where mcp try cuts a message short.
const wireWidth = 110

// Try runs s (the demo server) in this process and walks through a few
// commands against it, each followed by the JSON-RPC messages it sent and
// received, one line each; then it says what to try next. It is the first
// thing the README shows: something working within a second, with no other
// program needed.
func Try(ctx context.Context, s *mcp.Server, stdout io.Writer) int {
	// The messages are printed as they pass, from the session's reader
	// too: one writer, locked.
	w := &lockedWriter{w: stdout}
	return report(ctx, w, try(ctx, s, w))
}

func try(ctx context.Context, s *mcp.Server, w io.Writer) error {
	fmt.Fprint(w, `mcp try: the demo server (mcp serve) runs in this process; each command below
is what you would type against it, then the messages it exchanged (→ sent,
← received; _meta left out).
`)
	client, server := transport.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Run(ctx, server) }()
	defer func() {
		client.Close()
		<-served
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "gomcp-cli", Version: "0.1.0"}, nil)
	var cs *mcp.ClientSession
	for i, words := range trySteps {
		fmt.Fprintf(w, "\n$ mcp %s mcp serve\n", strings.Join(words, " "))
		if i == 0 { // the handshake shows under the first command
			var err error
			if cs, err = c.Connect(ctx, &wireTap{Stream: client, w: w}); err != nil {
				return err
			}
			defer cs.Close()
		}
		cmd := commands[words[0]]
		// Progress goes a line at a time (not rewritten in place, as on a
		// terminal), between the messages that carry it.
		step := &invocation{stdout: w, stderr: struct{ io.Writer }{w}, inShell: true}
		if err := step.parse(words[0], cmd.positional, words[1:], new(bool)); err != nil {
			return err
		}
		if err := cmd.run(ctx, step, cs); err != nil {
			return fmt.Errorf("mcp %s: %w", strings.Join(words, " "), err)
		}
	}
	fmt.Fprint(w, `
Next, with mcp installed (go install github.com/gomcp/sdk/cmd/mcp@latest):
  mcp shell mcp serve        the same commands, typed by you (Tab completes)
  mcp inspect mcp serve      a web page on the server, with a live message log
  mcp tools npx -y @modelcontextprotocol/server-everything    any other server
  mcp help                   every command
`)
	return nil
}

// wireTap prints every message that passes, one line each.
type wireTap struct {
	jsonrpc.Stream
	w io.Writer
}

func (t *wireTap) Read(ctx context.Context) (*jsonrpc.Message, error) {
	m, err := t.Stream.Read(ctx)
	if err == nil {
		t.show("←", m)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, jsonrpc.ErrClosed) && ctx.Err() == nil {
		fmt.Fprintf(t.w, "  ← %v\n", err)
	}
	return m, err
}

func (t *wireTap) Write(ctx context.Context, m *jsonrpc.Message) error {
	t.show("→", m)
	return t.Stream.Write(ctx, m)
}

// show prints m after arrow on one line, cut at wireWidth characters: its
// id, its method, and its params, result or error without their _meta.
func (t *wireTap) show(arrow string, m *jsonrpc.Message) {
	var msg struct {
		ID     json.RawMessage            `json:"id"`
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
		Result map[string]json.RawMessage `json:"result"`
		Error  json.RawMessage            `json:"error"`
	}
	raw := m.AppendJSON(nil)
	line := string(raw)
	if json.Unmarshal(raw, &msg) == nil {
		var parts []string
		if msg.ID != nil {
			parts = append(parts, "#"+string(msg.ID))
		}
		body := msg.Params
		switch {
		case msg.Method != "":
			parts = append(parts, msg.Method)
		case msg.Error != nil:
			parts = append(parts, "error", string(msg.Error))
		default:
			parts = append(parts, "result")
			body = msg.Result
		}
		delete(body, "_meta")
		if len(body) > 0 {
			b, _ := json.Marshal(body)
			parts = append(parts, string(b))
		}
		line = strings.Join(parts, " ")
	}
	if utf8.RuneCountInString(line) > wireWidth {
		line = string([]rune(line)[:wireWidth-1]) + "…"
	}
	fmt.Fprintf(t.w, "  %s %s\n", arrow, line)
}
