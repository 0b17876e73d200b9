package apps_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
)

func toolWithMeta(t *testing.T, meta string) *mcp.Tool {
	t.Helper()
	var tool mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":{"type":"object"},"_meta":`+meta+`}`), &tool); err != nil {
		t.Fatal(err)
	}
	return &tool
}

// TestToolUI reads the tool metadata a host sees: the nested form, the
// deprecated flat key, both (the nested one wins), and refuses what the
// specification does not allow.
func TestToolUI(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		want       *apps.ToolMeta
	}{
		{"none", `{"other":1}`, nil},
		{"null", `{"ui":null}`, nil},
		{"nested", `{"ui":{"resourceUri":"ui://a/v.html","visibility":["model","app"]}}`,
			&apps.ToolMeta{ResourceURI: "ui://a/v.html", Visibility: []apps.Visibility{apps.VisibilityModel, apps.VisibilityApp}}},
		{"legacy", `{"ui/resourceUri":"ui://a/old"}`, &apps.ToolMeta{ResourceURI: "ui://a/old"}},
		{"nested wins", `{"ui":{"resourceUri":"ui://a/new"},"ui/resourceUri":"ui://a/old"}`, &apps.ToolMeta{ResourceURI: "ui://a/new"}},
		{"legacy fills", `{"ui":{"visibility":["app"]},"ui/resourceUri":"ui://a/old"}`,
			&apps.ToolMeta{ResourceURI: "ui://a/old", Visibility: []apps.Visibility{apps.VisibilityApp}}},
		{"app only, no view", `{"ui":{"visibility":["app"]}}`, &apps.ToolMeta{Visibility: []apps.Visibility{apps.VisibilityApp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := apps.ToolUI(toolWithMeta(t, tc.meta))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ToolUI = %+v, want %+v", got, tc.want)
			}
		})
	}
	if m, err := apps.ToolUI(&mcp.Tool{Name: "bare"}); m != nil || err != nil {
		t.Errorf("a tool without _meta: %v, %v", m, err)
	}
	for _, bad := range []string{
		`{"ui":{"visibility":["user"]}}`,
		`{"ui":{"visibility":"app"}}`,
		`{"ui":{"resourceUri":"https://example.com/v.html"}}`,
		`{"ui/resourceUri":"file:///etc/passwd"}`,
		`{"ui/resourceUri":7}`,
		`{"ui":[1]}`,
	} {
		if m, err := apps.ToolUI(toolWithMeta(t, bad)); !errors.Is(err, apps.ErrInvalidMeta) {
			t.Errorf("ToolUI(%s) = %+v, %v; want ErrInvalidMeta", bad, m, err)
		}
	}
}

func TestToolMetaVisibleTo(t *testing.T) {
	both := &apps.ToolMeta{}
	app := &apps.ToolMeta{Visibility: []apps.Visibility{apps.VisibilityApp}}
	model := &apps.ToolMeta{Visibility: []apps.Visibility{apps.VisibilityModel}}
	if !both.VisibleTo(apps.VisibilityModel) || !both.VisibleTo(apps.VisibilityApp) || both.AppOnly() {
		t.Error("the default visibility is not model and app")
	}
	if app.VisibleTo(apps.VisibilityModel) || !app.AppOnly() {
		t.Error("an app-only tool is visible to the model")
	}
	if model.VisibleTo(apps.VisibilityApp) || model.AppOnly() {
		t.Error("a model-only tool is visible to the app")
	}
}

// TestContentsUI reads the resource metadata from a resources/read item
// (text and blob) as the host's CSP and sandbox come from it.
func TestContentsUI(t *testing.T) {
	var res mcp.ReadResourceResult
	err := json.Unmarshal([]byte(`{"contents":[
		{"uri":"ui://a/v","mimeType":"text/html;profile=mcp-app","text":"<p>","_meta":{"ui":{
			"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://cdn.example.com"],"frameDomains":["https://f.example.com"],"baseUriDomains":["https://b.example.com"]},
			"permissions":{"camera":{},"clipboardWrite":{}},"domain":"x.example.com","prefersBorder":false}}},
		{"uri":"ui://a/b","mimeType":"text/html;profile=mcp-app","blob":"PHA+","_meta":{"ui":{"prefersBorder":true}}},
		{"uri":"ui://a/c","text":"x"}]}`), &res)
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := &apps.ResourceMeta{
		CSP: &apps.CSP{
			ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://cdn.example.com"},
			FrameDomains: []string{"https://f.example.com"}, BaseURIDomains: []string{"https://b.example.com"},
		},
		Permissions:   &apps.Permissions{Camera: &apps.Permission{}, ClipboardWrite: &apps.Permission{}},
		Domain:        "x.example.com",
		PrefersBorder: &no,
	}
	got, err := apps.ContentsUI(res.Contents[0])
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("text contents: %+v, %v", got, err)
	}
	got, err = apps.ContentsUI(res.Contents[1])
	if err != nil || got == nil || got.PrefersBorder == nil || !*got.PrefersBorder {
		t.Errorf("blob contents: %+v, %v", got, err)
	}
	if got, err := apps.ContentsUI(res.Contents[2]); got != nil || err != nil {
		t.Errorf("contents without _meta: %+v, %v", got, err)
	}
	if _, err := apps.ResourceUI(&mcp.Meta{Extra: map[string]json.RawMessage{"ui": json.RawMessage(`{"prefersBorder":"yes"}`)}}); !errors.Is(err, apps.ErrInvalidMeta) {
		t.Errorf("a malformed prefersBorder: %v", err)
	}
}

// TestDeclareClient declares the capability as a host does and reads it
// back as a server does.
func TestDeclareClient(t *testing.T) {
	caps := &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{"com.example/x": json.RawMessage(`{}`)}}
	apps.DeclareClient(caps)
	if got := string(caps.Extensions[apps.ExtensionID]); got != `{"mimeTypes":["text/html;profile=mcp-app"]}` {
		t.Errorf("declared %s", got)
	}
	if _, ok := caps.Extensions["com.example/x"]; !ok {
		t.Error("DeclareClient dropped another extension")
	}
	if c := apps.HostCapability(caps); !c.Renders(apps.MIMEType) {
		t.Errorf("HostCapability = %+v", c)
	}
	var fresh mcp.ClientCapabilities
	apps.DeclareClient(&fresh)
	if apps.HostCapability(&fresh) == nil {
		t.Error("DeclareClient on capabilities without extensions")
	}
	for _, v := range []string{`{}`, `{"mimeTypes":"text/html"}`, `[]`, `{"mimeTypes":["text/plain"]}`} {
		caps := &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{apps.ExtensionID: json.RawMessage(v)}}
		if apps.HostCapability(caps).Renders(apps.MIMEType) {
			t.Errorf("%s renders HTML views", v)
		}
	}
	if apps.HostCapability(nil) != nil || apps.HostRenders(nil) {
		t.Error("nil capabilities render views")
	}
}
