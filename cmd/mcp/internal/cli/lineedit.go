package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxHistory bounds the lines a lineEditor remembers.
const maxHistory = 1000

// lineEditor reads lines from a terminal in raw mode, with the usual keys:
// left and right, Home and End (and Ctrl-A, Ctrl-E), Backspace, Delete,
// Ctrl-U and Ctrl-K, up and down through the history, Tab to complete,
// Ctrl-C to drop the line and Ctrl-D on an empty line to end. The caller
// puts the terminal in raw mode around readLine.
//
// Output from elsewhere (the server's log lines, its stderr) goes through
// Write, which prints it above the line being edited and redraws the
// prompt, instead of in the middle of what the user is typing.
type lineEditor struct {
	in      *bufio.Reader
	out     io.Writer
	history []string
	// complete returns the candidates for the word that ends at the end of
	// line (the text before the cursor), and where that word starts.
	complete func(line string) (start int, candidates []string)

	mu     sync.Mutex // guards the fields below, and serialises writes to out
	active bool       // readLine is editing a line on out, in raw mode
	prompt string     // the line being edited, as last drawn
	buf    []rune
	pos    int
}

// Write prints p on its own lines: above the line being edited, which is
// then drawn again, while readLine runs; as it is otherwise. The terminal
// is in raw mode then, so line ends become CR LF.
func (e *lineEditor) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.active {
		return e.out.Write(p)
	}
	s := strings.TrimSuffix(string(p), "\n")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	if _, err := fmt.Fprintf(e.out, "\r\033[K%s\r\n", s); err != nil {
		return 0, err
	}
	e.drawLocked()
	return len(p), nil
}

// drawLocked draws the prompt and the line, and puts the cursor in place.
// e.mu must be held.
func (e *lineEditor) drawLocked() {
	fmt.Fprintf(e.out, "\r\033[K%s%s", e.prompt, string(e.buf))
	if back := len(e.buf) - e.pos; back > 0 {
		fmt.Fprintf(e.out, "\033[%dD", back)
	}
}

// print writes s to the terminal, between others' output.
func (e *lineEditor) print(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprint(e.out, s)
}

// errInterrupted is returned by readLine for Ctrl-C.
var errInterrupted = fmt.Errorf("interrupted")

// readLine reads one line. It returns io.EOF for Ctrl-D on an empty line
// or the end of the input.
func (e *lineEditor) readLine(prompt string) (string, error) {
	var (
		buf  []rune
		pos  int
		hist = len(e.history) // index in history; len means the new line
		kept []rune           // the new line, while browsing the history
	)
	redraw := func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.active, e.prompt, e.buf, e.pos = true, prompt, append(e.buf[:0], buf...), pos
		e.drawLocked()
	}
	// The line is done: output from elsewhere goes as it is again.
	finish := func(s string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.active = false
		fmt.Fprint(e.out, s)
	}
	redraw()
	for {
		r, _, err := e.in.ReadRune()
		if err != nil {
			if len(buf) > 0 && err == io.EOF {
				finish("\r\n")
				return string(buf), nil
			}
			finish("")
			return "", err
		}
		switch r {
		case '\r', '\n':
			finish("\r\n")
			line := string(buf)
			if strings.TrimSpace(line) != "" && (len(e.history) == 0 || e.history[len(e.history)-1] != line) {
				if len(e.history) == maxHistory {
					e.history = append(e.history[:0], e.history[1:]...)
				}
				e.history = append(e.history, line)
			}
			return line, nil
		case 3: // Ctrl-C
			finish("^C\r\n")
			return "", errInterrupted
		case 4: // Ctrl-D
			if len(buf) == 0 {
				finish("\r\n")
				return "", io.EOF
			}
			if pos < len(buf) {
				buf = append(buf[:pos], buf[pos+1:]...)
			}
		case 1: // Ctrl-A
			pos = 0
		case 5: // Ctrl-E
			pos = len(buf)
		case 2: // Ctrl-B
			if pos > 0 {
				pos--
			}
		case 6: // Ctrl-F
			if pos < len(buf) {
				pos++
			}
		case 11: // Ctrl-K
			buf = buf[:pos]
		case 21: // Ctrl-U
			buf, pos = append([]rune(nil), buf[pos:]...), 0
		case 127, 8: // Backspace
			if pos > 0 {
				buf = append(buf[:pos-1], buf[pos:]...)
				pos--
			}
		case '\t':
			buf, pos = e.tab(buf, pos, prompt)
		case 27: // an escape sequence
			seq := e.escape()
			switch seq {
			case "[D", "OD":
				if pos > 0 {
					pos--
				}
			case "[C", "OC":
				if pos < len(buf) {
					pos++
				}
			case "[H", "OH", "[1~":
				pos = 0
			case "[F", "OF", "[4~":
				pos = len(buf)
			case "[3~":
				if pos < len(buf) {
					buf = append(buf[:pos], buf[pos+1:]...)
				}
			case "[A", "OA", "[B", "OB":
				up := seq[1] == 'A'
				if hist == len(e.history) {
					kept = append([]rune(nil), buf...)
				}
				switch {
				case up && hist > 0:
					hist--
				case !up && hist < len(e.history):
					hist++
				default:
					continue
				}
				if hist == len(e.history) {
					buf = append([]rune(nil), kept...)
				} else {
					buf = []rune(e.history[hist])
				}
				pos = len(buf)
			}
		default:
			if r < ' ' || r == utf8.RuneError {
				continue
			}
			buf = append(buf[:pos], append([]rune{r}, buf[pos:]...)...)
			pos++
		}
		redraw()
	}
}

// escape reads the rest of an escape sequence: [ or O, then parameters,
// then a final letter or ~.
func (e *lineEditor) escape() string {
	var b strings.Builder
	for i := 0; i < 8; i++ {
		r, _, err := e.in.ReadRune()
		if err != nil {
			break
		}
		b.WriteRune(r)
		if i > 0 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '~') {
			break
		}
	}
	return b.String()
}

// tab completes the word before the cursor: the only candidate in full, or
// the candidates' common prefix, or else lists them.
func (e *lineEditor) tab(buf []rune, pos int, prompt string) ([]rune, int) {
	if e.complete == nil {
		return buf, pos
	}
	before := string(buf[:pos])
	start, cands := e.complete(before)
	if len(cands) == 0 || start < 0 || start > len(before) {
		return buf, pos
	}
	word := before[start:]
	insert := commonPrefix(cands)
	if len(cands) == 1 && !strings.HasSuffix(insert, "=") {
		insert += " "
	}
	if len(insert) <= len(word) {
		if len(cands) > 1 {
			e.print("\r\n" + strings.Join(cands, "  ") + "\r\n")
		}
		return buf, pos
	}
	head := []rune(before[:start] + insert)
	return append(head, buf[pos:]...), len(head)
}

// commonPrefix returns the longest prefix of every string in ss.
func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			_, n := utf8.DecodeLastRuneInString(p)
			p = p[:len(p)-n]
		}
	}
	return p
}
