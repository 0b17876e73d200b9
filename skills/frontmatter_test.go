package skills_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gomcp/sdk/skills"
)

func TestParseFrontmatter(t *testing.T) {
	bomb := "---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nname: n\n---\n"
	tests := []struct {
		name, in string
		want     string // the JSON-ish fmt of name and description; "" for an error
	}{
		{"plain", "---\nname: a\ndescription: b\n---\nbody", "a|b"},
		{"crlf", "---\r\nname: a\r\ndescription: b\r\n---\r\nbody", "a|b"},
		{"bom", "\ufeff---\nname: a\ndescription: b\n---\n", "a|b"},
		{"end of file", "---\nname: a\ndescription: b\n---", "a|b"},
		{"trailing blanks", "--- \nname: a\ndescription: b\n---\t\n", "a|b"},
		{"quoted", "---\nname: \"a\"\ndescription: 'x: y'\n---\n", "a|x: y"},
		{"folded", "---\nname: a\ndescription: >\n  one\n  two\n---\n", "a|one two\n"},
		{"no opening", "name: a\n---\n", ""},
		{"no closing", "---\nname: a\n", ""},
		{"empty", "", ""},
		{"not a mapping", "---\n- a\n- b\n---\n", ""},
		{"scalar", "---\nhello\n---\n", ""},
		{"invalid yaml", "---\nname: [a\n---\n", ""},
		{"duplicate key", "---\nname: a\nname: b\n---\n", ""},
		{"complex key", "---\n? [a]\n: b\n---\n", ""},
		{"infinity", "---\nname: a\nx: .inf\n---\n", ""},
		{"alias bomb", bomb, ""},
		{"too long", "---\nname: a\ndescription: " + strings.Repeat("x", skills.MaxFrontmatterSize) + "\n---\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := skills.ParseFrontmatter([]byte(tt.in))
			if tt.want == "" {
				if !errors.Is(err, skills.ErrFrontmatter) {
					t.Fatalf("got %v, %v; want an ErrFrontmatter", fm, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fm.Name() + "|" + fm.Description(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFrontmatterValues(t *testing.T) {
	fm, err := skills.ParseFrontmatter([]byte("---\nname: a\ndescription: b\nn: 3\nf: 1.5\nt: true\nz: null\nd: 2024-01-02\nl: [1, x]\nm: {k: v}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The same values as JSON decodes them compare equal.
	entry := skills.Frontmatter{"name": "a", "description": "b", "n": 3.0, "f": 1.5, "t": true, "z": nil,
		"d": "2024-01-02", "l": []any{1.0, "x"}, "m": map[string]any{"k": "v"}}
	if err := skills.CompareFrontmatter(entry, fm); err != nil {
		t.Error(err)
	}
	entry["m"] = map[string]any{"k": "w"}
	delete(entry, "z")
	err = skills.CompareFrontmatter(entry, fm)
	if err == nil || !strings.Contains(err.Error(), `"m" "z"`) {
		t.Errorf("got %v, want m and z to differ", err)
	}
}
