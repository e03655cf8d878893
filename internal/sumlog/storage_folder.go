//go:build unix

package sumlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
)

// folder is Tessera's POSIX storage: checkpoint, tiles and lookups as
// files under root, which any web server can serve as they are.
type folder struct {
	root, spec string
	pending    pendingSyncs // what flush makes durable where there is no syncfs
}

func openFolder(root, spec string) (store, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	return &folder{root: root, spec: spec}, nil
}

func (f *folder) read(_ context.Context, p string) ([]byte, error) {
	if !fs.ValidPath(p) {
		return nil, fmt.Errorf("storage path %q", p)
	}
	b, err := safeio.ReadOwn(filepath.Join(f.root, filepath.FromSlash(p)), "log object", maxObject)
	var le *safeio.LinkError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s is a symbolic link: the log's folder holds only files mcpsum-log wrote", le.Path)
	}
	return b, err
}

func (f *folder) write(_ context.Context, p string, data []byte) error {
	if !fs.ValidPath(p) {
		return fmt.Errorf("storage path %q", p)
	}
	path := filepath.Join(f.root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := statefile.WriteAtomic(path, data, statefile.WriteOptions{Perm: 0o644}); err != nil {
		return err
	}
	f.pending.add(path)
	return nil
}

func (f *folder) driver(ctx context.Context) (tessera.Driver, error) {
	return posix.New(ctx, posix.Config{Path: f.root})
}

func (f *folder) lock(context.Context) (func(), error) {
	lk, err := statefile.LockTimeout(f.root, time.Minute)
	if err != nil {
		return nil, err
	}
	return func() { lk.Unlock() }, nil
}

func (f *folder) close() error               { return nil }
func (f *folder) minInterval() time.Duration { return 100 * time.Millisecond }
func (f *folder) String() string             { return f.spec }

// Supported is nil: the log server runs here.
func Supported() error { return nil }
