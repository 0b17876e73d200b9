package servercard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/jsonschema"
	"github.com/gomcp/sdk/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSchemaPinned(t *testing.T) {
	sum := sha256.Sum256(schemaBytes)
	if got := hex.EncodeToString(sum[:]); got != SchemaSHA256 {
		t.Fatalf("embedded schema sha256 %s, pinned %s: update schema/README.md and SchemaSHA256 together", got, SchemaSHA256)
	}
}

// The extension's own examples (examples/ServerCard at the pinned commit).
func TestValidateCardExamples(t *testing.T) {
	valid := []string{
		`{"$schema":"` + SchemaURL + `","name":"example-org/minimal","version":"1.0.0","description":"Smallest valid Server Card."}`,
		`{"$schema":"` + SchemaURL + `","name":"example-org/with-remote","version":"2.1.0","description":"d",
		  "remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp","variables":{"tenant":{"default":"x"}},
		  "headers":[{"name":"Authorization","isSecret":true,"value":"Bearer {token}"}],"supportedProtocolVersions":["2025-11-25"]}]}`,
	}
	for _, doc := range valid {
		if err := ValidateCard([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
	for _, c := range []struct{ doc, pointer string }{
		{`{"$schema":"` + SchemaURL + `","name":"bad name","version":"1","description":"d"}`, "/name"},
		{`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json","name":"a/b","version":"1","description":"d"}`, "/$schema"},
		{`{"$schema":"` + SchemaURL + `","version":"1","description":"d"}`, ""},
		{`{"name":"a/b","version":"1","description":"d"}`, ""},
		{`{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","remotes":[{"type":"stdio","url":"https://x"}]}`, "/remotes/0/type"},
	} {
		err := ValidateCard([]byte(c.doc))
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a ValidationError", c.doc, err)
			continue
		}
		if ve.Problems[0].Location != c.pointer && !strings.Contains(err.Error(), c.pointer+":") {
			t.Errorf("%s: no problem at %q: %v", c.doc, c.pointer, err)
		}
	}
}

func testServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "io.github.gomcp/demo", Title: "Demo", Version: "1.2.3", Description: "A demo server."}, nil)
}

func get(t *testing.T, h http.Handler, method string, hdr http.Header) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, "http://example.com/mcp/server-card", nil)
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestHandlerHeadersETag(t *testing.T) {
	h, err := Handler(testServer(), Options{URL: "https://example.com/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	resp := get(t, h, http.MethodGet, nil)
	body, _ := io.ReadAll(resp.Body)
	want := map[string]string{
		"Content-Type":                  MediaType,
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Expose-Headers": "ETag",
		"Cache-Control":                 "public, max-age=3600",
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") {
		t.Fatalf("status %d, ETag %q: want 200 and a strong tag", resp.StatusCode, etag)
	}
	if err := ValidateCard(body); err != nil {
		t.Fatalf("served card invalid: %v\n%s", err, body)
	}
	c, _ := ParseCard(body)
	if c.Name != "io.github.gomcp/demo" || c.Version != "1.2.3" || c.Title != "Demo" || len(c.Remotes) != 1 ||
		c.Remotes[0].URL != "https://example.com/mcp" || c.Remotes[0].Type != "streamable-http" ||
		len(c.Remotes[0].SupportedProtocolVersions) != len(mcp.SupportedVersions()) {
		t.Fatalf("card = %s", body)
	}
	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
		r := get(t, h, http.MethodGet, http.Header{"If-None-Match": {inm}})
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusNotModified || len(b) != 0 || r.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: status %d, %d bytes, ETag %q", inm, r.StatusCode, len(b), r.Header.Get("ETag"))
		}
	}
	if r := get(t, h, http.MethodGet, http.Header{"If-None-Match": {`"stale"`}}); r.StatusCode != 200 {
		t.Errorf("stale tag: status %d", r.StatusCode)
	}
	if r := get(t, h, http.MethodOptions, nil); r.StatusCode != http.StatusNoContent || r.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Errorf("preflight: %d %v", r.StatusCode, r.Header)
	}
	if r := get(t, h, http.MethodPost, nil); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", r.StatusCode)
	}
	if r := get(t, h, http.MethodHead, nil); r.StatusCode != 200 || r.Header.Get("ETag") != etag {
		t.Errorf("HEAD: %d", r.StatusCode)
	}
}

