package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomcp/sdk/internal/serverjson"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// goModuleDir writes a Go server module: a main package with a doc comment.
func goModuleDir(t *testing.T, modPath string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module "+modPath+"\n\ngo 1.22\n")
	write("main.go", "// Command weather answers questions about the weather.\npackage main\n\nfunc main() {}\n")
	return dir
}

func TestRegistryInit(t *testing.T) {
	dir := goModuleDir(t, "github.com/owner/weather/v2")
	out := filepath.Join(t.TempDir(), "server.json")
	code, stdout, stderr := mcpRun(t, context.Background(), "registry", "init", "--version", "2.0.1",
		"--url", "https://weather.example.com/mcp", "--oci", "ghcr.io/owner/weather:2.0.1", "-o", out, dir)
	if code != ExitOK || !strings.Contains(stdout, "io.github.owner/weather 2.0.1") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "go install github.com/owner/weather/v2@v2.0.1") || !strings.Contains(stderr, "proposed") {
		t.Errorf("no note about the Go package type: %q", stderr)
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := serverjson.Parse(doc)
	if err != nil {
		t.Fatalf("init wrote an invalid server.json: %v\n%s", err, doc)
	}
	if s.Schema != serverjson.SchemaURL || s.Description != "Command weather answers questions about the weather." ||
		s.Repository == nil || s.Repository.URL != "https://github.com/owner/weather" || s.Repository.Source != "github" ||
		len(s.Remotes) != 1 || s.Remotes[0].Type != "streamable-http" ||
		len(s.Packages) != 1 || s.Packages[0].RegistryType != "oci" || s.Packages[0].Transport.Type != "stdio" {
		t.Errorf("server.json:\n%s", doc)
	}
	// It does not overwrite without --force, and validate accepts it.
	if code, _, stderr := mcpRun(t, context.Background(), "registry", "init", "--version", "1", "-o", out, dir); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite: exit %d, %q", code, stderr)
	}
	if code, stdout, stderr := mcpRun(t, context.Background(), "registry", "validate", out); code != ExitOK || !strings.Contains(stdout, "valid") {
		t.Errorf("validate: exit %d, %q %q", code, stdout, stderr)
	}
}

func TestRegistryInitVersionFromTag(t *testing.T) {
	dir := goModuleDir(t, "example.com/tools/weather")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}, {"tag", "v0.3.0"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	code, stdout, stderr := mcpRun(t, context.Background(), "registry", "init", "-o", "-", "--description", "Weather.", dir)
	if code != ExitOK {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	var s serverjson.Server
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Name != "com.example/weather" || s.Version != "0.3.0" || s.Description != "Weather." || s.Repository != nil {
		t.Errorf("server.json %s (%v)", stdout, err)
	}
	// Without a tag or --version, init says what to do.
	if _, err := exec.Command("git", "-C", dir, "tag", "-d", "v0.3.0").CombinedOutput(); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mcpRun(t, context.Background(), "registry", "init", "-o", "-", dir); code != ExitUsage || !strings.Contains(stderr, "--version") {
		t.Errorf("untagged: exit %d, %q", code, stderr)
	}
}

func TestRegistryName(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/Owner/my-repo":        "io.github.Owner/my-repo",
		"github.com/owner/repo/cmd/srv":   "io.github.owner/repo",
		"gitlab.com/group/proj/v3":        "io.gitlab.group/proj",
		"example.com/x/weather":           "com.example/weather",
		"mcp.acme.dev/servers/search+web": "dev.acme.mcp/search-web",
	} {
		if got := registryName(in); got != want {
			t.Errorf("registryName(%q) = %q, want %q", in, got, want)
		}
	}
	if r := repositoryOf("github.com/owner/repo/cmd/srv/v2"); r == nil || r.Subfolder != "cmd/srv" {
		t.Errorf("subfolder: %+v", r)
	}
}

