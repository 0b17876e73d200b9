package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// maxCatalogCards bounds the cards of a catalog mcp card fetches.
const maxCatalogCards = 50

// cardReport is mcp card's --json output for a catalog entry.
type cardReport struct {
	Identifier string           `json:"identifier"`
	URL        string           `json:"url,omitempty"`
	Card       *servercard.Card `json:"card,omitempty"`
	Problems   []problem        `json:"problems,omitempty"`
}

// runCard runs mcp card URL: fetch a Server Card or an AI Catalog and
// validate it, and with a catalog every card it lists.
func runCard(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("card", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	timeout := fs.Duration("timeout", servercard.FetchTimeout, "")
	urls, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"card"})
	}
	if err != nil || len(urls) != 1 {
		fmt.Fprintf(stderr, "mcp: card: %v (see mcp help card)\n", orUsage(err, "want one URL"))
		return ExitUsage
	}
	u := strings.TrimPrefix(urls[0], "card:")
	doc, err := fetchCard(ctx, u, *timeout)
	if err != nil {
		if errors.Is(err, servercard.ErrInvalid) {
			fmt.Fprintf(stderr, "mcp: %s: invalid\n%s\n", u, indent(err))
			return ExitToolError
		}
		fmt.Fprintf(stderr, "mcp: card: %v\n", err)
		return ExitConnect
	}
	if doc.Card != nil {
		if *asJSON {
			return printJSONTo(stdout, doc.Card)
		}
		printCard(stdout, doc.Card)
		return ExitOK
	}
	reports := catalogReports(ctx, doc.Catalog, *timeout)
	code := ExitOK
	for _, r := range reports {
		if len(r.Problems) > 0 {
			code = ExitToolError
		}
	}
	if *asJSON {
		printJSONTo(stdout, map[string]any{"catalog": doc.Catalog, "cards": reports})
		return code
	}
	fmt.Fprintf(stdout, "AI Catalog %s: %d entries, %d Server Cards\n", doc.Catalog.SpecVersion, len(doc.Catalog.Entries), len(reports))
	for _, r := range reports {
		where := r.URL
		if where == "" {
			where = "(inline)"
		}
		if len(r.Problems) > 0 {
			fmt.Fprintf(stdout, "  %s  %s  INVALID\n", r.Identifier, where)
			for _, p := range r.Problems {
				fmt.Fprintf(stdout, "      %s: %s\n", p.Pointer, p.Message)
			}
			continue
		}
		fmt.Fprintf(stdout, "  %s  %s  %s %s\n", r.Identifier, where, r.Card.Name, r.Card.Version)
	}
	return code
}

func fetchCard(ctx context.Context, u string, timeout time.Duration) (*servercard.Document, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return servercard.Fetch(ctx, nil, u)
}

// catalogReports fetches and validates each card a catalog lists.
func catalogReports(ctx context.Context, c *servercard.Catalog, timeout time.Duration) []cardReport {
	var out []cardReport
	for i, e := range c.Cards() {
		r := cardReport{Identifier: e.Identifier, URL: e.URL}
		switch {
		case i >= maxCatalogCards:
			r.Problems = []problem{{"", fmt.Sprintf("not fetched: only the first %d cards are", maxCatalogCards)}}
		case e.URL == "":
			card, err := servercard.ParseCard(e.Data)
			r.Card = card
			if err != nil {
				r.Problems = problemsOf(err)
			}
		default:
			doc, err := fetchCard(ctx, e.URL, timeout)
			switch {
			case err != nil:
				r.Problems = problemsOf(err)
			case doc.Card == nil:
				r.Problems = []problem{{"", "a catalog, not a Server Card"}}
			default:
				r.Card = doc.Card
			}
		}
		out = append(out, r)
	}
	return out
}

func printJSONTo(w io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ExitProtocol
	}
	fmt.Fprintf(w, "%s\n", b)
	return ExitOK
}

func printCard(w io.Writer, c *servercard.Card) {
	fmt.Fprintf(w, "Server Card (valid): %s %s\n", c.Name, c.Version)
	if c.Title != "" {
		fmt.Fprintf(w, "  title        %s\n", c.Title)
	}
	fmt.Fprintf(w, "  description  %s\n", c.Description)
	if c.WebsiteURL != "" {
		fmt.Fprintf(w, "  website      %s\n", c.WebsiteURL)
	}
	for _, r := range c.Remotes {
		fmt.Fprintf(w, "  remote       %s %s\n", r.Type, r.URL)
		if len(r.SupportedProtocolVersions) > 0 {
			fmt.Fprintf(w, "               revisions %s\n", strings.Join(r.SupportedProtocolVersions, ", "))
		}
		for _, h := range r.Headers {
			req := ""
			if h.IsRequired {
				req = " (required)"
			}
			fmt.Fprintf(w, "               header %s%s %s\n", h.Name, req, h.Description)
		}
	}
}
