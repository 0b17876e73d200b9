package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
)

// runSkills acts out the sep-2640-client-* scenarios as a host would:
// list the server's skills and fetch nothing more (no-prefetch); or load
// the first skill, which verifies its SKILL.md against the entry, and
// only if that succeeds read the other files the entry lists.
func runSkills(ctx context.Context, cs *mcp.ClientSession, scenario string) error {
	host := skills.NewHost("conformance-server", cs, nil)
	entries, err := host.List(ctx)
	if err != nil {
		return err
	}
	if scenario == "sep-2640-client-no-prefetch" || len(entries) == 0 {
		return nil
	}
	loaded, err := host.Load(ctx, entries[0])
	if err != nil {
		if errors.Is(err, skills.ErrVerification) {
			fmt.Fprintln(os.Stderr, "everything-client: refusing the skill:", err)
		}
		return err
	}
	for _, f := range loaded.Entry.Skill.Resources {
		if _, err := loaded.Read(ctx, f.URI); err != nil {
			return err
		}
	}
	return nil
}

// isSkillsScenario reports whether the scenario is one runSkills handles.
func isSkillsScenario(name string) bool { return strings.HasPrefix(name, "sep-2640-client-") }