func writeServerJSON(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRegistryValidate(t *testing.T) {
	bad := writeServerJSON(t, map[string]any{"$schema": serverjson.SchemaURL, "name": "weather", "version": "1", "description": strings.Repeat("x", 101)})
	code, _, stderr := mcpRun(t, context.Background(), "registry", "validate", bad)
	if code != ExitToolError || !strings.Contains(stderr, "  /name: ") || !strings.Contains(stderr, "  /description: ") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := mcpRun(t, context.Background(), "registry", "validate", "--json", bad)
	var res validation
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != ExitToolError || res.Valid || len(res.Problems) < 2 {
		t.Errorf("--json: exit %d, %s", code, stdout)
	}
	old := writeServerJSON(t, map[string]any{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json", "name": "a.b/c", "version": "1", "description": "d"})
	if code, _, stderr := mcpRun(t, context.Background(), "registry", "validate", old); code != ExitToolError || !strings.Contains(stderr, "/$schema") {
		t.Errorf("old schema: exit %d, %q", code, stderr)
	}
	if code, _, _ := mcpRun(t, context.Background(), "registry", "validate", filepath.Join(t.TempDir(), "none.json")); code != ExitUsage {
		t.Errorf("missing file: exit %d", code)
	}
	if code, _, _ := mcpRunInput(t, context.Background(), `{"$schema":"`+serverjson.SchemaURL+`","name":"a.b/c","version":"1","description":"d"}`, "registry", "validate", "-"); code != ExitOK {
		t.Errorf("stdin: exit %d", code)
	}
	huge := `{"$schema":"` + serverjson.SchemaURL + `","name":"a.b/c","version":"1","description":"d"}` + strings.Repeat(" ", serverjson.MaxSize)
	if code, _, stderr := mcpRunInput(t, context.Background(), huge, "registry", "validate", "-"); code != ExitUsage || !strings.Contains(stderr, "-: larger than 1048576 bytes") {
		t.Errorf("stdin too large: exit %d, %q", code, stderr)
	}
	if code, _, stderr := mcpRun(t, context.Background(), "registry", "validate", writeFile(t, "huge.json", huge)); code != ExitUsage || !strings.Contains(stderr, "huge.json: larger than 1048576 bytes") {
		t.Errorf("file too large: exit %d, %q", code, stderr)
	}
}

func TestRegistryValidateAgainst(t *testing.T) {
	url := serveHTTP(t, mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.2.3"}, nil), nil)
	good := writeServerJSON(t, map[string]any{"$schema": serverjson.SchemaURL, "name": "io.github.owner/weather", "version": "1.2.3", "description": "d",
		"remotes": []any{map[string]any{"type": "streamable-http", "url": url}}})
	code, stdout, stderr := mcpRun(t, context.Background(), "registry", "validate", good, "--against", url)
	if code != ExitOK || !strings.Contains(stdout, "matches the live server") {
		t.Errorf("match: exit %d, %q %q", code, stdout, stderr)
	}
	bad := writeServerJSON(t, map[string]any{"$schema": serverjson.SchemaURL, "name": "io.github.owner/forecast", "version": "1.2.4", "description": "d",
		"remotes": []any{map[string]any{"type": "streamable-http", "url": "https://elsewhere.example/mcp"}}})
	code, _, stderr = mcpRun(t, context.Background(), "registry", "validate", bad, "--against", url)
	for _, want := range []string{"does not match the live server", `/name: server.json says "io.github.owner/forecast", the server's serverInfo.name is "weather"`, "/version: ", "/remotes: no remote of type streamable-http with URL " + url} {
		if !strings.Contains(stderr, want) {
			t.Errorf("mismatch: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != ExitToolError {
		t.Errorf("mismatch: exit %d", code)
	}
	if code, _, _ := mcpRun(t, context.Background(), "registry", "validate", good, "--against", "http://127.0.0.1:1/mcp"); code != ExitConnect {
		t.Errorf("unreachable: exit %d", code)
	}
}

// cardHost serves a server, its card (through mcphttp's option) and a
// catalog, as a host would.
func cardHost(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "io.github.owner/weather", Version: "1.2.3", Description: "Weather."}, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	card, err := servercard.Handler(srv, servercard.Options{URL: ts.URL + "/mcp",
		Headers: []servercard.Header{{Name: "X-Api-Key", Description: "your key", IsRequired: true, IsSecret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{ServerCard: card})
	t.Cleanup(func() { h.Close() })
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/server-card", h)
	cat, err := servercard.AICatalog(0,
		servercard.Entry("urn:air:example.com:mcp:weather", ts.URL+"/mcp/server-card"),
		servercard.Entry("urn:air:example.com:mcp:broken", ts.URL+"/broken/server-card"))
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(servercard.WellKnownCatalogPath, cat)
	one, _ := servercard.AICatalog(0, servercard.Entry("urn:air:example.com:mcp:weather", ts.URL+"/mcp/server-card"))
	mux.Handle("/one.json", one)
	mux.HandleFunc("/broken/server-card", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", servercard.MediaType)
		_, _ = w.Write([]byte(`{"$schema":"` + servercard.SchemaURL + `","name":"no slash","version":"1","description":"d"}`))
	})
	return ts.URL
}

func TestCardCommand(t *testing.T) {
	base := cardHost(t)
	ctx := context.Background()
	code, stdout, stderr := mcpRun(t, ctx, "card", base+"/mcp/server-card")
	if code != ExitOK || !strings.Contains(stdout, "io.github.owner/weather 1.2.3") || !strings.Contains(stdout, "streamable-http "+base+"/mcp") {
		t.Errorf("card: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = mcpRun(t, ctx, "card", base+servercard.WellKnownCatalogPath)
	if code != ExitToolError || !strings.Contains(stdout, "urn:air:example.com:mcp:weather") || !strings.Contains(stdout, "INVALID") || !strings.Contains(stdout, "/name:") {
		t.Errorf("catalog: exit %d, %q", code, stdout)
	}
	if code, _, stderr := mcpRun(t, ctx, "card", base+"/broken/server-card"); code != ExitToolError || !strings.Contains(stderr, "/name:") {
		t.Errorf("invalid card: exit %d, %q", code, stderr)
	}
	if code, _, _ := mcpRun(t, ctx, "card", base+"/nothing"); code != ExitConnect {
		t.Errorf("404: exit %d", code)
	}
	// Any command reaches the server its card names.
	for _, target := range []string{"card:" + base + "/mcp/server-card", base + "/mcp/server-card", "card:" + base + "/one.json"} {
		out := runJSON(t, "info", "--json", target)
		if info, _ := out["serverInfo"].(map[string]any); info["name"] != "io.github.owner/weather" {
			t.Errorf("%s: %v", target, out)
		}
	}
	if _, _, stderr := mcpRun(t, ctx, "ping", "card:"+base+"/mcp/server-card"); !strings.Contains(stderr, "header X-Api-Key is required (your key)") {
		t.Errorf("no note of the required header: %q", stderr)
	}
	if _, _, stderr := mcpRun(t, ctx, "ping", "-H", "x-api-key: k", "card:"+base+"/mcp/server-card"); strings.Contains(stderr, "X-Api-Key") {
		t.Errorf("note despite -H: %q", stderr)
	}
	if code, _, stderr := mcpRun(t, ctx, "info", "card:"+base+servercard.WellKnownCatalogPath); code == ExitOK || !strings.Contains(stderr, "catalog of 2 servers") {
		t.Errorf("catalog of two: exit %d, %q", code, stderr)
	}
	if code, _, stderr := mcpRun(t, ctx, "info", "card:"+base+"/broken/server-card"); code != ExitUsage || !strings.Contains(stderr, "/name") {
		t.Errorf("broken card: exit %d, %q", code, stderr)
	}
}

// A server run as a command is matched against a stdio package.
func TestRegistryValidateAgainstCommand(t *testing.T) {
	entry := map[string]any{"$schema": serverjson.SchemaURL, "name": "io.github.gomcp/gomcp-everything-server", "version": "1.0.0", "description": "d"}
	remoteOnly := writeServerJSON(t, entry)
	code, _, stderr := mcpRun(t, context.Background(), "registry", "validate", remoteOnly, "--against", everythingBin)
	if code != ExitToolError || !strings.Contains(stderr, "/packages: the server was run as a command (stdio)") {
		t.Errorf("no package: exit %d, %q", code, stderr)
	}
	entry["packages"] = []any{map[string]any{"registryType": "oci", "identifier": "ghcr.io/gomcp/everything:1.0.0", "transport": map[string]any{"type": "stdio"}}}
	withPackage := writeServerJSON(t, entry)
	if code, stdout, stderr := mcpRun(t, context.Background(), "registry", "validate", withPackage, "--against", everythingBin); code != ExitOK {
		t.Errorf("stdio package: exit %d, %q %q", code, stdout, stderr)
	}
}
