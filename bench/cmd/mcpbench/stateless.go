package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The stateless figure: the revision new clients speak by default
// (2026-07-28, SEP-2575) over Streamable HTTP. There is no initialize and
// no session: every POST is a complete request whose params._meta carries
// the client's protocol version, capabilities and identity, and whose
// SEP-2243 headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) repeat the
// body for proxies. 16 clients run a closed loop each; every answer is
// checked as in the other figures, and a result that names a resultType
// other than "complete" is refused.
//
// Before measuring, a few probes ask whether the server serves the
// revision truly rather than answering a request it does not understand
// (a 2025-era server that ignores _meta still echoes): the number passed
// is a row of the table, and what failed goes to stderr.

const statelessVersion = "2026-07-28"

// statelessClients is the number of concurrent clients of the figure.
const statelessClients = 16

// requestMeta is the params._meta of every request the driver sends:
// version and capabilities (required), and identity (which clients should
// send).
const requestMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + statelessVersion +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"1.0.0"}}`

// statelessEchoBody appends a tools/call of the echo tool with its _meta.
func statelessEchoBody(b []byte, id int64, text string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":`...)
	b = strconv.AppendQuote(b, text) // text is ASCII: a valid JSON string
	b = append(b, `},`...)
	b = append(b, requestMeta...)
	return append(b, `}}`...)
}

// statelessHeaders are the SEP-2243 headers of a request.
func statelessHeaders(method, name string) http.Header {
	h := http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {statelessVersion},
		"Mcp-Method":           {method},
	}
	if name != "" {
		h["Mcp-Name"] = []string{name}
	}
	return h
}

// statelessReply is one POST's outcome, whatever its status.
type statelessReply struct {
	status int
	header http.Header
	answer *answer // nil when the body holds no JSON-RPC answer
	body   []byte
}

func postStateless(ctx context.Context, url string, hdr http.Header, body []byte, id int64) (*statelessReply, error) {
	resp, data, err := postBody(ctx, url, hdr, body)
	if err != nil {
		return nil, err
	}
	r := &statelessReply{status: resp.StatusCode, header: resp.Header, body: data}
	r.answer, _ = decodeAnswer(resp.Header.Get("Content-Type"), data, id)
	return r, nil
}

// statelessResult is what the figure reads of a result beyond the echo.
type statelessResult struct {
	ResultType *string `json:"resultType"`
	Meta       struct {
		ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
	SupportedVersions []string `json:"supportedVersions"`
}

// checkStatelessEcho validates one answer of the measured loop.
func checkStatelessEcho(r *statelessReply, id int64, want func(int64) string) error {
	if r.status != http.StatusOK || r.answer == nil {
		return fmt.Errorf("HTTP %d %.200s", r.status, r.body)
	}
	if err := checkEcho(r.answer, id, want); err != nil {
		return err
	}
	var res statelessResult
	if err := json.Unmarshal(r.answer.Result, &res); err != nil {
		return err
	}
	if res.ResultType != nil && *res.ResultType != "complete" {
		return fmt.Errorf("resultType %q, want complete", *res.ResultType)
	}
	return nil
}

// statelessProbe is one question the probes ask; check returns why the
// server failed it.
type statelessProbe struct {
	name  string
	check func(ctx context.Context, url string) error
}

var statelessProbes = []statelessProbe{
	{"server/discover lists 2026-07-28", func(ctx context.Context, url string) error {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + requestMeta + `}}`)
		r, err := postStateless(ctx, url, statelessHeaders("server/discover", ""), body, 1)
		if err != nil {
			return err
		}
		var res statelessResult
		if r.status != http.StatusOK || r.answer == nil || r.answer.Error != nil || json.Unmarshal(r.answer.Result, &res) != nil ||
			!slices.Contains(res.SupportedVersions, statelessVersion) {
			return fmt.Errorf("HTTP %d %.200s", r.status, r.body)
		}
		return nil
	}},
	{"result has resultType complete", func(ctx context.Context, url string) error {
		return echoProbe(ctx, url, func(r *statelessReply, res *statelessResult) bool {
			return res.ResultType != nil && *res.ResultType == "complete"
		})
	}},
	{"result has _meta serverInfo", func(ctx context.Context, url string) error {
		return echoProbe(ctx, url, func(r *statelessReply, res *statelessResult) bool { return len(res.Meta.ServerInfo) > 2 })
	}},
	{"no Mcp-Session-Id minted", func(ctx context.Context, url string) error {
		return echoProbe(ctx, url, func(r *statelessReply, _ *statelessResult) bool { return r.header.Get("Mcp-Session-Id") == "" })
	}},
	{"missing clientCapabilities: 400, -32602", func(ctx context.Context, url string) error {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + statelessVersion + `"}}}`)
		return refusalProbe(ctx, url, statelessHeaders("tools/call", "echo"), body, -32602)
	}},
	{"Mcp-Name unlike the body: 400, -32020", func(ctx context.Context, url string) error {
		return refusalProbe(ctx, url, statelessHeaders("tools/call", "add"), statelessEchoBody(nil, 1, "x"), -32020)
	}},
}

