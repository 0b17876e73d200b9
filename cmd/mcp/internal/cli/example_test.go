package cli

import (
	"context"
	"io"
	"os"
	"strings"
)

// Run is the whole mcp command: here it calls a tool of a server run as a
// subprocess over stdio, and a shell session reads its commands from a
// script.
func ExampleRun() {
	ctx := context.Background()
	Run(ctx, []string{"call", "test_simple_text", everythingBin}, strings.NewReader(""), os.Stdout, os.Stderr)

	script := strings.NewReader("call test_prompt_with_arguments\nget test_prompt_with_arguments arg1=a arg2=b\n")
	Run(ctx, []string{"shell", everythingBin}, script, os.Stdout, io.Discard)
	// Output:
	// This is a simple text response for testing.
	// user:
	// Prompt with arguments: arg1='a', arg2='b'
}
