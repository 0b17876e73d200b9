package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// Without a declaration the policy is what the reference host grants
// every view (eval, blob: and data: scripts and workers, data: and blob:
// images, fonts and media), without its connect-src 'self', and with no
// frames, plugins or foreign base URIs.
func TestViewPolicyDefault(t *testing.T) {
	const want = "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data:; " +
		"style-src 'self' 'unsafe-inline' blob: data:; img-src 'self' data: blob:; font-src 'self' data: blob:; " +
		"media-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'"
	if got := viewPolicy(nil); got != want {
		t.Errorf("nil:\n got %s\nwant %s", got, want)
	}
	if got := viewPolicy(&apps.CSP{}); got != want {
		t.Errorf("empty:\n got %s\nwant %s", got, want)
	}
}

func TestViewPolicyDeclared(t *testing.T) {
	c, dropped := cleanCSP(&apps.CSP{
		ConnectDomains:  []string{"https://api.example.com", "wss://rt.example.com:8443"},
		ResourceDomains: []string{"https://*.cdn.example", "'unsafe-hashes'"},
		FrameDomains:    []string{"https://www.youtube.com/"},
		BaseURIDomains:  []string{"https://base.example; script-src *"},
	})
	got := viewPolicy(c)
	for _, want := range []string{
		"default-src 'none'",
		"script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: https://*.cdn.example;",
		"style-src 'self' 'unsafe-inline' blob: data: https://*.cdn.example;",
		"img-src 'self' data: blob: https://*.cdn.example;",
		"media-src 'self' data: blob: https://*.cdn.example;",
		"font-src 'self' data: blob: https://*.cdn.example;",
		"worker-src 'self' blob: https://*.cdn.example;",
		"connect-src https://api.example.com wss://rt.example.com:8443;",
		"frame-src https://www.youtube.com;",
		"object-src 'none'",
		"base-uri 'self'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("policy lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "unsafe-hashes") || strings.Contains(got, "base.example") || strings.Count(got, ";") != 10 {
		t.Errorf("policy loosened by a bad origin:\n%s", got)
	}
	if strings.Join(dropped, "|") != "'unsafe-hashes'|https://base.example; script-src *" {
		t.Errorf("dropped %q", dropped)
	}
}

// Only a scheme and a host (with an optional port) pass: nothing that
// would add a source keyword, a directive or a scheme-wide source.
func TestCleanOrigins(t *testing.T) {
	for o, ok := range map[string]bool{
		"https://api.example.com":        true,
		"https://*.example.com":          true,
		"http://localhost:3000":          true,
		"http://127.0.0.1:2":             true,
		"wss://rt.example.com:*":         true,
		"https://example.com/":           true, // the slash is dropped
		"*":                              false,
		"https://*":                      false,
		"'self'":                         false,
		"'unsafe-eval'":                  false,
		"data:":                          false,
		"blob:":                          false,
		"https:":                         false,
		"javascript:alert(1)":            false,
		"ftp://files.example.com":        false,
		"https://example.com/path":       false,
		"https://a.example https://b.ex": false,
		"https://a.example;script-src *": false,
		"https://a.example,https://b.ex": false,
		"https://user@a.example":         false,
		"https://a.*.example":            false,
		"":                               false,
		"https://" + strings.Repeat("a", 300) + ".example": false,
	} {
		kept, _ := cleanOrigins([]string{o})
		if (len(kept) == 1) != ok {
			t.Errorf("%q kept %v, want %v", o, kept, ok)
		}
	}
	many := make([]string, inspectMaxDomains+5)
	for i := range many {
		many[i] = "https://example.com"
	}
	if kept, dropped := cleanOrigins(many); len(kept) != inspectMaxDomains || len(dropped) != 5 {
		t.Errorf("%d kept, %d dropped of %d", len(kept), len(dropped), len(many))
	}
}

func TestViewAllow(t *testing.T) {
	p := &apps.Permissions{Camera: &apps.Permission{}, ClipboardWrite: &apps.Permission{}}
	if got := viewAllow(p); got != "camera; clipboard-write" {
		t.Errorf("allow %q", got)
	}
	if got := viewAllow(nil); got != "" {
		t.Errorf("allow %q without permissions", got)
	}
}

