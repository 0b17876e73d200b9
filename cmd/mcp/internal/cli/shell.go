package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/gomcp/sdk/mcp"
)

// shellHelp is the text of help inside mcp shell.
const shellHelp = `commands (flags such as --json work as on the command line):
  info | tools | resources | templates | prompts | ping
  call TOOL [KEY=VALUE...]      read URI
  get PROMPT [KEY=VALUE...]     complete REF ARG[=VALUE] [KEY=VALUE...]
  tasks [list | get ID | result ID | cancel ID]
  schema TOOL                   log-level LEVEL (then prints log messages)
  roots [list] | roots add DIR... | roots remove DIR...
                                change the roots offered to the server (it is
                                sent notifications/roots/list_changed)
  help                          exit (or Ctrl-D)
Tab completes commands, tool, prompt and argument names, and resource URIs.
`

// shell runs commands read a line at a time against one session: from a
// line editor when stdin is a terminal, plainly otherwise (so that a
// script can pipe them in). A failing command prints its error and the
// shell goes on.
func (inv *invocation) shell(ctx context.Context, cs *mcp.ClientSession, stdin io.Reader) error {
	// Ctrl-C (SIGINT; a terminal in raw mode reads it as a key instead)
	// cancels the command running, or else ends the shell.
	ctx, endShell := context.WithCancel(ctx)
	var (
		mu         sync.Mutex
		cancelLine context.CancelFunc
		watcher    sync.WaitGroup
	)
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt)
	watcher.Add(1)
	go func() {
		defer watcher.Done()
		for {
			select {
			case <-intr:
				mu.Lock()
				if cancelLine != nil {
					cancelLine()
				} else {
					endShell()
				}
				mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		signal.Stop(intr)
		endShell()
		watcher.Wait()
	}()
	sh := &shellState{ctx: ctx, cs: cs}
	var read func() (string, error)
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && term.IsTerminal(int(f.Fd())) {
		histFile := HistoryPath()
		ed := &lineEditor{in: bufio.NewReader(f), out: inv.stderr, complete: sh.complete, history: loadHistory(histFile)}
		// What others write on stderr (the server's log lines and its own
		// stderr) goes above the line being typed.
		if lw, ok := inv.stderr.(*lockedWriter); ok {
			lw.mu.Lock()
			ed.out, lw.w = lw.w, ed
			lw.mu.Unlock()
			defer func() {
				lw.mu.Lock()
				lw.w = ed.out
				lw.mu.Unlock()
			}()
		}
		prompt := "mcp> "
		if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil && ir.ServerInfo.Name != "" {
			prompt = ir.ServerInfo.Name + "> "
		}
		raw := func(prompt string) (string, error) {
			old, err := term.MakeRaw(int(f.Fd()))
			if err != nil {
				return "", err
			}
			defer term.Restore(int(f.Fd()), old)
			return ed.readLine(prompt)
		}
		read = func() (string, error) {
			for {
				line, err := raw(prompt)
				if errors.Is(err, errInterrupted) {
					continue
				}
				if err == nil {
					if err := saveHistory(histFile, ed.history); err != nil {
						fmt.Fprintf(inv.stderr, "mcp shell: saving the history: %v\n", err)
						histFile = "" // say it once
					}
				}
				return line, err
			}
		}
		if inv.ask != nil { // the server's questions go through the editor too
			inv.ask.readLine = func(ctx context.Context, prompt string) (string, bool) {
				line, err := raw(prompt)
				return line, err == nil
			}
		}
		fmt.Fprintln(inv.stderr, "Connected. Type help for the commands, Tab to complete, Ctrl-D to leave.")
	} else {
		src := inv.ask
		if src == nil {
			src = &asker{in: stdin, out: io.Discard}
			defer src.close()
		}
		read = func() (string, error) {
			line, ok := src.line(ctx, "")
			if !ok {
				return "", io.EOF
			}
			return line, nil
		}
	}
	for {
		line, err := read()
		if err == io.EOF || ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		words, err := splitWords(line)
		if err != nil {
			fmt.Fprintln(inv.stderr, "mcp:", err)
			if inv.exitOnError {
				return shellExit(ExitUsage)
			}
			continue
		}
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		switch words[0] {
		case "exit", "quit":
			return nil
		case "roots":
			if err := inv.shellRoots(ctx, !cs.Stateless(), words, inv.stdout); err != nil {
				fmt.Fprintln(inv.stderr, "mcp:", err)
				if inv.exitOnError {
					return shellExit(ExitUsage)
				}
			}
			continue
		case "help", "?":
			if len(words) > 1 {
				help(inv.stdout, inv.stderr, words[1:2])
			} else {
				fmt.Fprint(inv.stdout, shellHelp)
			}
			continue
		}
		sh.forget()
		lineCtx, cancel := context.WithCancel(ctx)
		mu.Lock()
		cancelLine = cancel
		mu.Unlock()
		code := inv.shellCommand(lineCtx, cs, words)
		mu.Lock()
		cancelLine = nil
		mu.Unlock()
		cancel()
		if code != ExitOK && inv.exitOnError {
			return shellExit(code)
		}
		select {
		case <-cs.Done():
			return connectError{errors.New("the server closed the session")}
		default:
		}
	}
}

// shellCommand runs one line of the shell and returns its exit status.
func (inv *invocation) shellCommand(ctx context.Context, cs *mcp.ClientSession, words []string) int {
	c, ok := commands[words[0]]
	if !ok || c.run == nil {
		fmt.Fprintf(inv.stderr, "mcp: unknown command %q (type help)\n", words[0])
		return ExitUsage
	}
	sub := &invocation{stdout: inv.stdout, stderr: inv.stderr, ask: inv.ask, inShell: true, timeout: inv.timeout, showLogs: inv.showLogs}
	noInput := inv.ask == nil
	if err := sub.parse(words[0], c.positional, words[1:], &noInput); err != nil {
		return sub.report(ctx, err)
	}
	if sub.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sub.timeout)
		defer cancel()
	}
	return sub.report(ctx, c.run(ctx, sub, cs))
}

