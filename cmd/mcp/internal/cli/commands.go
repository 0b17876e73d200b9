package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// printJSON writes v as one indented JSON document.
func (inv *invocation) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(inv.stdout, "%s\n", b)
	return err
}

// table writes rows as aligned columns under header.
func (inv *invocation) table(header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(inv.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// pairs writes rows of a label and its value, the values aligned.
func (inv *invocation) pairs(rows [][]string) error {
	tw := tabwriter.NewWriter(inv.stdout, 0, 4, 1, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// oneLine shortens s to its first line.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func runInfo(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	type info struct {
		ProtocolVersion string                  `json:"protocolVersion"`
		Stateless       bool                    `json:"stateless"`
		ServerInfo      *mcp.Implementation     `json:"serverInfo"`
		Capabilities    *mcp.ServerCapabilities `json:"capabilities"`
		Instructions    string                  `json:"instructions,omitempty"`
	}
	out := info{ProtocolVersion: cs.ProtocolVersion(), Stateless: cs.Stateless(), Capabilities: cs.ServerCapabilities()}
	if ir := cs.InitializeResult(); ir != nil {
		out.ServerInfo, out.Instructions = ir.ServerInfo, ir.Instructions
	}
	if out.ServerInfo == nil {
		out.ServerInfo = &mcp.Implementation{}
	}
	if inv.json {
		return inv.printJSON(out)
	}
	c := out.Capabilities
	var caps []string
	for _, x := range []struct {
		name string
		on   bool
	}{{"tools", c.Tools != nil}, {"resources", c.Resources != nil}, {"prompts", c.Prompts != nil},
		{"completions", c.Completions != nil}, {"logging", c.Logging != nil}, {"tasks", c.Tasks != nil}} {
		if x.on {
			caps = append(caps, x.name)
		}
	}
	name := out.ServerInfo.Name
	if out.ServerInfo.Title != "" {
		name += " (" + out.ServerInfo.Title + ")"
	}
	rows := [][]string{
		{"server:", name + " " + out.ServerInfo.Version},
		{"protocol:", out.ProtocolVersion + map[bool]string{true: " (stateless)", false: ""}[out.Stateless]},
		{"capabilities:", strings.Join(caps, ", ")},
	}
	if err := inv.pairs(rows); err != nil {
		return err
	}
	if out.Instructions != "" {
		fmt.Fprintf(inv.stdout, "\n%s\n", out.Instructions)
	}
	return nil
}

// collect gathers every item of seq.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	all := []T{}
	for x, err := range seq {
		if err != nil {
			return nil, err
		}
		all = append(all, x)
	}
	return all, nil
}

func runTools(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	tools, err := collect(cs.Tools(ctx, nil))
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(map[string]any{"tools": tools})
	}
	var rows [][]string
	for _, t := range tools {
		in, _ := t.InputSchema.(json.RawMessage) // a listed tool's schema is raw JSON
		rows = append(rows, []string{t.Name, schemaSummary(in), oneLine(t.Description)})
	}
	return inv.table([]string{"NAME", "ARGUMENTS", "DESCRIPTION"}, rows)
}

// schemaSummary lists an input schema's properties, required ones first
// and unmarked, optional ones with a trailing '?'.
func schemaSummary(raw json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok {
			parts = append(parts, r)
			seen[r] = true
		}
	}
	var opt []string
	for k := range s.Properties {
		if !seen[k] {
			opt = append(opt, k+"?")
		}
	}
	slices.Sort(opt)
	return strings.Join(append(parts, opt...), " ")
}

func runResources(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	rs, err := collect(cs.Resources(ctx, nil))
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(map[string]any{"resources": rs})
	}
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{r.URI, r.Name, r.MIMEType, oneLine(r.Description)})
	}
	return inv.table([]string{"URI", "NAME", "TYPE", "DESCRIPTION"}, rows)
}

func runTemplates(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	ts, err := collect(cs.ResourceTemplates(ctx, nil))
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(map[string]any{"resourceTemplates": ts})
	}
	var rows [][]string
	for _, t := range ts {
		rows = append(rows, []string{t.URITemplate, t.Name, t.MIMEType, oneLine(t.Description)})
	}
	return inv.table([]string{"URI TEMPLATE", "NAME", "TYPE", "DESCRIPTION"}, rows)
}

