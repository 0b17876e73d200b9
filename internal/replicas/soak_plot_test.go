//go:build soak

package replicas

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// soakSeries is one sampled figure: how to read it from a row, and how
// much it may grow between the first and the last quarter of a run.
type soakSeries struct {
	name  string
	unit  string
	of    func(soakRow) int64
	ratio float64 // the last quarter's mean may be ratio × the first's ...
	slack int64   // ... plus slack
}

var soakFigures = []soakSeries{
	{"replicas' goroutines", "", func(r soakRow) int64 { return r.goroutines }, 1.25, 60},
	{"replicas' open descriptors", "", func(r soakRow) int64 { return r.fds }, 1.25, 30},
	{"replicas' resident memory", "MiB", func(r soakRow) int64 { return r.rssKiB / 1024 }, 1.5, 30},
	{"Redis used memory", "KiB", func(r soakRow) int64 { return r.redisKiB }, 1.5, 8 << 10},
	{"clients' goroutines", "", func(r soakRow) int64 { return r.testGoroutines }, 1.25, 60},
	{"clients' heap", "MiB", func(r soakRow) int64 { return r.testHeapKiB / 1024 }, 2, 32},
}

// checkFlat fails the test when a figure grew: the mean of the last
// quarter of the samples after warm-up (the first tenth of the run) is
// compared with the mean of the first quarter.
func checkFlat(t *testing.T, rows []soakRow) {
	t.Helper()
	warm := rows[len(rows)-1].at / 10
	var steady []soakRow
	for _, r := range rows {
		if r.at >= warm && r.at > 0 {
			steady = append(steady, r)
		}
	}
	if len(steady) < 8 {
		t.Fatalf("%d samples after warm-up: too few to tell a trend (lengthen -soak.d or shorten -soak.sample)", len(steady))
	}
	q := len(steady) / 4
	mean := func(rs []soakRow, of func(soakRow) int64) float64 {
		var sum int64
		for _, r := range rs {
			sum += of(r)
		}
		return float64(sum) / float64(len(rs))
	}
	for _, f := range soakFigures {
		first, last := mean(steady[:q], f.of), mean(steady[len(steady)-q:], f.of)
		limit := first*f.ratio + float64(f.slack)
		t.Logf("%s: first quarter %.0f%s, last quarter %.0f%s (limit %.0f)", f.name, first, f.unit, last, f.unit, limit)
		if last > limit {
			t.Errorf("%s grew: %.0f%s in the first quarter, %.0f%s in the last", f.name, first, f.unit, last, f.unit)
		}
	}
}

// writeSoak writes the samples where -soak.csv and -soak.svg say.
func writeSoak(t *testing.T, rows []soakRow) {
	t.Helper()
	if *soakCSV != "" {
		var b strings.Builder
		b.WriteString("seconds,calls")
		for _, f := range soakFigures {
			fmt.Fprintf(&b, ",%s", strings.TrimSpace(f.name+" "+f.unit))
		}
		b.WriteString("\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "%d,%d", int(r.at.Seconds()), r.calls)
			for _, f := range soakFigures {
				fmt.Fprintf(&b, ",%d", f.of(r))
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(*soakCSV, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if *soakSVG != "" {
		if err := os.WriteFile(*soakSVG, []byte(soakPlot(rows)), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// soakPlot draws each figure against time in a panel of its own, from
// zero to its largest value, so that a flat line reads flat.
func soakPlot(rows []soakRow) string {
	const w, h, left, top = 720, 110, 60, 24
	total := rows[len(rows)-1].at
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n",
		w+left+20, len(soakFigures)*(h+top+16)+30)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, f := range soakFigures {
		y0 := i*(h+top+16) + top
		var peak int64 = 1
		for _, r := range rows {
			peak = max(peak, f.of(r))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s (0 to %d%s)</text>`+"\n", left, y0-6, f.name, peak, f.unit)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>`+"\n", left, y0, w, h)
		var pts []string
		for _, r := range rows {
			x := left + int(float64(w)*float64(r.at)/float64(max(total, time.Second)))
			y := y0 + h - int(float64(h)*float64(f.of(r))/float64(peak))
			pts = append(pts, fmt.Sprintf("%d,%d", x, y))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="%s"/>`+"\n", strings.Join(pts, " "))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d">time: 0 to %v</text>`+"\n", left, len(soakFigures)*(h+top+16)+20, total.Round(time.Second))
	b.WriteString("</svg>\n")
	return b.String()
}