// shellState caches what tab completion offers, until the next command.
type shellState struct {
	ctx     context.Context
	cs      *mcp.ClientSession
	tools   []*mcp.Tool
	prompts []*mcp.Prompt
	uris    []string
	loaded  bool
}

func (sh *shellState) forget() { sh.loaded = false }

// load fetches the lists, giving up after a few seconds.
func (sh *shellState) load() {
	if sh.loaded {
		return
	}
	sh.loaded = true
	ctx, cancel := context.WithTimeout(sh.ctx, 5*time.Second)
	defer cancel()
	caps := sh.cs.ServerCapabilities()
	sh.tools, sh.prompts, sh.uris = nil, nil, nil
	if caps.Tools != nil {
		sh.tools, _ = collect(sh.cs.Tools(ctx, nil))
	}
	if caps.Prompts != nil {
		sh.prompts, _ = collect(sh.cs.Prompts(ctx, nil))
	}
	if caps.Resources != nil {
		rs, _ := collect(sh.cs.Resources(ctx, nil))
		for _, r := range rs {
			sh.uris = append(sh.uris, r.URI)
		}
	}
}

// shellFlags are the flags a line may use.
var shellFlags = []string{"--json", "--args", "--out", "--task", "--no-wait", "--timeout", "--no-input"}

// complete returns the completions of the last word of line.
func (sh *shellState) complete(line string) (int, []string) {
	start := strings.LastIndexAny(line, " \t") + 1
	word := line[start:]
	prior := strings.Fields(line[:start])
	var cands []string
	switch {
	case len(prior) == 0:
		for name, c := range commands {
			if c.run != nil {
				cands = append(cands, name)
			}
		}
		cands = append(cands, "help", "exit", "roots")
	case strings.HasPrefix(word, "-"):
		cands = shellFlags
	case prior[0] == "help" && len(prior) == 1:
		for name := range commandHelp {
			cands = append(cands, name)
		}
	default:
		sh.load()
		cands = sh.argumentCandidates(prior)
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return start, slices.Compact(out)
}

// argumentCandidates offers what may follow the words prior (flags left out).
func (sh *shellState) argumentCandidates(prior []string) []string {
	var pos []string
	given := map[string]bool{}
	for _, w := range prior[1:] {
		switch {
		case strings.HasPrefix(w, "-"):
		case strings.Contains(w, "="):
			k, _, _ := strings.Cut(w, "=")
			given[k] = true
		default:
			pos = append(pos, w)
		}
	}
	var cands []string
	switch prior[0] {
	case "log-level":
		if len(pos) == 0 {
			cands = strings.Split(levelNames, ", ")
		}
	case "tasks":
		if len(pos) == 0 {
			for verb := range tasksVerbs {
				cands = append(cands, verb)
			}
		}
	case "schema", "call":
		if len(pos) == 0 {
			for _, t := range sh.tools {
				cands = append(cands, t.Name)
			}
			break
		}
		for _, t := range sh.tools {
			if t.Name == pos[0] {
				in, _ := t.InputSchema.(json.RawMessage)
				for k := range propertyTypes(in) {
					if !given[k] {
						cands = append(cands, k+"=")
					}
				}
			}
		}
	case "get", "complete":
		if len(pos) == 0 {
			for _, p := range sh.prompts {
				cands = append(cands, p.Name)
			}
			break
		}
		for _, p := range sh.prompts {
			if p.Name == pos[0] {
				for _, a := range p.Arguments {
					if !given[a.Name] {
						cands = append(cands, a.Name+"=")
					}
				}
			}
		}
	case "read":
		if len(pos) == 0 {
			cands = sh.uris
		}
	}
	return cands
}
