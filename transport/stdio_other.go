//go:build !unix

package transport

import (
	"io"
	"os"
)

// openStdin returns os.Stdin: without a portable way to make it
// interruptible, a blocked Read on it ends only when input arrives.
func openStdin() (io.Reader, func() error) {
	return os.Stdin, func() error { return nil }
}
