package everything

import (
	"embed"
	"io/fs"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
)

// skillTree holds the skills the server publishes (SEP-2640):
// pdf-processing, with a file in a subdirectory, as the suite expects.
//
//go:embed testdata/skills
var skillTree embed.FS

// addSkills serves skillTree through the skills extension, with
// resources/directory/read.
func addSkills(s *mcp.Server, add func(error)) {
	tree, err := fs.Sub(skillTree, "testdata/skills")
	if err != nil {
		add(err)
		return
	}
	ss, err := skills.NewServer(tree, &skills.Options{DirectoryRead: true})
	if err != nil {
		add(err)
		return
	}
	add(ss.Register(s))
}
