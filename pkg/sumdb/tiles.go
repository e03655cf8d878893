package sumdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// fetch is one lookup's reading of the log: its HTTP requests and, when
// cache is set, the tile cache. It is the tlog.TileReader of the lookup's
// trees.
type fetch struct {
	c      *Client
	ctx    context.Context
	cache  bool // read the cache (it is written either way)
	cached bool // something was read from it
	saved  map[tlog.Tile]bool
}

func (c *Client) fetch(ctx context.Context, cache bool) *fetch {
	return &fetch{c: c, ctx: ctx, cache: cache && c.CacheDir != "", saved: map[tlog.Tile]bool{}}
}

func (f *fetch) logError(format string, args ...any) error {
	return &LogError{Log: f.c.Config.URL, Err: fmt.Errorf(format, args...)}
}

func (f *fetch) Height() int { return HeightTiles }

// ReadTiles reads hash tiles, from the cache or the log; TileHashReader
// checks each against the tree before using it.
func (f *fetch) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, fromCache, err := f.tile(t)
		if err != nil {
			return nil, err
		}
		if len(data) != t.W*tlog.HashSize {
			return nil, f.logError("tile %s has %d bytes, want %d", tilePath(t), len(data), t.W*tlog.HashSize)
		}
		f.saved[t] = fromCache
		out[i] = data
	}
	return out, nil
}

// SaveTiles caches tiles TileHashReader has checked against a signed tree.
func (f *fetch) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		if !f.saved[t] {
			f.save(t, data[i])
			f.saved[t] = true
		}
	}
}

// tile reads t from the cache or the log. A partial tile the log no longer
// serves is read from its full tile, as tlog-tiles allows (for an entry
// bundle, the full bundle starts with the same records).
func (f *fetch) tile(t tlog.Tile) (data []byte, fromCache bool, err error) {
	if f.cache {
		if data, ok := f.load(t); ok {
			f.cached = true
			return data, true, nil
		}
	}
	data, err = f.get(tilePath(t))
	var nf *notFound
	if errors.As(err, &nf) && t.W < 1<<HeightTiles {
		full := t
		full.W = 1 << HeightTiles
		if data, err = f.get(tilePath(full)); err == nil && t.L >= 0 && len(data) >= t.W*tlog.HashSize {
			data = data[:t.W*tlog.HashSize]
		}
	}
	return data, false, err
}

// cacheItem is an entry bundle to cache once a record in it is proved.
type cacheItem struct {
	t      tlog.Tile
	data   []byte
	cached bool
}

func (f *fetch) saveBundle(b cacheItem) {
	if !b.cached && b.data != nil {
		f.save(b.t, b.data)
	}
}

// cachePath is where t of this log is cached: one folder per verifier key.
func (f *fetch) cachePath(t tlog.Tile) string {
	sum := sha256.Sum256([]byte(f.c.Config.VerifierKey))
	return filepath.Join(f.c.CacheDir, "sumdb", hex.EncodeToString(sum[:8]), filepath.FromSlash(tilePath(t)))
}

func (f *fetch) load(t tlog.Tile) ([]byte, bool) {
	data, err := safeio.ReadOwn(f.cachePath(t), "cached tile", maxResponse)
	return data, err == nil
}

// save writes t to the cache; a cache that cannot be written is no error
// (the next lookup fetches the tile again).
func (f *fetch) save(t tlog.Tile, data []byte) {
	if f.c.CacheDir == "" {
		return
	}
	p := f.cachePath(t)
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		_ = statefile.WriteAtomic(p, data, statefile.WriteOptions{Perm: 0o644})
	}
}