func TestViewContents(t *testing.T) {
	const uri = "ui://x/view.html"
	meta := &mcp.Meta{Extra: map[string]json.RawMessage{"ui": json.RawMessage(`{"prefersBorder":true}`)}}
	for _, tc := range []struct {
		name string
		c    mcp.ResourceContents
		html string // "" when refused
	}{
		{"text", &mcp.TextResourceContents{URI: uri, MIMEType: apps.MIMEType, Text: "<p>hi</p>", Meta: meta}, "<p>hi</p>"},
		{"blob", &mcp.BlobResourceContents{URI: uri, MIMEType: apps.MIMEType, Blob: base64.StdEncoding.EncodeToString([]byte("<p>b</p>"))}, "<p>b</p>"},
		{"plain html", &mcp.TextResourceContents{URI: uri, MIMEType: "text/html", Text: "<p>hi</p>"}, ""},
		{"no MIME type", &mcp.TextResourceContents{URI: uri, Text: "<p>hi</p>"}, ""},
		{"another URI", &mcp.TextResourceContents{URI: "ui://x/other.html", MIMEType: apps.MIMEType, Text: "<p>hi</p>"}, ""},
		{"bad blob", &mcp.BlobResourceContents{URI: uri, MIMEType: apps.MIMEType, Blob: "%%%"}, ""},
	} {
		html, m, err := viewContents(&mcp.ReadResourceResult{Contents: []mcp.ResourceContents{tc.c}}, uri)
		if tc.html == "" {
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
			}
			continue
		}
		if err != nil || html != tc.html {
			t.Errorf("%s: %q, %v", tc.name, html, err)
		}
		if tc.name == "text" && (m == nil || m.PrefersBorder == nil || !*m.PrefersBorder) {
			t.Errorf("%s: _meta.ui %+v", tc.name, m)
		}
	}
}

// appSession connects an inspector to an in-memory app server with a
// view and tools of every visibility.
func appSession(t *testing.T) (*inspector, *mcp.ClientSession) {
	t.Helper()
	ms := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	const uri = "ui://t/view.html"
	ui := apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://api.example.com", "*"}}}
	if err := a.AddHTML(&apps.View{URI: uri, Name: "view", UI: ui}, "<p>view</p>"); err != nil {
		t.Fatal(err)
	}
	ok := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[struct{}], error) {
		return &mcp.ToolResult[struct{}]{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	for name, vis := range map[string][]apps.Visibility{
		"both":  nil,
		"app":   {apps.VisibilityApp},
		"model": {apps.VisibilityModel},
	} {
		if err := apps.AddTool(a, &mcp.Tool{Name: name}, apps.ToolMeta{ResourceURI: uri, Visibility: vis}, ok); err != nil {
			t.Fatal(err)
		}
	}
	mcp.AddTool(ms, &mcp.Tool{Name: "plain"}, ok)
	c, s := transport.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = ms.Run(ctx, s); close(done) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Capabilities: inspectorCapabilities(), ProtocolVersion: "2025-11-25"})
	cs, err := client.Connect(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}, cs: cs,
		sandbox: &sandbox{origin: "http://127.0.0.1:5001", views: map[string]*sandboxView{}}}
	in.sandbox.allowPage("127.0.0.1:5000")
	return in, cs
}

