//go:build !unix

package sumlog

import (
	"context"
	"fmt"
	"runtime"

	"github.com/transparency-dev/tessera"
)

// Supported says the log server does not run here: the log's folder
// storage is Tessera's POSIX storage (POSIX file locks, directory opens),
// and its signing key, index and add lock are mcpsum state files, which are
// Linux and macOS only (internal/statefile). mcpsum-log checks it at start.
func Supported() error {
	return fmt.Errorf("%w on %s: the log's storage and state files need Linux or macOS", ErrUnsupported, runtime.GOOS)
}

// folderDriver is not available: see Supported.
func folderDriver(context.Context, string) (tessera.Driver, error) {
	return nil, Supported()
}
