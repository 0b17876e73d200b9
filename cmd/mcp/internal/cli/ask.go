package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// asker answers the server's elicitation and sampling requests by asking
// the user: questions on stderr, answers read a line at a time from stdin.
// One request is asked at a time.
type asker struct {
	mu        sync.Mutex
	in        io.Reader
	out       io.Writer
	once      sync.Once
	lines     chan string // closed at the end of the input
	stopOnce  sync.Once
	closeOnce sync.Once
	stop      chan struct{} // closed by close: the reader sends no more

	// readLine, if set, reads the answers instead (mcp shell's line editor).
	readLine func(ctx context.Context, prompt string) (string, bool)
}

// line prints prompt and reads one line, without its end. ok is false at
// the end of the input, or when ctx ends first (the request was cancelled,
// or the command interrupted): stdin is read by a goroutine of its own, so
// that a question left unanswered does not hold up the exit.
func (a *asker) line(ctx context.Context, prompt string) (s string, ok bool) {
	if a.readLine != nil {
		if i := strings.LastIndexByte(prompt, '\n'); i >= 0 {
			fmt.Fprint(a.out, strings.ReplaceAll(prompt[:i+1], "\n", "\r\n"))
			prompt = prompt[i+1:]
		}
		return a.readLine(ctx, prompt)
	}
	a.once.Do(func() {
		a.lines = make(chan string)
		a.stopOnce.Do(func() { a.stop = make(chan struct{}) })
		go func() {
			defer close(a.lines)
			r := bufio.NewReader(a.in)
			for {
				s, err := r.ReadString('\n')
				if s != "" {
					select {
					case a.lines <- strings.TrimRight(s, "\r\n"):
					case <-a.stop:
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	})
	fmt.Fprint(a.out, prompt)
	select {
	case s, ok = <-a.lines:
	case <-ctx.Done():
	}
	if !ok {
		fmt.Fprintln(a.out)
	}
	return s, ok
}

// close lets the reader goroutine end once its current read returns, if
// no one takes its line.
func (a *asker) close() {
	a.stopOnce.Do(func() { a.stop = make(chan struct{}) })
	a.closeOnce.Do(func() { close(a.stop) })
}

// elicit asks for each field of a form; the end of the input cancels.
func (a *asker) elicit(ctx context.Context, req *mcp.ElicitRequest) *mcp.ElicitResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := req.Params
	fmt.Fprintf(a.out, "The server asks: %s\n", p.Message)
	content := map[string]any{}
	if p.RequestedSchema != nil {
		for _, prop := range p.RequestedSchema.Properties {
			required := slices.Contains(p.RequestedSchema.Required, prop.Name)
			v, ok := a.field(ctx, prop, required)
			if !ok {
				return &mcp.ElicitResult{Action: mcp.ElicitActionCancel}
			}
			if v != nil {
				content[prop.Name] = v
			}
		}
	}
	answer, ok := a.line(ctx, "Send this answer? [Y/n] ")
	switch {
	case !ok:
		return &mcp.ElicitResult{Action: mcp.ElicitActionCancel}
	case strings.EqualFold(strings.TrimSpace(answer), "n"), strings.EqualFold(strings.TrimSpace(answer), "no"):
		return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}
	}
	return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}
}

// field asks for one field until the answer fits its schema. An empty
// answer leaves an optional field (or one with a default) out. The choices
// of an enum are shown by their titles, and named by title or value.
func (a *asker) field(ctx context.Context, prop mcp.ElicitProperty, required bool) (any, bool) {
	s := prop.Schema
	label := prop.Name
	if s.Title != "" {
		label = s.Title + " (" + prop.Name + ")"
	}
	if s.Description != "" {
		label += ": " + s.Description
	}
	opts := enumOptions(s)
	var hints []string
	if len(opts) > 0 {
		labels := make([]string, len(opts))
		for i, o := range opts {
			labels[i] = o.label()
		}
		hints = append(hints, "one of "+strings.Join(labels, ", "))
		if s.Type == mcp.SchemaArray {
			hints[0] = "comma-separated, from " + strings.Join(labels, ", ")
		}
	} else if s.Type != mcp.SchemaString {
		hints = append(hints, string(s.Type))
	} else if s.Format != "" {
		hints = append(hints, string(s.Format))
	}
	if s.Default != nil {
		hints = append(hints, "default "+defaultLabel(s.Default, opts))
	} else if required {
		hints = append(hints, "required")
	}
	if len(hints) > 0 {
		label += " [" + strings.Join(hints, "; ") + "]"
	}
	for {
		answer, ok := a.line(ctx, label+"\n> ")
		if !ok {
			return nil, false
		}
		answer = strings.TrimSpace(answer)
		if answer == "" && (s.Default != nil || !required) {
			return nil, true
		}
		v, err := parseField(s, opts, answer)
		if err == nil {
			err = checkField(s, v)
		}
		if err == nil {
			return v, true
		}
		fmt.Fprintf(a.out, "  %v\n", err)
	}
}

// defaultLabel shows a field's default as the user names its choices:
// by their titles, for an enum.
func defaultLabel(def any, opts []option) string {
	label := func(v any) string {
		for _, o := range opts {
			if s, ok := v.(string); ok && s == o.value {
				return o.label()
			}
		}
		return fmt.Sprint(v)
	}
	if vs, ok := def.([]any); ok && len(opts) > 0 {
		labels := make([]string, len(vs))
		for i, v := range vs {
			labels[i] = label(v)
		}
		return strings.Join(labels, ", ")
	}
	return label(def)
}

// parseField converts an answer to the field's type.
func parseField(s *mcp.PrimitiveSchema, opts []option, answer string) (any, error) {
	switch s.Type {
	case mcp.SchemaInteger:
		n, err := strconv.ParseInt(answer, 10, 64)
		if err != nil {
			return nil, errors.New("want an integer")
		}
		return n, nil
	case mcp.SchemaNumber:
		f, err := strconv.ParseFloat(answer, 64)
		if err != nil {
			return nil, errors.New("want a number")
		}
		return f, nil
	case mcp.SchemaBoolean:
		switch strings.ToLower(answer) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, errors.New("want yes or no")
	case mcp.SchemaArray:
		vals := []string{}
		for v := range strings.SplitSeq(answer, ",") {
			if v = strings.TrimSpace(v); v == "" {
				continue
			}
			if len(opts) > 0 {
				var err error
				if v, err = pick(opts, v); err != nil {
					return nil, err
				}
			}
			vals = append(vals, v)
		}
		return vals, nil
	}
	if len(opts) > 0 {
		return pick(opts, answer)
	}
	if answer == "" {
		return nil, errors.New("required")
	}
	return answer, nil
}

// sample shows the conversation and asks the user to write the model's
// reply; an empty reply or the end of the input refuses.
func (a *asker) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := req.Params
	fmt.Fprintln(a.out, "The server asks for a model completion; you answer as the model.")
	if p.SystemPrompt != "" {
		fmt.Fprintf(a.out, "system: %s\n", p.SystemPrompt)
	}
	for _, m := range p.Messages {
		for _, c := range m.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintf(a.out, "%s: %s\n", m.Role, t.Text)
			} else {
				fmt.Fprintf(a.out, "%s: [%s content]\n", m.Role, c.Type())
			}
		}
	}
	reply, ok := a.line(ctx, "Reply (empty refuses): ")
	if !ok || strings.TrimSpace(reply) == "" {
		return nil, jsonrpc.NewError(-1, "the user refused the sampling request")
	}
	return &mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    []mcp.Content{mcp.NewTextContent(reply)},
		Model:      "human",
		StopReason: "endTurn",
	}, nil
}

// answerElicitation asks the user, or declines under --no-input.
func (inv *invocation) answerElicitation(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	inv.endLine()
	if inv.ask == nil {
		fmt.Fprintln(inv.stderr, "mcp: the server asked for user input (elicitation); declined under --no-input")
		return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
	}
	return inv.ask.elicit(ctx, req), nil
}

// answerSampling asks the user to play the model, or refuses under
// --no-input.
func (inv *invocation) answerSampling(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	inv.endLine()
	if inv.ask == nil {
		fmt.Fprintln(inv.stderr, "mcp: the server asked for a model completion (sampling); refused under --no-input")
		return nil, jsonrpc.NewError(-1, "sampling refused: the mcp command runs with --no-input")
	}
	return inv.ask.sample(ctx, req)
}
