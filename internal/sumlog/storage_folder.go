//go:build unix

package sumlog

import (
	"context"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
)

// folderDriver is Tessera's POSIX storage rooted at path (the log's
// D/tiles): checkpoint and tiles as files any web server can serve.
func folderDriver(ctx context.Context, path string) (tessera.Driver, error) {
	return posix.New(ctx, posix.Config{Path: path})
}

// Supported is nil: the log server runs here.
func Supported() error { return nil }