// The card follows the server: a new version is a new card and a new tag;
// a new tool changes nothing a card says (cards list no tools).
func TestHandlerFollowsServer(t *testing.T) {
	srv := testServer()
	h, err := Handler(srv, Options{URL: "https://example.com/mcp", MaxAge: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r1 := get(t, h, http.MethodGet, nil)
	if cc := r1.Header.Get("Cache-Control"); cc != "public, max-age=60" {
		t.Errorf("Cache-Control %q", cc)
	}
	err = srv.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := get(t, h, http.MethodGet, nil); r.Header.Get("ETag") != r1.Header.Get("ETag") {
		t.Errorf("a tool changed the card")
	}
	srv.Implementation().Version = "1.2.4"
	r2 := get(t, h, http.MethodGet, nil)
	body, _ := io.ReadAll(r2.Body)
	if r2.Header.Get("ETag") == r1.Header.Get("ETag") || !strings.Contains(string(body), `"version":"1.2.4"`) {
		t.Fatalf("card not regenerated: %s", body)
	}
	if r := get(t, h, http.MethodGet, http.Header{"If-None-Match": {r1.Header.Get("ETag")}}); r.StatusCode != 200 {
		t.Errorf("old tag answered %d", r.StatusCode)
	}
}

func TestHandlerRefusesInvalidCard(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	if _, err := Handler(srv, Options{URL: "https://example.com/mcp"}); err == nil || !strings.Contains(err.Error(), "reverse-DNS") {
		t.Errorf("name: %v", err)
	}
	if _, err := Handler(srv, Options{URL: "https://example.com/mcp", Name: "io.x/plain"}); err == nil || !strings.Contains(err.Error(), "/description") {
		t.Errorf("description: %v", err)
	}
	if _, err := Handler(srv, Options{Name: "io.x/plain", Description: "d"}); err == nil || !strings.Contains(err.Error(), "URL") {
		t.Errorf("url: %v", err)
	}
	if _, err := Generate(srv, Options{URL: "https://example.com/mcp", Name: "io.x/plain", Description: "d"}); err != nil {
		t.Errorf("overrides: %v", err)
	}
}

func TestAICatalog(t *testing.T) {
	card, err := Generate(testServer(), Options{URL: "https://example.com/b/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	inline, _ := json.Marshal(card)
	h, err := AICatalog(0,
		Entry("urn:air:example.com:mcp:a", "https://example.com/a/mcp/server-card"),
		CatalogEntry{Identifier: "urn:air:example.com:mcp:b", Type: MediaType, Data: inline},
	)
	if err != nil {
		t.Fatal(err)
	}
	resp := get(t, h, http.MethodGet, nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != CatalogMediaType || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("headers %v", resp.Header)
	}
	c, err := ParseCatalog(body)
	if err != nil || c.SpecVersion != CatalogSpecVersion || len(c.Cards()) != 2 {
		t.Fatalf("catalog %s: %v", body, err)
	}
	if r := get(t, h, http.MethodGet, http.Header{"If-None-Match": {resp.Header.Get("ETag")}}); r.StatusCode != 304 {
		t.Errorf("304: %d", r.StatusCode)
	}
	for _, bad := range [][]CatalogEntry{
		nil,
		{{Identifier: "x", Type: MediaType}},
		{{Identifier: "x", Type: MediaType, URL: "https://a/card", Data: inline}},
		{{Identifier: "x", Type: MediaType, Data: json.RawMessage(`{"name":"a/b"}`)}},
		{{Type: MediaType, URL: "https://a/card"}},
	} {
		if _, err := AICatalog(0, bad...); err == nil {
			t.Errorf("AICatalog(%v) accepted", bad)
		}
	}
}

func TestFetch(t *testing.T) {
	cardH, err := Handler(testServer(), Options{URL: "https://example.com/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	other := httptest.NewServer(cardH)
	defer other.Close()
	var sawAuth, sawCookie bool
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp/server-card", func(w http.ResponseWriter, r *http.Request) {
		sawAuth, sawCookie = r.Header.Get("Authorization") != "", r.Header.Get("Cookie") != ""
		if r.Header.Get("Accept") == "" || !strings.Contains(r.Header.Get("Accept"), MediaType) {
			http.Error(w, "no Accept", http.StatusNotAcceptable)
			return
		}
		cardH.ServeHTTP(w, r)
	})
	cat, _ := AICatalog(0, Entry("urn:air:example.com:mcp:demo", "https://example.com/mcp/server-card"))
	mux.Handle(WellKnownCatalogPath, cat)
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"x":"` + strings.Repeat("a", MaxSize) + `"}`))
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html>`))
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/card", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ts := httptest.NewServer(mux)
	defer ts.Close()
	ctx := context.Background()

	d, err := Fetch(ctx, nil, ts.URL+"/mcp/server-card")
	if err != nil || d.Card == nil || d.Card.Name != "io.github.gomcp/demo" || sawAuth || sawCookie {
		t.Fatalf("card: %+v, %v (auth %v, cookie %v)", d, err, sawAuth, sawCookie)
	}
	if ep, err := d.Card.Endpoint(); err != nil || ep.URL != "https://example.com/mcp" {
		t.Errorf("endpoint %v %v", ep, err)
	}
	d, err = Fetch(ctx, nil, ts.URL+WellKnownCatalogPath)
	if err != nil || d.Catalog == nil || len(d.Catalog.Cards()) != 1 {
		t.Fatalf("catalog: %+v, %v", d, err)
	}
	for path, want := range map[string]string{"/big": "over", "/html": "not JSON", "/away": "servercard", "/nothing": "404"} {
		if _, err := Fetch(ctx, nil, ts.URL+path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := Fetch(short, nil, ts.URL+"/slow"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow: %v", err)
	}
	if _, err := Fetch(ctx, nil, "file:///etc/passwd"); err == nil {
		t.Error("file URL fetched")
	}
}
