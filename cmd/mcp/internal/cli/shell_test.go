package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func TestShellPiped(t *testing.T) {
	input := strings.Join([]string{
		"tools",
		"",
		"# a comment",
		"call test_simple_text",
		"call --json test_sampling prompt=hi", // declined: stdin is not a terminal
		"bogus",
		`get test_prompt_with_arguments arg1="a b" arg2=c`,
		"read test://static-text",
		"call test_error_handling",
		"ping --json",
		"exit",
		"tools", // not reached
	}, "\n")
	code, out, errs := mcpRunInput(t, context.Background(), input, "shell", everythingBin)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"test_simple_text", // the tools table
		"This is a simple text response for testing.",
		"Prompt with arguments: arg1='a b', arg2='c'",
		`"ok": true`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "NAME"); n != 1 {
		t.Errorf("tools ran %d times, want once (exit ends the shell)", n)
	}
	for _, want := range []string{`unknown command "bogus"`, "sampling", "refused under --no-input"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestShellAnswersFromInput: with --no-input=false the server's questions
// take the lines after the command.
func TestShellAnswersFromInput(t *testing.T) {
	input := "call test_elicitation message=who?\nalice\nalice@example.com\ny\ncall test_simple_text\n"
	code, out, errs := mcpRunInput(t, context.Background(), input, "shell", "--no-input=false", everythingBin)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"username":"alice"`) || !strings.Contains(out, "This is a simple text response") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
}

func TestLineEditor(t *testing.T) {
	complete := func(line string) (int, []string) {
		start := strings.LastIndexByte(line, ' ') + 1
		var out []string
		for _, c := range []string{"call", "calls", "tools", "x="} {
			if strings.HasPrefix(c, line[start:]) {
				out = append(out, c)
			}
		}
		return start, out
	}
	for _, tc := range []struct {
		name  string
		input string
		want  []string // the lines read, then the error that ended
		end   error
	}{
		{"plain", "abc\r", []string{"abc"}, io.EOF},
		{"backspace", "abx\x7fc\r", []string{"abc"}, io.EOF},
		{"left and insert", "ac\x1b[Db\r", []string{"abc"}, io.EOF},
		{"home and end", "bc\x01a\x05d\r", []string{"abcd"}, io.EOF},
		{"delete key", "abxc\x1b[D\x1b[D\x1b[3~\r", []string{"abc"}, io.EOF},
		{"kill to end", "abcdef\x01\x1b[C\x1b[C\x1b[C\x0b\r", []string{"abc"}, io.EOF},
		{"kill to start", "xyzabc\x01\x1b[C\x1b[C\x1b[C\x15\x05\r", []string{"abc"}, io.EOF},
		{"history up", "one\rtwo\r\x1b[A\x1b[A\r", []string{"one", "two", "one"}, io.EOF},
		{"history up and down", "one\rnew\x1b[A\x1b[B!\r", []string{"one", "new!"}, io.EOF},
		{"tab: only candidate", "to\t\r", []string{"tools "}, io.EOF},
		{"tab: common prefix", "ca\t\r", []string{"call"}, io.EOF},
		{"tab: key=", "call x\tv\r", []string{"call x=v"}, io.EOF},
		{"tab: nothing", "zz\t\r", []string{"zz"}, io.EOF},
		{"ctrl-c drops the line", "abc\x03", nil, errInterrupted},
		{"ctrl-d on empty line", "\x04", nil, io.EOF},
		{"ctrl-d deletes otherwise", "ab\x01\x04\r", []string{"b"}, io.EOF},
		{"unicode", "héllo\x7f\x7f\x7f\x7f\r", []string{"h"}, io.EOF},
		{"eof ends a last line", "tail", []string{"tail"}, io.EOF},
		{"control bytes ignored", "a\x07b\r", []string{"ab"}, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &lineEditor{in: bufio.NewReader(strings.NewReader(tc.input)), out: &out, complete: complete}
			var got []string
			var err error
			for {
				var line string
				if line, err = e.readLine("> "); err != nil {
					break
				}
				got = append(got, line)
			}
			if !reflect.DeepEqual(got, tc.want) || !errors.Is(err, tc.end) {
				t.Errorf("lines %q, end %v; want %q, %v", got, err, tc.want, tc.end)
			}
		})
	}
}

func TestLineEditorListsCandidates(t *testing.T) {
	var out bytes.Buffer
	e := &lineEditor{in: bufio.NewReader(strings.NewReader("c\t\r")), out: &out,
		complete: func(string) (int, []string) { return 0, []string{"call", "complete"} }}
	if _, err := e.readLine("> "); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "call  complete") {
		t.Errorf("candidates not listed: %q", out.String())
	}
}

func TestShellCompletion(t *testing.T) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(ctx, mcphttp.NewClientStream(everythingURL(t), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sh := &shellState{ctx: ctx, cs: cs}
	for _, tc := range []struct {
		line  string
		start int
		want  []string
	}{
		{"too", 0, []string{"tools"}},
		{"p", 0, []string{"ping", "prompts"}},
		{"call test_elicitation_sep", 5, []string{"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"}},
		{"call test_sampling ", 19, []string{"prompt="}},
		{"call test_sampling prompt=x ", 28, nil},
		{"call --json test_sampling p", 26, []string{"prompt="}},
		{"get test_prompt_with_a", 4, []string{"test_prompt_with_arguments"}},
		{"get test_prompt_with_arguments arg1=x ", 38, []string{"arg2="}},
		{"complete test_prompt_with_arguments ", 36, []string{"arg1=", "arg2="}},
		{"read test://static-", 5, []string{"test://static-binary", "test://static-text"}},
		{"call --js", 5, []string{"--json"}},
		{"help ca", 5, []string{"call", "card"}},
		{"ro", 0, []string{"roots"}},
		{"tasks ", 6, []string{"cancel", "get", "list", "result"}},
		{"log-level w", 10, []string{"warning"}},
		{"schema test_simple_t", 7, []string{"test_simple_text"}},
		{"call --ta", 5, []string{"--task"}},
	} {
		start, got := sh.complete(tc.line)
		if start != tc.start || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete(%q) = %d %q, want %d %q", tc.line, start, got, tc.start, tc.want)
		}
	}
}

// TestHistoryFile: the shell's history survives in a file, private,
// bounded to the last maxHistory lines.
func TestHistoryFile(t *testing.T) {
	many := make([]string, maxHistory+5)
	for i := range many {
		many[i] = fmt.Sprintf("call echo n=%d", i)
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"empty", nil, nil},
		{"some", []string{"tools", "call echo s=x"}, []string{"tools", "call echo s=x"}},
		{"bounded", many, many[5:]},
		{"too long or broken lines left out", []string{"ping", strings.Repeat("x", maxHistoryLine+1), "a\nb", "info"}, []string{"ping", "info"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gomcp", "shell_history")
			if err := saveHistory(path, tc.lines); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			if got := loadHistory(path); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("loaded %d lines %q..., want %d", len(got), got[:min(len(got), 2)], len(tc.want))
			}
		})
	}
	if got := loadHistory(filepath.Join(t.TempDir(), "none")); got != nil {
		t.Errorf("missing file: %q", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "/somewhere")
	if runtime.GOOS == "linux" && HistoryPath() != "/somewhere/gomcp/shell_history" {
		t.Errorf("HistoryPath %q", HistoryPath())
	}
}
