//go:build !unix

package sumlog

import (
	"fmt"
	"runtime"
)

// Supported says the log server does not run here: the log's folder
// storage is Tessera's POSIX storage (POSIX file locks, directory opens),
// and its signing key, lookups and add lock are mcpsum state files, which
// are Linux and macOS only (internal/statefile). mcpsum-log checks it at
// start.
func Supported() error {
	return fmt.Errorf("%w on %s: the log's storage and state files need Linux or macOS", ErrUnsupported, runtime.GOOS)
}

// openFolder is not available: see Supported.
func openFolder(string, string) (store, error) { return nil, Supported() }
