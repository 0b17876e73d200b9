package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The protocol revisions the servers are compared at: the original (a
// go-sdk or mcp-go server) speaks the stateful one; the migrated server
// must also answer at the stateless one with the same lists and answers.
const (
	stateful  = "2025-11-25"
	stateless = "2026-07-28"
)

// A serverExample is an example program that serves MCP over stdio when
// run with args, and the tool calls its original and migrated versions
// must answer alike (besides a call with no arguments of every tool, and a
// get of every prompt and a read of every resource listed).
type serverExample struct {
	prog  string // peer dir and program path, as in TestExamples
	args  []string
	calls []toolCall
	// volatile are answers (keys of observe's map, by prefix) that differ
	// from run to run (random IDs, times): only their kind is compared.
	volatile []string
	// sessionBound are answers (keys of observe's map) compared at
	// 2025-11-25 only, with why: they need a session, which a 2026-07-28
	// client does not have, or the revision changes them by design.
	sessionBound map[string]string
	// broken says why the migrated server does not serve yet: the test
	// checks that it still does not (so the entry goes when it is fixed).
	broken string
}

type toolCall struct {
	name string
	args string // JSON object
}

// serverExamples are the example programs that are MCP servers over stdio.
// Programs that only serve HTTP on fixed ports, need an authorization
// server, or fan out to child processes are left out (see the guides'
// FIGURES sections).
var serverExamples = []serverExample{
	{prog: "gosdk/server/hello", calls: []toolCall{{"greet", `{"name":"Ada"}`}}},
	{prog: "gosdk/server/toolschemas", calls: []toolCall{{"simple greeting", `{"name":"Ada"}`}, {"manual greeting", `{"name":"Ada"}`}}},
	{prog: "gosdk/server/everything", calls: []toolCall{{"greet", `{"name":"Ada"}`}, {"greet (structured)", `{"name":"Ada"}`}},
		sessionBound: map[string]string{"tools/call {} ping": "the tool pings the client through req.Session.Ping, a session's request"}},
	{prog: "gosdk/server/memory", calls: []toolCall{
		{"create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote programs"]}]}`},
		{"read_graph", `{}`}, {"search_nodes", `{"query":"Ada"}`},
	}},
	{prog: "gosdk/server/sequentialthinking", calls: []toolCall{{"start_thinking", `{"problem":"2+2","estimatedSteps":2}`}},
		volatile: []string{"tools/call start_thinking", "resources/read"}},
	{prog: "gosdk/server/custom-transport", calls: []toolCall{{"greet", `{"name":"Ada"}`}}},
	{prog: "mcpgo/typed_tools", calls: []toolCall{{"greeting", `{"name":"Ada","age":36,"is_vip":true,"languages":["en"]}`}}},
	{prog: "mcpgo/structured_input_and_output", calls: []toolCall{{"get_weather", `{"location":"Paris"}`}, {"get_user_profile", `{"userId":"1"}`}},
		broken: "gomcp refuses an output schema whose root is not an object (get_assets returns []Asset; the specification requires type object), and a server with a failed registration does not serve"},
	{prog: "mcpgo/everything", calls: []toolCall{{"echo", `{"message":"hi"}`}, {"add", `{"a":1,"b":2}`}},
		sessionBound: map[string]string{"tools/call {} longRunningOperation": "the original reads request.Params.Meta.ProgressToken with no nil check and fails on a request without _meta; at 2026-07-28 every request has one (the revision's own), so the migrated tool runs to its answer"}},
	{prog: "mcpgo/custom_context", args: []string{"-t", "stdio"}},
}

// checkBehaviour runs every server example that builds after migration
// (migrated tree dir, TestExamples' vet failures fails) beside its
// original, connects gomcp's client to both over stdio and compares what
// they list and answer, at 2025-11-25 (original and migrated) and
// 2026-07-28 (the migrated one, against its own 2025-11-25 answers).
func checkBehaviour(t *testing.T, dir string, fails map[string]string) {
	orig := setupExamples(t)
	bin := t.TempDir()
	driver := filepath.Join(bin, "driver")
	src, err := os.ReadFile(filepath.Join("testdata", "driver", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	ddir := filepath.Join(dir, "mcpmigrate_driver")
	if err := os.MkdirAll(ddir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ddir, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", driver, "./mcpmigrate_driver")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	if err := os.RemoveAll(ddir); err != nil {
		t.Fatal(err)
	}
	var todo []serverExample
	for _, ex := range serverExamples {
		if _, bad := fails[ex.prog]; bad {
			t.Logf("%s: not compared (does not build after migration)", ex.prog)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, ex.prog)); err != nil {
			continue
		}
		todo = append(todo, ex)
	}
	// Build both versions of each: one go build per tree and peer, which
	// shares the work between the programs (their names differ per peer).
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(peers))
	for j, tree := range []string{orig, dir} {
		for _, p := range peers {
			var pkgs []string
			for _, ex := range todo {
				if strings.HasPrefix(ex.prog, p.dir+"/") {
					pkgs = append(pkgs, "./"+ex.prog)
				}
			}
			if len(pkgs) == 0 {
				continue
			}
			out := filepath.Join(bin, fmt.Sprintf("%s.%d", p.dir, j))
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command("go", append([]string{"build", "-o", out + string(filepath.Separator)}, pkgs...)...)
				cmd.Dir = tree
				if b, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("go build in %s: %v\n%s", tree, err, b)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, ex := range todo {
		t.Run(strings.ReplaceAll(ex.prog, "/", "_"), func(t *testing.T) {
			compareServer(t, driver, ex, binPath(bin, ex.prog, 0), binPath(bin, ex.prog, 1))
		})
	}
}

// binPath is where checkBehaviour built a program: version 0 is the
// original, 1 the migrated one.
func binPath(dir, prog string, version int) string {
	peer, _, _ := strings.Cut(prog, "/")
	return filepath.Join(dir, fmt.Sprintf("%s.%d", peer, version), filepath.Base(prog))
}

// compareServer compares the original and migrated server of one example.
func compareServer(t *testing.T, driver string, ex serverExample, origBin, migBin string) {
	want, err := observe(driver, ex, origBin, stateful)
	if err != nil {
		t.Fatalf("original at %s: %v", stateful, err)
	}
	if ex.broken != "" {
		if _, err := observe(driver, ex, migBin, stateful); err == nil {
			t.Errorf("the migrated server serves now: remove its broken note (%s)", ex.broken)
		} else {
			t.Logf("not compared: %s", ex.broken)
		}
		return
	}
	for _, v := range []string{stateful, stateless} {
		got, err := observe(driver, ex, migBin, v)
		if err != nil {
			t.Errorf("migrated at %s: %v", v, err)
			continue
		}
		keys := map[string]bool{}
		for k := range want {
			keys[k] = true
		}
		for k := range got {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if why, ok := ex.sessionBound[k]; ok && v == stateless {
				t.Logf("%s at %s: not compared: %s", k, v, why)
				continue
			}
			if !reflect.DeepEqual(want[k], got[k]) {
				w, _ := json.Marshal(want[k])
				g, _ := json.Marshal(got[k])
				t.Errorf("migrated at %s, %s:\n got  %s\n want %s (the original at %s)", v, k, g, w, stateful)
			}
		}
	}
}

// observe runs the driver (testdata/driver) on a server and returns what
// it saw, normalized.
func observe(driver string, ex serverExample, bin, version string) (map[string]any, error) {
	type call struct {
		Key, Name, Alt string
		Args           json.RawMessage
	}
	var calls []call
	for _, c := range ex.calls {
		calls = append(calls, call{Key: normName(c.name) + " " + c.args, Name: c.name, Alt: normName(c.name), Args: json.RawMessage(c.args)})
	}
	cj, err := json.Marshal(calls)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(driver, append([]string{"-version", version, "-calls", string(cj), "--", bin}, ex.args...)...)
	cmd.Dir = filepath.Dir(bin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	var raw map[string]any
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, err
	}
	seen := map[string]any{}
	for k, v := range raw {
		if rest, ok := strings.CutPrefix(k, "tools/call {} "); ok {
			k = "tools/call {} " + normName(rest)
		}
		v = normalize(v)
		if strings.HasSuffix(k, "/list") {
			v = sortList(v)
		}
		for _, prefix := range ex.volatile {
			if strings.HasPrefix(k, prefix) && v != "error" {
				v = "answered"
			}
		}
		seen[k] = v
	}
	return seen, nil
}

// sortList sorts a listed feature by name (or URI): go-sdk sorts its
// lists, gomcp keeps registration order (a documented difference).
func sortList(v any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	key := func(e any) string {
		m, _ := e.(map[string]any)
		for _, k := range []string{"name", "uri", "uriTemplate"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
		return ""
	}
	sort.SliceStable(l, func(i, j int) bool { return key(l[i]) < key(l[j]) })
	return l
}

// normalize removes what the SDKs differ in by design (documented in
// docs/migrate-from-*.md): _meta; the names gomcp refuses, which the edits
// their TODOs name replace (normName); the wording of errors (an error
// result keeps only isError, a protocol error only that it is one); and a
// null list, which is an empty one.
func normalize(v any) any {
	switch v := v.(type) {
	case nil:
		return []any{}
	case map[string]any:
		if _, ok := v["error"].(string); ok && len(v) == 1 {
			return "error" // a protocol error
		}
		if v["isError"] == true {
			return "error" // an error result: mcp-go sent a handler's error as a protocol error
		}
		out := map[string]any{}
		for k, e := range v {
			switch k {
			case "_meta", "resultType", "cacheScope", "ttlMs":
				continue // per revision, not per SDK: see the guides
			case "type":
				e = nonNullType(e)
			case "name":
				if s, ok := e.(string); ok {
					e = normName(s)
				}
			}
			out[k] = normalizeValue(e)
		}
		// go-sdk's schema for an untyped input (In any) is open, the
		// migrated struct{} closed: the same for a call without arguments.
		if out["type"] == "object" && out["additionalProperties"] == false && out["properties"] == nil {
			delete(out, "additionalProperties")
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalizeValue(e)
		}
		return out
	}
	return v
}

// nonNullType drops "null" from a schema's type list: go-sdk (and mcp-go's
// typed tools) mark pointer and slice fields nullable, gomcp's inference
// does not mark them (a documented difference).
func nonNullType(e any) any {
	l, ok := e.([]any)
	if !ok {
		return e
	}
	var types []string
	for _, t := range l {
		if s, ok := t.(string); ok && s != "null" {
			types = append(types, s)
		}
	}
	if len(types) == 1 {
		return types[0]
	}
	sort.Strings(types)
	out := make([]any, len(types))
	for i, s := range types {
		out[i] = s
	}
	return out
}

// normalizeValue is normalize below the top level, where null stays null.
func normalizeValue(v any) any {
	if v == nil {
		return nil
	}
	return normalize(v)
}

// normName is a tool name as the migrated server spells it once the edit
// its TODO names is made: gomcp refuses names outside [A-Za-z0-9_.-].
func normName(s string) string {
	if toolNameRE.MatchString(s) {
		return s
	}
	return safeName(s)
}
