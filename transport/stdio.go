package transport

import (
	"os"

	"github.com/gomcp/sdk/jsonrpc"
)

// Stdio returns a Stream over the process's standard input and output with
// default options: the server side of the MCP stdio transport. See
// StdioWithOptions.
func Stdio() jsonrpc.Stream { return StdioWithOptions(nil) }

// StdioWithOptions returns a Stream that reads newline-delimited messages
// from os.Stdin and writes them to os.Stdout, framed as NewLineStream
// describes. Standard output must carry nothing but messages: log to
// standard error instead. opts may be nil.
//
// On Unix, when standard input is a pipe or a socket (as it is under an MCP
// client), a Read blocked on a quiet client ends when ctx is done or the
// stream is closed. On Linux with more than one processor the stream reads
// a duplicate of standard input in ppoll(2), which leaves its mode alone
// and costs one system call per wait (see stdin_linux.go for why);
// elsewhere it reads a non-blocking duplicate in the runtime poller, whose
// mode Close puts back. Close releases the duplicate. In every case Close
// leaves os.Stdin and os.Stdout themselves open, so a program can still
// print after shutting down its server.
func StdioWithOptions(opts *LineOptions) jsonrpc.Stream {
	in, release := openStdin()
	return NewLineStream(in, os.Stdout, closerFunc(release), opts)
}

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }
