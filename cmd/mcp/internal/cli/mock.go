package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// mockMaxFile bounds the size of a mock file.
const mockMaxFile = 16 << 20

// mockFile is the file mcp mock serves: canned tools, resources and
// prompts, for testing hosts against a server whose answers are known.
type mockFile struct {
	Server       *mcp.Implementation `json:"server,omitempty"` // default: name "mock", version "0"
	Instructions string              `json:"instructions,omitempty"`
	Tools        []mockTool          `json:"tools,omitempty"`
	Resources    []mockResource      `json:"resources,omitempty"`
	Prompts      []mockPrompt        `json:"prompts,omitempty"`

	lines *sourceMap // where each item is in the file
}

// mockTool is a tool (its fields as in tools/list; inputSchema optional)
// whose every call gets Result (a CallToolResult), or else one text block.
// It holds the tool's fields as toolFields, mcp.Tool without its
// UnmarshalJSON, so that the file's one strict decoder reads them and its
// errors carry offsets in the file (and so lines).
type mockTool struct {
	toolFields
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
	Text         string          `json:"text,omitempty"`
}

// toolFields is mcp.Tool without its methods.
type toolFields mcp.Tool

// tool is the mcp.Tool that t describes.
func (t *mockTool) tool() *mcp.Tool {
	tl := mcp.Tool(t.toolFields)
	tl.InputSchema, tl.OutputSchema = nil, nil
	if t.InputSchema != nil {
		tl.InputSchema = t.InputSchema
	}
	if t.OutputSchema != nil {
		tl.OutputSchema = t.OutputSchema
	}
	return &tl
}

// mockResource is a resource (its fields as in resources/list) whose
// contents are Text, or Blob (base64).
type mockResource struct {
	mcp.Resource
	Text string `json:"text,omitempty"`
	Blob string `json:"blob,omitempty"`
}

// mockPrompt is a prompt (its fields as in prompts/list) that renders as
// Messages, or else as one user message of Text.
type mockPrompt struct {
	mcp.Prompt
	Messages json.RawMessage `json:"messages,omitempty"`
	Text     string          `json:"text,omitempty"`
}

// loadMock reads a mock file: YAML if its name ends in .yaml or .yml,
// JSON otherwise. Unknown fields are errors, so that a typo does not
// silently serve something else.
func loadMock(path string) (*mockFile, error) {
	data, err := readFileBounded(path, mockMaxFile)
	if err != nil {
		return nil, err
	}
	sm := jsonLines(data)
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		if data, sm, err = yamlToJSON(data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	m := mockFile{lines: sm}
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, sm.decodeError(err, data))
	}
	return &m, nil
}

// server builds the mcp.Server that serves m; every canned answer is
// checked here, once, so that a bad one fails at start, not at a call.
func (m *mockFile) server() (*mcp.Server, error) {
	impl := m.Server
	if impl == nil {
		impl = &mcp.Implementation{Name: "mock", Version: "0"}
	}
	s := mcp.NewServer(impl, &mcp.ServerOptions{Instructions: m.Instructions})
	seen := map[string]bool{} // the server would let a second item replace the first
	check := func(item, kind, name string, err error) error {
		if err == nil && seen[kind+" "+name] {
			err = errors.New("given twice")
		}
		seen[kind+" "+name] = true
		if err != nil {
			if m.lines != nil {
				return atLine(m.lines.items[item], fmt.Errorf("%s %q: %w", kind, name, err))
			}
			return fmt.Errorf("%s %q: %w", kind, name, err)
		}
		return nil
	}
	for i, t := range m.Tools {
		h, err := t.handler()
		if err = check("tools."+strconv.Itoa(i), "tool", t.Name, err); err == nil {
			err = s.AddTool(t.tool(), h)
		}
		if err != nil {
			return nil, err
		}
	}
	for i, r := range m.Resources {
		h, err := r.handler()
		if err = check("resources."+strconv.Itoa(i), "resource", r.URI, err); err == nil {
			err = s.AddResource(&r.Resource, h)
		}
		if err != nil {
			return nil, err
		}
	}
	for i, p := range m.Prompts {
		h, err := p.handler()
		if err = check("prompts."+strconv.Itoa(i), "prompt", p.Name, err); err == nil {
			err = s.AddPrompt(&p.Prompt, h)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// handler answers every call with t's result.
func (t *mockTool) handler() (mcp.ToolHandler, error) {
	raw := t.Result
	if len(raw) == 0 {
		raw, _ = json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(t.Text)}})
	}
	if err := json.Unmarshal(raw, new(mcp.CallToolResult)); err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := new(mcp.CallToolResult) // a fresh one for every call
		return res, json.Unmarshal(raw, res)
	}, nil
}

// handler answers every read with r's contents.
func (r *mockResource) handler() (mcp.ResourceHandler, error) {
	var c mcp.ResourceContents = &mcp.TextResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}
	if r.Blob != "" {
		if _, err := base64.StdEncoding.DecodeString(r.Blob); err != nil {
			return nil, fmt.Errorf("blob: %w", err)
		}
		c = &mcp.BlobResourceContents{URI: r.URI, MIMEType: r.MIMEType, Blob: r.Blob}
	}
	return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}, nil
	}, nil
}

// handler renders p's messages, whatever the arguments.
func (p *mockPrompt) handler() (mcp.PromptHandler, error) {
	raw := p.Messages
	if len(raw) == 0 {
		raw, _ = json.Marshal([]*mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(p.Text)}})
	}
	if err := json.Unmarshal(raw, new([]*mcp.PromptMessage)); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	return func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		res := &mcp.GetPromptResult{Description: p.Description}
		return res, json.Unmarshal(raw, &res.Messages)
	}, nil
}

// runMock is mcp mock [--http ADDR [--allow-remote]] FILE: it serves the
// file's tools, resources and prompts on stdio, or over Streamable HTTP
// at http://ADDR/mcp, until ctx ends (or, on stdio, stdin closes).
func runMock(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv := &invocation{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&inv.httpAddr, "http", "", "")
	fs.BoolVar(&inv.remote, "allow-remote", false, "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"mock"})
	}
	if err == nil && fs.NArg() != 1 {
		err = errors.New("want one file: mcp mock [--http ADDR] FILE")
	}
	var s *mcp.Server
	if err == nil {
		var m *mockFile
		if m, err = loadMock(fs.Arg(0)); err == nil {
			s, err = m.server()
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp mock:", err)
		return ExitUsage
	}
	if inv.httpAddr == "" {
		var stream jsonrpc.Stream
		if stdin == os.Stdin && stdout == os.Stdout {
			stream = transport.Stdio()
		} else {
			stream = transport.NewLineStream(stdin, stdout, nil, nil)
		}
		err = s.Run(ctx, stream)
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil
		}
	} else {
		err = inv.serveHTTP(ctx, s)
	}
	return inv.report(ctx, err)
}

// serveHTTP serves s at http://ADDR/mcp (--http, checked as proxy --http
// checks it) until ctx ends.
func (inv *invocation) serveHTTP(ctx context.Context, s *mcp.Server) error {
	addr, err := inv.listenAddr("mcp mock", "call the mock")
	if err != nil {
		return err
	}
	ln, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return connectError{err}
	}
	h := mcphttp.NewHandler(s, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return serveUntilDone(ctx, inv, ln, mux, func() { _ = h.Close() })
}
