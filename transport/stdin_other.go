//go:build unix && !linux

package transport

import "io"

// waitingStdin returns nil: standard input is read through the runtime
// poller here (see the Linux version).
func waitingStdin() io.ReadCloser { return nil }