// The inspector declares the UI extension; the server then lists its
// app-only tool, which the page marks and views may call; a view calls
// only tools whose visibility includes "app", of its own server.
func TestInspectorAppCalls(t *testing.T) {
	in, cs := appSession(t)
	ctx := context.Background()
	// A server without tasks: the page offers no "run as a task".
	if in.state()["tasks"] != false {
		t.Errorf("state: tasks %v", in.state()["tasks"])
	}
	names := []string{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "app,both,model,plain" {
		t.Errorf("tools %v: the app-only one is listed to a client that renders views", names)
	}
	v, err := in.openView(ctx, cs, "both")
	if err != nil {
		t.Fatal(err)
	}
	if v.HTML != "<p>view</p>" || !strings.Contains(v.Policy, "connect-src https://api.example.com;") || len(v.Dropped) != 1 ||
		!strings.HasPrefix(v.Proxy, "http://127.0.0.1:5001/proxy/") {
		t.Errorf("view %+v", v)
	}
	if _, err := in.openView(ctx, cs, "plain"); err == nil {
		t.Error("a view opened for a tool without one")
	}
	for name, refused := range map[string]string{"both": "", "app": "", "model": "not visible to apps", "plain": "", "nope": "unknown tool"} {
		res, err := in.appCall(ctx, cs, v.View, name, nil)
		if refused == "" {
			if err != nil || res.IsError {
				t.Errorf("%s: %v %+v", name, err, res)
			}
			continue
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, refused) {
			t.Errorf("%s: %v, want a JSON-RPC error saying %q", name, err, refused)
		}
	}
	if _, err := in.appRead(ctx, cs, v.View, "ui://t/view.html"); err != nil {
		t.Error(err)
	}
	// A view of another session (the user connected elsewhere since), or
	// an unknown one, reaches nothing.
	_, other := appSession(t)
	if _, err := in.appCall(ctx, other, v.View, "both", nil); err == nil || !strings.Contains(err.Error(), "no longer connected") {
		t.Errorf("call from a view of the previous server: %v", err)
	}
	if _, err := in.appRead(ctx, cs, "forged", "ui://t/view.html"); err == nil {
		t.Error("read from an unknown view")
	}
}

// The sandbox serves a view's proxy page, under the view's policy, only
// to its own Host, and only framed by the page; the page refuses the
// sandbox's origin, and lets only it be framed.
func TestSandboxOrigin(t *testing.T) {
	in, cs := appSession(t)
	v, err := in.openView(context.Background(), cs, "both")
	if err != nil {
		t.Fatal(err)
	}
	sh := in.sandbox.handler()
	get := func(h http.Handler, path, host, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := get(sh, "/proxy/"+v.View, "127.0.0.1:5001", "")
	csp := w.Header().Get("Content-Security-Policy")
	if w.Code != 200 || !strings.HasPrefix(csp, v.Policy+"; frame-ancestors ") || !strings.Contains(csp, "http://127.0.0.1:5000") || strings.Contains(w.Body.String(), "<p>view</p>") {
		t.Errorf("proxy page: %d, CSP %q", w.Code, csp)
	}
	// Chromium drops an IPv6 literal, with a console error per view.
	if strings.Contains(csp, "[") {
		t.Errorf("frame-ancestors names an IPv6 literal: %q", csp)
	}
	// A browser asks each origin for /favicon.ico, without the token.
	if w := get(sh, "/favicon.ico", "127.0.0.1:5001", ""); w.Code != http.StatusNoContent {
		t.Errorf("sandbox /favicon.ico: %d", w.Code)
	}
	if w := get(in.handler("127.0.0.1:5000"), "/favicon.ico", "127.0.0.1:5000", ""); w.Code != http.StatusNoContent {
		t.Errorf("page /favicon.ico: %d", w.Code)
	}
	for _, tc := range []struct{ path, host string }{
		{"/favicon.ico", "evil.example:5001"},
		{"/proxy/" + v.View, "evil.example:5001"},
		{"/proxy/nope", "127.0.0.1:5001"},
		{"/", "127.0.0.1:5001"},
		{"/app.js", "127.0.0.1:5001"},
	} {
		if w := get(sh, tc.path, tc.host, ""); w.Code == 200 {
			t.Errorf("%s on %s served", tc.path, tc.host)
		}
	}
	ph := in.handler("127.0.0.1:5000")
	if w := get(ph, "/t/", "127.0.0.1:5000", ""); !strings.Contains(w.Header().Get("Content-Security-Policy"), "frame-src http://127.0.0.1:5001") {
		t.Errorf("page CSP %q", w.Header().Get("Content-Security-Policy"))
	}
	r := httptest.NewRequest("POST", "/t/api/state", strings.NewReader("{}"))
	r.Host = "127.0.0.1:5000"
	r.Header.Set("Origin", in.sandbox.origin)
	r.Header.Set("Content-Type", "application/json")
	w = httptest.NewRecorder()
	ph.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden {
		t.Errorf("the page's API answered the sandbox's origin: %d", w.Code)
	}
}

// Every script and style sheet the page names is served (the handler
// lists them one by one), and the views' frames are built as the
// reference host builds them: the inner frame shares the sandbox's
// origin, and the page declares what it handles.
func TestInspectorPageFiles(t *testing.T) {
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}}
	h := in.handler("127.0.0.1:4000")
	get := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = "127.0.0.1:4000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	page := get("/t/").Body.String()
	refs := regexp.MustCompile(`(?:src|href)="([a-z]+\.(?:js|css))"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 5 {
		t.Fatalf("the page names %d files", len(refs))
	}
	for _, m := range refs {
		if w := get("/t/" + m[1]); w.Code != 200 || w.Body.Len() == 0 {
			t.Errorf("%s: %d", m[1], w.Code)
		}
	}
	sandbox, _ := inspectorFiles.ReadFile("inspector/sandbox.js")
	if !strings.Contains(string(sandbox), `inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms")`) {
		t.Error("the view's frame lacks allow-same-origin")
	}
	apps, _ := inspectorFiles.ReadFile("inspector/apps.js")
	_, caps, _ := strings.Cut(string(apps), "hostCapabilities: {")
	caps, _, _ = strings.Cut(caps, "hostContext:")
	if !strings.Contains(caps, "message: CONTENT_MODALITIES") || !strings.Contains(caps, "updateModelContext: {...CONTENT_MODALITIES") {
		t.Errorf("hostCapabilities lacks message or updateModelContext: %s", caps)
	}
}
