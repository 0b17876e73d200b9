package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// maxHistoryLine bounds one line kept in the history file; longer lines
// (a pasted document, say) are not worth recalling and are not saved.
const maxHistoryLine = 4096

// HistoryPath is the file mcp shell keeps its history in: shell_history in
// gomcp/ under the user's config directory, or "" when there is none.
func HistoryPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gomcp", "shell_history")
}

// loadHistory reads the last maxHistory lines of the history file. A
// missing or unreadable file is an empty history.
func loadHistory(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxHistoryLine+1)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(lines) == maxHistory {
			lines = append(lines[:0], lines[1:]...)
		}
		lines = append(lines, line)
	}
	return lines // what was read before an over-long line or an error
}

// saveHistory writes the last maxHistory lines to the history file, 0600
// (a line can hold a secret typed as an argument), replacing it whole so
// that a crash leaves the old file or the new one.
func saveHistory(path string, lines []string) error {
	if path == "" {
		return nil
	}
	if len(lines) > maxHistory {
		lines = lines[len(lines)-maxHistory:]
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) <= maxHistoryLine && !strings.ContainsAny(l, "\r\n") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".shell_history-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
