//go:build interop

package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// TestServerFilesystem drives @modelcontextprotocol/server-filesystem, the
// reference file server (built on the TypeScript SDK 1.x, stdio only), with
// gomcp's client in its default configuration: the server/discover probe
// falls back to initialize at 2025-11-25, the newest revision the server
// speaks. The server starts with one allowed directory; the client's roots
// then replace it (the server asks for them once initialized and again on
// notifications/roots/list_changed), and every tool is called and its
// answer checked, the structured content validated against the tool's
// output schema by the client.
func TestServerFilesystem(t *testing.T) {
	t.Parallel()
	env := requireEnv(t, "SERVER_FILESYSTEM")
	base := t.TempDir()
	// The server resolves symbolic links in allowed directories.
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	dirA, dirB := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{dirA, dirB} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dirB, "b.txt"), []byte("in b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), 0, 1, 2, 3)
	if err := os.WriteFile(filepath.Join(dirA, "logo.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	stderr := &syncBuffer{}
	stream := &transport.CommandTransport{Cmd: exec.Command(env["SERVER_FILESYSTEM"], dirA), Stderr: stderr}
	client := mcp.NewClient(&mcp.Implementation{Name: "gomcp-interop-client", Version: "1.0.0"}, &mcp.ClientOptions{
		Roots:          []*mcp.Root{{URI: "file://" + dirA, Name: "a"}, {URI: "file://" + dirB, Name: "b"}},
		RequestTimeout: 30 * time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, stream)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("server-filesystem stderr:\n%s", stderr)
		}
	})
	call := func(t *testing.T, name string, args any) *mcp.CallToolResult {
		t.Helper()
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		return res
	}
	// text calls a tool whose answer is one text block, also in the
	// structured content {"content": text} its output schema declares.
	text := func(t *testing.T, name string, args any) string {
		t.Helper()
		res := call(t, name, args)
		got := oneText(t, res)
		if want := mustJSON(t, map[string]string{"content": got}); !jsonEqual(t, string(res.StructuredContent), want) {
			t.Errorf("%s: structuredContent %s, want %s", name, res.StructuredContent, want)
		}
		return got
	}

	t.Run("initialize", func(t *testing.T) {
		if got := cs.ProtocolVersion(); got != mcp.LatestStatefulVersion {
			t.Errorf("protocol version %q, want %q", got, mcp.LatestStatefulVersion)
		}
		init := cs.InitializeResult()
		if init.ServerInfo == nil || init.ServerInfo.Name != "secure-filesystem-server" {
			t.Errorf("serverInfo %s", mustJSON(t, init.ServerInfo))
		}
		if caps := cs.ServerCapabilities(); caps.Tools == nil {
			t.Errorf("capabilities %s", mustJSON(t, caps))
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			if tool.OutputSchema == nil || tool.Annotations == nil || tool.Title == "" {
				t.Errorf("%s: outputSchema %s, annotations %s, title %q", tool.Name, tool.OutputSchema, mustJSON(t, tool.Annotations), tool.Title)
			}
		}
		want := []string{"read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file",
			"create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "move_file", "search_files",
			"get_file_info", "list_allowed_directories"}
		if !slices.Equal(names, want) {
			t.Errorf("tools = %q\nwant    %q", names, want)
		}
	})

	t.Run("roots", func(t *testing.T) {
		// Once initialized, the server asks for the client's roots and
		// serves them instead of its command-line directory.
		want := "Allowed directories:\n" + dirA + "\n" + dirB
		waitFor(t, "the server to take the client's roots", func() bool {
			return text(t, "list_allowed_directories", map[string]any{}) == want
		})
		if got := text(t, "read_text_file", map[string]string{"path": filepath.Join(dirB, "b.txt")}); got != "in b\n" {
			t.Errorf("read b.txt = %q", got)
		}
		// Changing the roots notifies the server, which asks again.
		client.SetRoots(&mcp.Root{URI: "file://" + dirA, Name: "a"})
		waitFor(t, "the server to take the new roots", func() bool {
			return text(t, "list_allowed_directories", map[string]any{}) == "Allowed directories:\n"+dirA
		})
		res := call(t, "read_text_file", map[string]string{"path": filepath.Join(dirB, "b.txt")})
		if !res.IsError || !strings.Contains(mustJSON(t, res.Content), "Access denied") {
			t.Errorf("reading outside the roots: %s", mustJSON(t, res))
		}
	})

	t.Run("files", func(t *testing.T) {
		notes := filepath.Join(dirA, "notes.txt")
		if got := text(t, "write_file", map[string]string{"path": notes, "content": "one\ntwo\nthree\n"}); got != "Successfully wrote to "+notes {
			t.Errorf("write_file = %q", got)
		}
		if got := text(t, "read_text_file", map[string]any{"path": notes}); got != "one\ntwo\nthree\n" {
			t.Errorf("read_text_file = %q", got)
		}
		if got := text(t, "read_text_file", map[string]any{"path": notes, "head": 1}); got != "one" {
			t.Errorf("read_text_file head 1 = %q", got)
		}
		// The server counts the empty string after the last newline as a
		// line, as String.split does.
		if got := text(t, "read_text_file", map[string]any{"path": notes, "tail": 2}); got != "three\n" {
			t.Errorf("read_text_file tail 2 = %q", got)
		}
		edits := []map[string]string{{"oldText": "two", "newText": "2"}}
		diff := text(t, "edit_file", map[string]any{"path": notes, "edits": edits, "dryRun": true})
		if !strings.Contains(diff, "-two\n+2") {
			t.Errorf("edit_file dry run = %q", diff)
		}
		text(t, "edit_file", map[string]any{"path": notes, "edits": edits})
		if b, err := os.ReadFile(notes); err != nil || string(b) != "one\n2\nthree\n" {
			t.Errorf("after edit_file: %q, %v", b, err)
		}
		sub := filepath.Join(dirA, "sub", "deeper")
		if got := text(t, "create_directory", map[string]string{"path": sub}); got != "Successfully created directory "+sub {
			t.Errorf("create_directory = %q", got)
		}
		moved := filepath.Join(sub, "moved.txt")
		if got := text(t, "move_file", map[string]string{"source": notes, "destination": moved}); got != "Successfully moved "+notes+" to "+moved {
			t.Errorf("move_file = %q", got)
		}
		if got := text(t, "list_directory", map[string]string{"path": dirA}); got != "[FILE] logo.png\n[DIR] sub" && got != "[DIR] sub\n[FILE] logo.png" {
			t.Errorf("list_directory = %q", got)
		}
		if got := text(t, "list_directory_with_sizes", map[string]string{"path": dirA}); !strings.Contains(got, "logo.png") || !strings.Contains(got, "12 B") {
			t.Errorf("list_directory_with_sizes = %q", got)
		}
		var tree []struct {
			Name, Type string
			Children   []json.RawMessage
		}
		if err := json.Unmarshal([]byte(text(t, "directory_tree", map[string]string{"path": dirA})), &tree); err != nil || len(tree) != 2 {
			t.Errorf("directory_tree = %+v, %v", tree, err)
		}
		if got := text(t, "search_files", map[string]string{"path": dirA, "pattern": "**/*.txt"}); got != moved {
			t.Errorf("search_files = %q", got)
		}
		if got := text(t, "get_file_info", map[string]string{"path": moved}); !strings.Contains(got, "size: 12\n") || !strings.Contains(got, "isFile: true") {
			t.Errorf("get_file_info = %q", got)
		}
		res := call(t, "read_multiple_files", map[string]any{"paths": []string{moved, filepath.Join(dirA, "missing.txt")}})
		if got := oneText(t, res); !strings.Contains(got, moved+":\none\n2\nthree\n") || !strings.Contains(got, "missing.txt: Error") {
			t.Errorf("read_multiple_files = %q", got)
		}
		res = call(t, "read_media_file", map[string]string{"path": filepath.Join(dirA, "logo.png")})
		if len(res.Content) != 1 {
			t.Fatalf("read_media_file = %s", mustJSON(t, res))
		}
		img, ok := res.Content[0].(*mcp.ImageContent)
		if !ok {
			t.Fatalf("read_media_file block is %T", res.Content[0])
		}
		if data, err := img.DecodeData(); err != nil || string(data) != string(png) || img.MIMEType != "image/png" {
			t.Errorf("read_media_file = %q %s, %v", data, img.MIMEType, err)
		}
		res = call(t, "write_file", map[string]string{"path": filepath.Join(base, "escape.txt"), "content": "x"})
		if !res.IsError {
			t.Errorf("write outside the roots: %s", mustJSON(t, res))
		}
		if _, err := os.Stat(filepath.Join(base, "escape.txt")); !os.IsNotExist(err) {
			t.Errorf("the file outside the roots was written: %v", err)
		}
	})

	t.Run("close", func(t *testing.T) {
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		if err := stream.Wait(); err != nil {
			t.Errorf("server-filesystem exited with %v once stdin closed", err)
		}
	})
}
