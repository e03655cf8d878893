//go:build !linux

package e2e

import (
	"os"
	"testing"
)

// openPTY: the tests open a pseudo-terminal the Linux way (/dev/ptmx,
// TIOCSPTLCK, /dev/pts/N); elsewhere the test that needs one is skipped.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	t.Skip("the e2e tests open a pseudo-terminal on Linux only")
	return nil
}
