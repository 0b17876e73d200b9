package cli

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

// TestHeaderBook: the standard headers of stateless requests, with
// Mcp-Param-* learned from a tools/list answer relayed earlier.
func TestHeaderBook(t *testing.T) {
	var b headerBook
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	msg := func(s string) *jsonrpc.Message {
		t.Helper()
		m := jsonrpc.Decode([]byte(s))
		if m.Invalid != nil {
			t.Fatalf("%s: %v", s, m.Invalid)
		}
		return m
	}
	if h := b.headers(msg(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)); h.Get("Mcp-Method") != "tools/list" {
		t.Errorf("tools/list headers %v", h)
	}
	b.learn(msg(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}`))
	for _, tc := range []struct {
		name, msg string
		want      http.Header
	}{
		{"stateful", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route"}}`, nil},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{` + meta + `}}`, nil},
		{"call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu-west"},` + meta + `}}`, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"route"}, "Mcp-Param-Region": {"eu-west"}}},
		{"call of an unlisted tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"other","arguments":{"region":"x"},` + meta + `}}`, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"other"}}},
		{"read", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///a b",` + meta + `}}`, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"resources/read"}, "Mcp-Name": {"file:///a b"}}},
		{"get, a name needing the wrapper", `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"café",` + meta + `}}`, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"prompts/get"}, "Mcp-Name": {"=?base64?Y2Fmw6k=?="}}},
		{"discover", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{` + meta + `}}`, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"server/discover"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.headers(msg(tc.msg)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("headers %v, want %v", got, tc.want)
			}
		})
	}
}