func runPrompts(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	ps, err := collect(cs.Prompts(ctx, nil))
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(map[string]any{"prompts": ps})
	}
	var rows [][]string
	for _, p := range ps {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				args = append(args, a.Name)
			} else {
				args = append(args, a.Name+"?")
			}
		}
		rows = append(rows, []string{p.Name, strings.Join(args, " "), oneLine(p.Description)})
	}
	return inv.table([]string{"NAME", "ARGUMENTS", "DESCRIPTION"}, rows)
}

// withProgress prints the server's progress on stderr: on a terminal one
// line rewritten in place, otherwise a line per notification. It returns a
// function that ends the line.
func (inv *invocation) withProgress(ctx context.Context) (context.Context, func()) {
	ctx = mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
		line := fmt.Sprintf("progress %g", p.Progress)
		if p.Total > 0 {
			line = fmt.Sprintf("progress %g/%g (%.0f%%)", p.Progress, p.Total, 100*p.Progress/p.Total)
		}
		if p.Message != "" {
			line += " " + p.Message
		}
		inv.status(line)
	})
	return ctx, inv.endLine
}

// status prints a line of progress on stderr: on a terminal rewritten in
// place by the next (and ended by whatever else is written there, see
// lockedWriter), otherwise a line of its own.
func (inv *invocation) status(line string) {
	if lw, ok := inv.stderr.(*lockedWriter); ok && isTerminal(lw) {
		lw.status(line)
		return
	}
	fmt.Fprintln(inv.stderr, line)
}

// endLine ends a progress line left open on the terminal.
func (inv *invocation) endLine() {
	if lw, ok := inv.stderr.(*lockedWriter); ok {
		lw.endLine()
	}
}

// isTerminal reports whether f (a reader or writer) is a terminal: a
// character device other than the null device. (A true isatty needs
// golang.org/x/term, which this module does not depend on.)
func isTerminal(f any) bool {
	if l, ok := f.(*lockedWriter); ok {
		l.mu.Lock()
		f = l.w
		l.mu.Unlock()
	}
	if e, ok := f.(*lineEditor); ok {
		f = e.out
	}
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

func runCall(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	name := inv.pos[0]
	// A 2025-11-25 tool says in its execution whether it must be called
	// as a task; a 2026-07-28 server says so by refusing the call.
	var tool *mcp.Tool
	if len(inv.kv) > 0 || !inv.task && cs.ServerCapabilities().Tasks != nil {
		// A server that cannot list its tools may still take a call
		// that has no KEY=VALUE to type.
		var err error
		if tool, err = findTool(ctx, cs, name); err != nil && len(inv.kv) > 0 {
			return err
		}
	}
	args, err := inv.arguments(tool)
	if err != nil {
		return err
	}
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	ctx, done := inv.withProgress(ctx)
	var res *mcp.CallToolResult
	if inv.task || requiresTask(tool) {
		res, err = inv.callTask(ctx, cs, p)
	} else if res, err = cs.CallTool(ctx, p); needsTasks(err) {
		res, err = inv.callTask(ctx, cs, p)
	}
	done()
	if err != nil || res == nil { // res is nil for call --task --no-wait
		return err
	}
	return inv.printResult(res, "tool "+name)
}

// printResult prints a tool's result; what names the tool or task for the
// error when the result is one.
func (inv *invocation) printResult(res *mcp.CallToolResult, what string) error {
	err := inv.saveResult(res)
	if err != nil {
		return err
	}
	if inv.json {
		err = inv.printJSON(res)
	} else {
		err = inv.printCallResult(res)
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return toolError{fmt.Errorf("%s returned an error", what)}
	}
	return nil
}

// findTool looks a tool up in the server's list; nil if it is not there.
func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return t, nil
		}
	}
	return nil, nil
}

// arguments builds the arguments object from --args and KEY=VALUE pairs,
// typing each value from tool's input schema (tool may be nil).
func (inv *invocation) arguments(tool *mcp.Tool) (json.RawMessage, error) {
	obj := map[string]any{}
	if inv.argsJSON != "" {
		if err := json.Unmarshal([]byte(inv.argsJSON), &obj); err != nil {
			return nil, usageError{fmt.Errorf("--args: not a JSON object: %v", err)}
		}
	}
	if len(inv.kv) > 0 {
		var schema json.RawMessage
		if tool != nil {
			schema, _ = tool.InputSchema.(json.RawMessage)
		}
		types := propertyTypes(schema)
		if known, closed := argumentNames(schema); closed {
			for _, k := range inv.kvOrder {
				if !slices.Contains(known, k) {
					return nil, usageError{unknownArgument(tool.Name, k, known)}
				}
			}
		}
		for _, k := range inv.kvOrder {
			v, err := typedValue(inv.kv[k], types[k])
			if err != nil {
				return nil, usageError{fmt.Errorf("%s: %v", k, err)}
			}
			obj[k] = v
		}
	}
	if inv.argsJSON == "" && len(inv.kv) == 0 {
		return nil, nil
	}
	return json.Marshal(obj)
}

