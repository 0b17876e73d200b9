package gateway

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestParseAccess reads an access file, with comments and trailing commas,
// into rules that remember their lines.
func TestParseAccess(t *testing.T) {
	rules, err := ParseAccess([]byte(`{
  // who sees what
  "access": [
    {"upstream": "github", "scopes": ["github:read"]},
    {"upstream": "db", "names": ["query"],
     "principals": ["\"https://as.example.com\" sub \"alice\""]},
  ]
}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Upstream: "github", Scopes: []string{"github:read"}, line: 4},
		{Upstream: "db", Names: []string{"query"}, Principals: []string{`"https://as.example.com" sub "alice"`}, line: 5},
	}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("got %+v\nwant %+v", rules, want)
	}
	if rules, err := ParseAccess([]byte(`{"access": []}`)); err != nil || len(rules) != 0 {
		t.Errorf("an empty list: %v %v", rules, err)
	}
}

// TestParseAccessErrors: every mistake is refused, naming the rule and
// its line.
func TestParseAccessErrors(t *testing.T) {
	many := `{"access": [` + strings.Repeat(`{"upstream": "a"},`, maxRules+1) + `]}`
	tests := []struct {
		name, file string
		want       []string
	}{
		{"unknown field", "{\"access\": [\n{\"upstream\": \"a\"},\n{\"upstream\": \"a\", \"nmaes\": [\"x\"]}]}", []string{"rule 2 (line 3)", `unknown field "nmaes"`}},
		{"wrong type", "{\"access\": [\n\n{\"upstream\": \"a\", \"scopes\": \"read\"}]}", []string{"rule 1 (line 3)", "scopes: want an array"}},
		{"field twice", `{"access": [{"upstream": "a", "scopes": ["admin"], "scopes": []}]}`, []string{"rule 1", `field "scopes" is given twice`}},
		{"no upstream", `{"access": [{"scopes": ["s"]}]}`, []string{"rule 1", "no upstream"}},
		{"empty name", `{"access": [{"upstream": "a", "names": [""]}]}`, []string{"names: an empty string"}},
		{"scope with a space", `{"access": [{"upstream": "a", "scopes": ["read write"]}]}`, []string{`"read write" is not a scope token`}},
		{"control character", `{"access": [{"upstream": "a", "principals": ["x\u0007"]}]}`, []string{"principals", "control"}},
		{"rule not an object", `{"access": ["a"]}`, []string{"rule 1", "want an object"}},
		{"access not an array", `{"access": {"upstream": "a"}}`, []string{`"access" must be an array`}},
		{"other top-level field", "{\"access\": [],\n \"rules\": []}", []string{"line 2", `unexpected field "rules"`}},
		{"access twice", `{"access": [], "access": []}`, []string{`unexpected field "access"`}},
		{"no access", `{}`, []string{`no "access" field`}},
		{"not an object", `[]`, []string{"want an object"}},
		{"not JSON", `{"access": [{"upstream": }]}`, []string{"not JSON"}},
		{"two values", `{"access": []} {}`, []string{"more than one JSON value"}},
		{"too many rules", many, []string{fmt.Sprintf("more than %d rules", maxRules)}},
		{"too large", `{"access": [` + strings.Repeat(" ", MaxAccessSize) + `]}`, []string{"larger than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAccess([]byte(tt.file))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestConfigAccess: a configuration file may carry the rules as its
// "access" field, read as strictly; New refuses a rule naming an upstream
// that is not configured, with its line.
func TestConfigAccess(t *testing.T) {
	cfg, err := parseConfig([]byte(`{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}},
"access": [
  {"upstream": "a", "scopes": ["a:use"]},
  {"upstream": "c", "scopes": ["c:use"]}
]}`), lookupTest)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Access) != 2 || cfg.Access[0].Upstream != "a" || cfg.Access[1].line != 4 {
		t.Fatalf("access %+v", cfg.Access)
	}
	_, err = New(cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `rule at line 4 names upstream "c"`) {
		t.Errorf("New: %v", err)
	}
	_, err = parseConfig([]byte(`{"mcpServers": {"a": {"command": "x"}}, "access": [{"upstream": "a", "scope": ["s"]}]}`), lookupTest)
	if err == nil || !strings.Contains(err.Error(), `unknown field "scope"`) {
		t.Errorf("a mistaken rule in a configuration: %v", err)
	}
	cfg, err = parseConfig([]byte(`{"mcpServers": {"a": {"url": "https://h/mcp", "auth": "oauth"}}}`), lookupTest)
	if err != nil || cfg.Servers["a"].Auth != AuthOAuth {
		t.Errorf(`"auth": "oauth": %+v, %v`, cfg, err)
	}
	for file, want := range map[string]string{
		`{"mcpServers": {"a": {"url": "https://h/mcp", "auth": "basic"}}}`: `auth "basic"`,
		`{"mcpServers": {"a": {"command": "x", "auth": "oauth"}}}`:         "applies to a url",
	} {
		if _, err := parseConfig([]byte(file), lookupTest); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}

// TestDocsExamples parses the JSON examples of docs/gateway.md: the
// configuration, the access file, and the two together in New.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/gateway.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1)
	var cfg *Config
	var rules []Rule
	for _, b := range blocks {
		switch {
		case strings.Contains(string(b[1]), `"mcpServers"`) && cfg == nil:
			cfg, err = parseConfig(b[1], func(string) (string, bool) { return "x", true })
		case strings.HasPrefix(string(b[1]), `{"access"`) || strings.HasPrefix(string(b[1]), "{\n  \"access\""):
			rules, err = ParseAccess(b[1])
		}
		if err != nil {
			t.Fatalf("%s: %v", b[1], err)
		}
	}
	if cfg == nil || len(rules) == 0 {
		t.Fatalf("docs/gateway.md has no configuration (%v) or no access file (%d rules)", cfg != nil, len(rules))
	}
	if _, err := New(cfg, &Options{Access: rules}); err != nil {
		t.Errorf("the documented rules with the documented configuration: %v", err)
	}
}
