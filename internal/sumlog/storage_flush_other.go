//go:build unix && !linux

package sumlog

import (
	"context"
	"os"
	"path/filepath"
	"sync"
)

// pendingSyncs are the files written since the last flush. Without
// syncfs(2) (Linux only), flush fsyncs each of them and every folder from
// its own up to the log's root (a rename, and a folder MkdirAll made, are
// durable once their parent folder is synced). Tessera syncs its own writes.
type pendingSyncs struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (p *pendingSyncs) add(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paths == nil {
		p.paths = map[string]bool{}
	}
	p.paths[path] = true
}

// take returns the pending paths and forgets them.
func (p *pendingSyncs) take() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	paths := p.paths
	p.paths = nil
	return paths
}

// flush makes every write since the last flush durable: an fsync of each
// file, then of each folder on the way up to the root. Paths not synced
// (an error) stay pending for the next flush.
func (f *folder) flush(context.Context) error {
	paths := f.pending.take()
	dirs := map[string]bool{}
	for path := range paths {
		if err := syncPath(path); err != nil {
			for p := range paths {
				f.pending.add(p)
			}
			return err
		}
		for d := filepath.Dir(path); !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if d == f.root || d == filepath.Dir(d) {
				break
			}
		}
	}
	for d := range dirs {
		if err := syncPath(d); err != nil {
			for p := range paths {
				f.pending.add(p)
			}
			return err
		}
	}
	return nil
}

func syncPath(path string) error {
	fd, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fd.Close()
	return fd.Sync()
}