// argumentNames returns the properties an object schema names, sorted,
// and whether they are all it takes: it lists properties and allows no
// others (additionalProperties absent or false, no patternProperties).
func argumentNames(schema json.RawMessage) (names []string, closed bool) {
	var s struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
		PatternProperties    json.RawMessage            `json:"patternProperties"`
	}
	if json.Unmarshal(schema, &s) != nil || s.Properties == nil {
		return nil, false
	}
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	ap := strings.TrimSpace(string(s.AdditionalProperties))
	return names, (ap == "" || ap == "false") && s.PatternProperties == nil
}

// unknownArgument is the error for an argument the tool does not take.
func unknownArgument(tool, name string, known []string) error {
	if len(known) == 0 {
		return fmt.Errorf("%s: tool %s takes no arguments", name, tool)
	}
	return fmt.Errorf("%s: tool %s has no such argument; it takes %s", name, tool, strings.Join(known, ", "))
}

// propertyTypes maps each property of an object schema to its JSON types.
func propertyTypes(schema json.RawMessage) map[string][]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string][]string{}
	for k, p := range s.Properties {
		var one string
		var many []string
		if json.Unmarshal(p.Type, &one) == nil {
			out[k] = []string{one}
		} else if json.Unmarshal(p.Type, &many) == nil {
			out[k] = many
		}
	}
	return out
}

// typedValue converts a command-line value to the JSON type the schema
// asks for: a string when the schema allows one or says nothing, JSON
// otherwise.
func typedValue(v string, types []string) (any, error) {
	if len(types) == 0 {
		return v, nil
	}
	for _, t := range types {
		if t == "string" {
			return v, nil
		}
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return nil, fmt.Errorf("%q is not valid JSON for a value of type %s", v, strings.Join(types, "|"))
	}
	return x, nil
}

func runRead(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: inv.pos[0]})
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(res)
	}
	for _, c := range res.Contents {
		inv.printResourceContents(c)
	}
	return nil
}

func runGet(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	args := map[string]string{}
	if inv.argsJSON != "" {
		if err := json.Unmarshal([]byte(inv.argsJSON), &args); err != nil {
			return usageError{fmt.Errorf("--args: not a JSON object of strings: %v", err)}
		}
	}
	for k, v := range inv.kv {
		args[k] = v
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: inv.pos[0], Arguments: args})
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(res)
	}
	if res.Description != "" {
		fmt.Fprintf(inv.stdout, "# %s\n\n", res.Description)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(inv.stdout, "%s:\n", m.Role)
		_ = inv.printContent(0, m.Content) // get has no --out: nothing is saved
	}
	return nil
}

func runComplete(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	ref := mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: inv.pos[0]}
	if strings.Contains(inv.pos[0], "://") {
		ref = mcp.CompleteReference{Type: mcp.RefTypeResource, URI: inv.pos[0]}
	}
	// ARG=VALUE, or ARG alone for an empty value: one word, so that a
	// command target after it is never taken for the value.
	name, value, _ := strings.Cut(inv.pos[1], "=")
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: name, Value: value}}
	if len(inv.kv) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: inv.kv}
	}
	res, err := cs.Complete(ctx, p)
	if err != nil {
		return err
	}
	if inv.json {
		return inv.printJSON(map[string]any{"completion": res.Completion})
	}
	for _, v := range res.Completion.Values {
		fmt.Fprintln(inv.stdout, v)
	}
	return nil
}

func runPing(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	start := time.Now()
	if err := cs.Ping(ctx); err != nil {
		return err
	}
	d := time.Since(start)
	if inv.json {
		return inv.printJSON(map[string]any{"ok": true, "milliseconds": d.Milliseconds()})
	}
	_, err := fmt.Fprintf(inv.stdout, "ok (%s)\n", d.Round(time.Microsecond))
	return err
}
