package skills_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
	"github.com/gomcp/sdk/transport"
)

// A server publishes a tree of skills; a host lists them, loads one (its
// SKILL.md verified against the entry) and reads a file the entry lists.
func Example() {
	tree := fstest.MapFS{ // os.DirFS("skills") in a real server
		"pdf-processing/SKILL.md":            {Data: []byte("---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\nSee references/FORMS.md.\n")},
		"pdf-processing/references/FORMS.md": {Data: []byte("# Forms\n")},
	}
	published, err := skills.NewServer(tree, &skills.Options{DirectoryRead: true})
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1.0.0"}, nil)
	if err := published.Register(s); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	a, b := transport.Pipe()
	s.Connect(b, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1.0.0"}, nil).Connect(ctx, a)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	host := skills.NewHost("docs-server", cs, nil)
	entries, err := host.List(ctx) // reads no file
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Key.Server, e.Key.URI, "-", e.Skill.Frontmatter.Description())
	}
	skill, err := host.Load(ctx, entries[0]) // reads and verifies SKILL.md
	if err != nil {
		log.Fatal(err)
	}
	forms, err := skill.Read(ctx, "skill://pdf-processing/references/FORMS.md")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", forms)
	// Output:
	// docs-server skill://pdf-processing/SKILL.md - Extract, fill, and assemble PDF documents
	// "# Forms\n"
}
