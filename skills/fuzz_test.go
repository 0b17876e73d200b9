package skills_test

import (
	"errors"
	"testing"

	"github.com/gomcp/sdk/skills"
)

// FuzzParseFrontmatter checks that no input crashes the parser, and that
// what it accepts compares equal to itself.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\r\nname: a\r\n---\r\n",
		"\ufeff---\nx: &a [1, *a]\n---\n",
		"---\na: {b: [1, 2.5, true, null, 2024-01-01]}\n---\n",
		"---\n- x\n---\n",
		"---\nname: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := skills.ParseFrontmatter(data)
		if err != nil {
			if !errors.Is(err, skills.ErrFrontmatter) {
				t.Fatalf("error %v does not wrap ErrFrontmatter", err)
			}
			return
		}
		if err := skills.CompareFrontmatter(fm, fm); err != nil {
			t.Fatal(err)
		}
	})
}
