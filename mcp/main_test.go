package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// session, handler, notification lane and timer the tests start must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
