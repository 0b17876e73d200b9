package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeInstall runs the commands of the README's "Put it in my
// editor" section, in order, in a scratch home and project: each must
// succeed, and the last (uninstall) must leave no entry behind.
func TestReadmeInstall(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(md), "## Put it in my editor\n")
	_, block, ok2 := strings.Cut(sec, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no sh block in the README's Put it in my editor section")
	}
	home := t.TempDir()
	for _, k := range []string{"XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Chdir(t.TempDir())
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		words := shellWords(t, line)
		if len(words) == 0 || words[0] != "mcp" {
			t.Fatalf("not an mcp command: %s", line)
		}
		var out, errb bytes.Buffer
		if code := Run(context.Background(), words[1:], strings.NewReader(""), &out, &errb); code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", line, code, out.String(), errb.String())
		}
		ran++
	}
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"list-installed"}, strings.NewReader(""), &out, &errb); code != ExitOK || strings.Contains(out.String(), "weather") {
		t.Fatalf("after the README's uninstall: %d\n%s%s", code, out.String(), errb.String())
	}
	if ran < 5 {
		t.Fatalf("ran %d commands", ran)
	}
}

// shellWords splits a README command line as sh would for these simple
// lines: words, single and double quotes, and a trailing # comment.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				t.Fatalf("unbalanced quote: %s", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(line)
		case c == '$' || c == '~' || c == '`':
			t.Fatalf("shell expansion in a README command: %s", line)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
