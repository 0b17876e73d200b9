// Package skills implements the MCP skills extension
// (io.modelcontextprotocol/skills, SEP-2640): a server publishes Agent
// Skills (directories holding a SKILL.md) as skill:// resources, and a host
// lists them, loads them and reads their files with every byte verified.
//
// The server side is a Server: it indexes a directory tree (any fs.FS;
// NewDirServer for a directory on disk), then Register adds skills/list,
// skills/get, optionally resources/directory/read, and the skill files as
// resources to an *mcp.Server. Only regular files inside the tree are ever
// served; symbolic links are not followed and no URI names anything the
// index does not hold, so no request reaches outside the tree. NewDirServer
// opens files through an os.Root, so that holds even while links are
// swapped into the tree as a file is read.
//
// The mcp.Server's visibility rules (mcp.ServerOptions.Visible) decide
// which skills a caller sees: a skill goes with its SKILL.md resource. A
// hidden skill, with everything at or below its directory (a skill inside
// it too), is absent from skills/list, skills/get, resources/directory/read
// and every read through the skill:// template, and answers as a skill that
// does not exist.
//
// The client side is a Host: it lists entries (never fetching a file),
// loads a skill by reading its SKILL.md and checking size, digest and
// frontmatter against the entry, and then reads only the files that entry
// lists, each verified the same way. A skill's identity is the pair of the
// host's label for the server and the skill's URI (Key).
//
// # How it is built
//
// The package is built only on mcp's seams for extensions:
// Server.AddExtension for skills/list, skills/get and
// resources/directory/read, AddResource for each SKILL.md and one
// skill://{+path} template for the other files, ClientSession.Call and
// ReadResource on the host side. Its server indexes an fs.FS once (NewServer,
// Refresh): regular files only, frontmatter parsed with gopkg.in/yaml.v3
// (nodes converted to JSON values by hand, bounded in size and alias
// expansion), SHA-256 and size per file. Requests are answered from the index
// by exact URI, so traversal has nothing to resolve; a read re-checks with
// Lstat, before and after the open, that no symbolic link took a file's place
// (the file opened must be the one the link-free path names) and serves the
// bytes only while they still match the indexed digest. NewDirServer reads a
// directory through an os.Root, so no open ever leaves it, whatever is swapped
// in meanwhile. Its Host keys skills by (server label, URI), reads nothing on
// listing, and verifies every byte it reads against the held entry.
package skills

// Names the extension defines.
const (
	// ExtensionID identifies the extension in capabilities.extensions.
	ExtensionID = "io.modelcontextprotocol/skills"
	// MethodList enumerates a server's skills (paginated).
	MethodList = "skills/list"
	// MethodGet returns the entry of one skill named by its SKILL.md URI.
	MethodGet = "skills/get"
	// MethodDirectoryRead lists the direct children of a directory
	// resource; servers offer it when they declare directoryRead.
	MethodDirectoryRead = "resources/directory/read"
	// SkillFile is the name of the file that makes a directory a skill.
	SkillFile = "SKILL.md"
	// DirectoryMIMEType marks a directory resource.
	DirectoryMIMEType = "inode/directory"
	// Scheme is the URI scheme skills are served under.
	Scheme = "skill"
)

// Limits the extension fixes per skill: servers should not serve more,
// hosts must accept up to them.
const (
	// MaxResources is the most files a skill's resources list holds,
	// SKILL.md included.
	MaxResources = 512
	// MaxTotalSize is the most bytes a skill's files add up to (16 MiB).
	MaxTotalSize = 16 << 20
)
