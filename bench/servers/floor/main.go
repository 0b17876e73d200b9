// Command floor is the benchmark's practical floor: an MCP server written by
// hand with no framework (bufio, encoding/json and a switch), serving the
// echo and add tools over stdio, or over Streamable HTTP with -http ADDR,
// always answering JSON; over HTTP it also serves the stateless revision
// (2026-07-28, stateless.go). It checks only what it must to answer: no schema
// validation, no protocol version negotiation beyond echoing a fixed one,
// no cancellation, no resumption. An SDK can approach it but not beat it
// while doing the work the protocol asks for.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"
)

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolResult struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

var initResult = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench-floor","version":"1.0.0"}}`)

var toolsResult = json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}]}`)

// toolCall is the params of tools/call.
type toolCall struct {
	Name      string `json:"name"`
	Arguments struct {
		Text string `json:"text"`
		A    int    `json:"a"`
		B    int    `json:"b"`
	} `json:"arguments"`
}

// call runs the named tool.
func (p *toolCall) call() (toolResult, *rpcError) {
	switch p.Name {
	case "echo":
		return toolResult{Content: []content{{"text", p.Arguments.Text}}}, nil
	case "add":
		sum := p.Arguments.A + p.Arguments.B
		return toolResult{Content: []content{{"text", `{"sum":` + strconv.Itoa(sum) + `}`}}, StructuredContent: map[string]int{"sum": sum}}, nil
	}
	return toolResult{}, &rpcError{-32602, "unknown tool"}
}

// handle answers one request; nil for a notification.
func handle(line []byte) *response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "parse error"}}
	}
	if req.ID == nil {
		return nil
	}
	resp := &response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		resp.Result = initResult
	case "ping":
		resp.Result = json.RawMessage("{}")
	case "tools/list":
		resp.Result = toolsResult
	case "tools/call":
		var p toolCall
		if err := json.Unmarshal(req.Params, &p); err != nil {
			resp.Error = &rpcError{-32602, err.Error()}
			break
		}
		res, rerr := p.call()
		if rerr != nil {
			resp.Error = rerr
			break
		}
		resp.Result = res
	default:
		resp.Error = &rpcError{-32601, "method not found"}
	}
	return resp
}

func serveStdio() error {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 1 {
			if resp := handle(line); resp != nil {
				if err := enc.Encode(resp); err != nil {
					return err
				}
				if err := out.Flush(); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// sessions are the ids issued by initialize.
var sessions sync.Map

func serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		sessions.Delete(r.Header.Get("Mcp-Session-Id"))
		return
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.Header.Get("Mcp-Protocol-Version") == statelessVersion {
		serveStateless(w, r, body)
		return
	}
	var peek struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &peek)
	if peek.Method == "initialize" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		sid := hex.EncodeToString(b[:])
		sessions.Store(sid, struct{}{})
		w.Header().Set("Mcp-Session-Id", sid)
	} else if _, ok := sessions.Load(r.Header.Get("Mcp-Session-Id")); !ok {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	resp := handle(body)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()
	if *addr == "" {
		if err := serveStdio(); err != nil {
			log.Fatal(err)
		}
		return
	}
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(serveHTTP)))
}
