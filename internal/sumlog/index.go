package sumlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// The log's key index lives in its storage, beside the tiles, so any static
// host serves lookups too: lookup/KEYHASH holds the record number of the
// key's first record ("N\n"), and lookup/indexed the tree size up to which
// every record has its lookup. Both are derived from the log itself: add
// first indexes whatever a crashed add published and did not index.
const (
	lookupPrefix = "lookup/"
	indexedPath  = "lookup/indexed"
)

// KeyHash is how lookups name a key.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func lookupPath(key string) string { return lookupPrefix + KeyHash(key) }

// readCheckpoint reads the storage's checkpoint, checked against the log's
// verifier (a storage holding another log's checkpoint is refused). A
// storage without one is an empty tree.
func readCheckpoint(ctx context.Context, st store, v note.Verifier) (raw []byte, tree tlog.Tree, err error) {
	raw, err = st.read(ctx, "checkpoint")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, tlog.Tree{}, nil
	}
	if err != nil {
		return nil, tlog.Tree{}, err
	}
	n, err := note.Open(raw, note.VerifierList(v))
	if err != nil {
		return nil, tlog.Tree{}, fmt.Errorf("%s: its checkpoint is not signed by this log's key (%v)", st, err)
	}
	lines := strings.SplitN(n.Text, "\n", 4)
	if len(lines) < 3 || lines[0] != v.Name() {
		return nil, tlog.Tree{}, fmt.Errorf("%s: its checkpoint is for another origin", st)
	}
	size, err1 := strconv.ParseInt(lines[1], 10, 64)
	h, err2 := tlog.ParseHash(lines[2])
	if err1 != nil || err2 != nil || size < 0 {
		return nil, tlog.Tree{}, fmt.Errorf("%s: malformed checkpoint", st)
	}
	return raw, tlog.Tree{N: size, Hash: h}, nil
}

// bundle reads the records of entry bundle n of a tree of size records.
func bundle(ctx context.Context, st store, n, size uint64) ([][]byte, error) {
	w := min(size-n*layout.EntryBundleWidth, layout.EntryBundleWidth)
	p := layout.EntriesPath(n, uint8(w%layout.EntryBundleWidth))
	b, err := st.read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", st, p, err)
	}
	recs, err := sumdb.SplitBundle(b, int(w))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", st, p, err)
	}
	return recs, nil
}

// eachRecord calls fn with every record in [from, to) of a tree of size
// records, in order.
func eachRecord(ctx context.Context, st store, from, to, size uint64, fn func(i uint64, rec []byte) error) error {
	for n := from / layout.EntryBundleWidth; n*layout.EntryBundleWidth < to; n++ {
		recs, err := bundle(ctx, st, n, size)
		if err != nil {
			return err
		}
		for j, r := range recs {
			if i := n*layout.EntryBundleWidth + uint64(j); i >= from && i < to {
				if err := fn(i, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// lookup returns the record number of key, if it has one.
func lookup(ctx context.Context, st store, key string) (uint64, bool, error) {
	b, err := st.read(ctx, lookupPath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	i, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %s is not a record number", st, lookupPath(key))
	}
	return i, true, nil
}

// loggedSurface reads record i of a tree of size records and returns its
// surface digest, checking it is key's.
func loggedSurface(ctx context.Context, st store, key string, i, size uint64) (string, error) {
	if i >= size {
		return "", fmt.Errorf("%s: the lookup of %s names record %d, beyond the log's %d", st, key, i, size)
	}
	recs, err := bundle(ctx, st, i/layout.EntryBundleWidth, size)
	if err != nil {
		return "", err
	}
	k, surface, err := sumdb.ParseRecord(recs[i%layout.EntryBundleWidth])
	if err != nil || k != key {
		return "", fmt.Errorf("%s: the lookup of %s names record %d, which is not its record (%v)", st, key, i, err)
	}
	return surface, nil
}

// indexed is the tree size up to which every record has its lookup.
func indexed(ctx context.Context, st store) (uint64, error) {
	b, err := st.read(ctx, indexedPath)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s is not a tree size", st, indexedPath)
	}
	return n, nil
}

// index writes the lookups of records [from, size) (a key's first record
// wins: a key that already has a lookup keeps it, unless fresh says the
// storage holds none yet), makes them durable and then marks the storage
// indexed up to size. progress, when set, is told how many are done.
func index(ctx context.Context, st store, from, size uint64, fresh bool, progress func(done, total uint64)) error {
	if from >= size {
		return nil
	}
	seen := map[string]bool{}
	type job struct {
		path string
		i    uint64
	}
	var jobs []job
	err := eachRecord(ctx, st, from, size, size, func(i uint64, rec []byte) error {
		key, _, err := sumdb.ParseRecord(rec)
		if err != nil {
			return fmt.Errorf("%s: record %d: %v", st, i, err)
		}
		if seen[key] {
			return nil
		}
		seen[key] = true
		if !fresh {
			if _, ok, err := lookup(ctx, st, key); err != nil || ok {
				return err
			}
		}
		jobs = append(jobs, job{lookupPath(key), i})
		return nil
	})
	if err != nil {
		return err
	}
	err = parallel(ctx, len(jobs), func(j int) error {
		return st.write(ctx, jobs[j].path, []byte(strconv.FormatUint(jobs[j].i, 10)+"\n"))
	}, func(done int) {
		if progress != nil {
			progress(uint64(done), uint64(len(jobs)))
		}
	})
	if err != nil {
		return err
	}
	if err := st.flush(ctx); err != nil {
		return err
	}
	if err := st.write(ctx, indexedPath, []byte(strconv.FormatUint(size, 10)+"\n")); err != nil {
		return err
	}
	return st.flush(ctx)
}
