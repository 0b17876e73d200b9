package main

import (
	"fmt"
	"strings"
)

// UnifiedDiff renders the change from old to new as a unified diff with
// three lines of context. It is a plain LCS diff, quadratic in the lines
// changed, which is fine for source files.
func UnifiedDiff(path string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	// Trim the common prefix and suffix, diff the middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := lcsOps(a[pre:len(a)-suf], b[pre:len(b)-suf])
	type line struct {
		op   byte
		text string
	}
	var all []line
	for _, l := range a[:pre] {
		all = append(all, line{' ', l})
	}
	for _, o := range ops {
		all = append(all, line{o[0], o[1:]})
	}
	for _, l := range a[len(a)-suf:] {
		all = append(all, line{' ', l})
	}
	var out strings.Builder
	if len(ops) == 0 {
		return ""
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", path, path)
	const ctx = 3
	ai, bi := 0, 0
	for i := 0; i < len(all); {
		if all[i].op == ' ' {
			i, ai, bi = i+1, ai+1, bi+1
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(all); j++ {
			if all[j].op != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		end = min(end+ctx+1, len(all))
		sa, sb := ai-(i-start), bi-(i-start)
		var na, nb int
		var body strings.Builder
		for _, l := range all[start:end] {
			body.WriteString(string(l.op) + l.text + "\n")
			if l.op != '+' {
				na++
			}
			if l.op != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n%s", sa+1, na, sb+1, nb, body.String())
		for _, l := range all[i:end] {
			if l.op != '+' {
				ai++
			}
			if l.op != '-' {
				bi++
			}
		}
		i = end
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lcsOps returns the edit script from a to b, each op the line prefixed by
// ' ', '-' or '+'.
func lcsOps(a, b []string) []string {
	n, m := len(a), len(b)
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var ops []string
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, " "+a[i])
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			ops = append(ops, "-"+a[i])
			i++
		default:
			ops = append(ops, "+"+b[j])
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, "-"+a[i])
	}
	for ; j < m; j++ {
		ops = append(ops, "+"+b[j])
	}
	return ops
}