// echoProbe sends one valid echo request and asks ok of its answer.
func echoProbe(ctx context.Context, url string, ok func(*statelessReply, *statelessResult) bool) error {
	r, err := postStateless(ctx, url, statelessHeaders("tools/call", "echo"), statelessEchoBody(nil, 1, "m1"), 1)
	if err != nil {
		return err
	}
	var res statelessResult
	if r.status != http.StatusOK || r.answer == nil || json.Unmarshal(r.answer.Result, &res) != nil || !ok(r, &res) {
		return fmt.Errorf("HTTP %d %v %.200s", r.status, r.header, r.body)
	}
	return nil
}

// refusalProbe sends a request the revision requires refusing.
func refusalProbe(ctx context.Context, url string, hdr http.Header, body []byte, code int) error {
	r, err := postStateless(ctx, url, hdr, body, 1)
	if err != nil {
		return err
	}
	if r.status != http.StatusBadRequest || r.answer == nil || r.answer.Error == nil || r.answer.Error.Code != code {
		return fmt.Errorf("answered HTTP %d %.200s", r.status, r.body)
	}
	return nil
}

// runProbes returns how many probes the server passed, telling stderr
// which it failed.
func runProbes(ctx context.Context, name, url string) float64 {
	passed := 0
	for _, p := range statelessProbes {
		if err := p.check(ctx, url); err != nil {
			fmt.Fprintf(os.Stderr, "stateless %s: fails %q: %v\n", name, p.name, err)
			continue
		}
		passed++
	}
	return float64(passed)
}

func statelessThroughput(srv server) (map[string]float64, error) {
	p, url, err := startHTTP(srv)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	probes := runProbes(context.Background(), srv.name, url)
	want := func(id int64) string { return "m" + strconv.FormatInt(id, 10) }
	hdr := statelessHeaders("tools/call", "echo")
	rate, cpuPer, err := closedLoops(p, statelessClients, func(ctx context.Context) (func(int64, []byte) ([]byte, error), error) {
		return func(id int64, b []byte) ([]byte, error) {
			b = statelessEchoBody(b[:0], id, want(id))
			r, err := postStateless(ctx, url, hdr.Clone(), b, id)
			if err == nil {
				err = checkStatelessEcho(r, id, want)
			}
			return b, err
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]float64{
		"stateless.calls":        rate,
		"stateless.cpu_us":       cpuPer,
		"stateless.probes":       probes,
		"stateless.peak_rss_mib": memKiB(p.cmd.Process.Pid, "VmHWM") / 1024,
	}, nil
}

// nameSet is a set of server names given by a repeatable flag.
type nameSet map[string]bool

func (s nameSet) String() string { return strings.Join(slices.Sorted(maps.Keys(s)), ",") }

func (s nameSet) Set(v string) error {
	s[v] = true
	return nil
}
