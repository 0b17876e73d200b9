package specschema

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
)

var allRevs = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestValidateMessage(t *testing.T) {
	tests := []struct {
		name    string
		revs    []string
		msg     string
		method  string
		wantErr string // substring; "" means valid
	}{
		{
			name: "ping request",
			revs: allRevs[:4],
			msg:  `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		},
		{
			name:    "ping removed in 2026",
			revs:    allRevs[4:],
			msg:     `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			wantErr: "not defined",
		},
		{
			name:    "ping as notification",
			revs:    allRevs[:4],
			msg:     `{"jsonrpc":"2.0","method":"ping"}`,
			wantErr: "has no id",
		},
		{
			name:    "initialized with id",
			revs:    allRevs[:4],
			msg:     `{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`,
			wantErr: "has an id",
		},
		{
			name:    "tools/call without name",
			revs:    allRevs[:4],
			msg:     `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}`,
			wantErr: "name",
		},
		{
			name: "tools/call 2026",
			revs: allRevs[4:],
			msg:  `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x",` + meta2026 + `}}`,
		},
		{
			name:    "tools/call 2026 without _meta",
			revs:    allRevs[4:],
			msg:     `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}`,
			wantErr: "_meta",
		},
		{
			name:    "elicitation/create is not a wire request in 2026",
			revs:    allRevs[4:],
			msg:     `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`,
			wantErr: "not defined",
		},
		{
			name:   "call result",
			revs:   allRevs[:4],
			msg:    `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
			method: "tools/call",
		},
		{
			name:    "call result without content",
			revs:    allRevs[:4],
			msg:     `{"jsonrpc":"2.0","id":1,"result":{}}`,
			method:  "tools/call",
			wantErr: "content",
		},
		{
			name:   "call result is a task in 2025-11-25",
			revs:   []string{"2025-11-25"},
			msg:    `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}`,
			method: "tools/call",
		},
		{
			name:    "call result needs resultType in 2026",
			revs:    allRevs[4:],
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
			method:  "tools/call",
			wantErr: "resultType",
		},
		{
			name:   "input required result in 2026",
			revs:   allRevs[4:],
			msg:    `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`,
			method: "tools/call",
		},
		{
			name:   "ping result",
			revs:   allRevs[:4],
			msg:    `{"jsonrpc":"2.0","id":1,"result":{}}`,
			method: "ping",
		},
		{
			name:   "unknown method result checks the envelope only",
			revs:   allRevs[:4],
			msg:    `{"jsonrpc":"2.0","id":1,"result":{"anything":1}}`,
			method: "x/y",
		},
		{
			name: "error response",
			revs: allRevs,
			msg:  `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`,
		},
		{
			name:    "error response without message",
			revs:    allRevs,
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`,
			wantErr: "message",
		},
		{
			name:    "unsupported version error needs data",
			revs:    allRevs[4:],
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"v"}}`,
			wantErr: "UnsupportedProtocolVersionError",
		},
		{
			name: "unsupported version error",
			revs: allRevs[4:],
			msg:  `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"v","data":{"supported":["2026-07-28"],"requested":"1"}}}`,
		},
		{
			name: "batch in 2025-03-26",
			revs: []string{"2025-03-26"},
			msg:  `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		},
		{
			name:    "batch elsewhere",
			revs:    []string{"2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"},
			msg:     `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			wantErr: "JSONRPCMessage",
		},
		{
			name:    "not JSON",
			revs:    allRevs,
			msg:     `{"jsonrpc":`,
			wantErr: "invalid JSON",
		},
		{
			name:    "wrong jsonrpc version",
			revs:    allRevs,
			msg:     `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
			wantErr: "JSONRPCMessage",
		},
	}
	for _, tt := range tests {
		for _, rev := range tt.revs {
			t.Run(tt.name+"/"+rev, func(t *testing.T) {
				err := ValidateMessage(rev, []byte(tt.msg), tt.method)
				if tt.wantErr == "" {
					if err != nil {
						t.Fatalf("unexpected error: %v", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
			})
		}
	}
}

func TestUnknownMethodIsSentinel(t *testing.T) {
	err := ValidateMessage("2026-07-28", []byte(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`), "")
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("err = %v, want ErrUnknownMethod", err)
	}
}

func TestValidateDef(t *testing.T) {
	if err := ValidateDef("2025-06-18", "Tool", []byte(`{"name":"t","inputSchema":{"type":"object"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := ValidateDef("2025-06-18", "Tool", []byte(`{"name":"t","inputSchema":{"type":"string"}}`)); err == nil {
		t.Fatal("want an error for a non-object input schema")
	}
	if err := ValidateDef("2025-06-18", "NoSuchDef", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "NoSuchDef") {
		t.Fatalf("err = %v, want an unknown-definition error", err)
	}
	if err := ValidateDef("1999-01-01", "Tool", []byte(`{}`)); err == nil {
		t.Fatal("want an error for an unknown revision")
	}
	ok, err := HasDef("2026-07-28", "DiscoverResult")
	if err != nil || !ok {
		t.Fatalf("HasDef = %v, %v", ok, err)
	}
}

// TestEmbeddedRevisions checks that exactly the revisions the tests cover
// are embedded, each one loads, and an unknown revision is an error.
func TestEmbeddedRevisions(t *testing.T) {
	files, err := fs.Glob(schemas, "schema/*/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	for _, f := range files {
		embedded = append(embedded, strings.Split(f, "/")[1])
	}
	if !slices.Equal(embedded, allRevs) {
		t.Errorf("embedded revisions %v, want %v", embedded, allRevs)
	}
	for _, rev := range allRevs {
		if ok, err := HasDef(rev, "JSONRPCMessage"); err != nil || !ok {
			t.Errorf("%s: HasDef(JSONRPCMessage) = %v, %v", rev, ok, err)
		}
	}
	for _, rev := range []string{"2099-01-01", "../schema/2025-06-18", ""} {
		if _, err := HasDef(rev, "Tool"); err == nil || !strings.Contains(err.Error(), "unknown revision") {
			t.Errorf("HasDef(%q) error = %v, want an unknown-revision error", rev, err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rev := allRevs[i%len(allRevs)]
			msg := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
			if rev == "2026-07-28" {
				msg = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta2026 + `}}`
			}
			if err := ValidateMessage(rev, []byte(msg), ""); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// TestEveryDefinitionCompiles compiles every definition of every revision
// with the SDK's validator and checks that a definition which demands an
// object refuses a string.
func TestEveryDefinitionCompiles(t *testing.T) {
	for _, rev := range allRevs {
		s, err := load(rev)
		if err != nil {
			t.Fatal(err)
		}
		for name := range s.defs {
			v, err := s.schema(name)
			if err != nil {
				t.Errorf("%s %s: %v", rev, name, err)
				continue
			}
			if strings.HasSuffix(name, "Request") && v.ValidateValue("not an object") == nil {
				t.Errorf("%s %s accepts a string", rev, name)
			}
		}
	}
}
