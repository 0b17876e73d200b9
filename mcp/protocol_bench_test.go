package mcp

import (
	"encoding/json"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

func BenchmarkCallToolResultEncode(b *testing.B) {
	r := &CallToolResult{Content: []Content{NewTextContent("hello, world")}, StructuredContent: json.RawMessage(`{"a":1}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallToolResultDecode(b *testing.B) {
	data := []byte(`{"content":[{"type":"text","text":"hello, world"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"a":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		var r CallToolResult
		if err := json.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallToolParamsDecode(b *testing.B) {
	data := []byte(`{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{"name":"x"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMetaEncode(b *testing.B) {
	m := &Meta{ProgressToken: jsonrpc.Int64ID(7), ProtocolVersion: LatestVersion, ClientCapabilities: &ClientCapabilities{}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
