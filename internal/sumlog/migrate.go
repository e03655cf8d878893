package sumlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"github.com/transparency-dev/tessera"
)

// Migrated is what Migrate did: the last checkpoint of the old storage,
// the first of the new one (the same tree, signed by the same key) and
// how many records were copied.
type Migrated struct {
	Before, After []byte
	Records       uint64
}

// migrateChunk is how many records are handed to Tessera at once.
const migrateChunk = 4096

// Migrate moves the log in dir from the storage it records (from names it:
// a log must be moved from where it lives) to the empty storage to: every
// record is appended again, in order, under the same origin and key; the
// copy's tree must equal the original's (same size, same root hash) before
// its checkpoint is published (cosigned under the log's witness policy),
// its lookups are written and the folder records the new storage. The old
// storage is left as it was. progress, when set, hears each stage.
func Migrate(ctx context.Context, dir, from, to string, o Options, progress func(stage string, done, total uint64)) (*Migrated, error) {
	if progress == nil {
		progress = func(string, uint64, uint64) {}
	}
	src, err := openLog(ctx, dir, Options{Storage: from, WitnessPolicy: o.WitnessPolicy, Getenv: o.Getenv, PublishTimeout: o.PublishTimeout})
	if err != nil {
		return nil, err
	}
	defer src.close()
	toS, err := ParseStorage(to)
	if err != nil {
		return nil, err
	}
	fromS, _ := RecordedStorage(dir)
	if toS.place(dir) == fromS.place(dir) {
		return nil, fmt.Errorf("--from and --to name the same storage (%s)", toS)
	}
	dstStore, err := toS.open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	dst := *src
	dst.st = dstStore
	defer dstStore.close()
	for _, st := range []store{src.st, dst.st} {
		unlock, err := st.lock(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	before, tree, err := readCheckpoint(ctx, src.st, src.verifier)
	if err != nil {
		return nil, err
	}
	if before == nil {
		return nil, fmt.Errorf("%s holds no checkpoint: nothing to migrate", src.st)
	}
	switch _, err := dst.st.read(ctx, "checkpoint"); {
	case err == nil:
		return nil, fmt.Errorf("%s already holds a log: migrate needs an empty storage (after an interrupted migrate, empty it: delete its objects, and for S3 storage drop and recreate its database)", dst.st)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	size := uint64(tree.N)
	if err := copyRecords(ctx, src, &dst, size, progress); err != nil {
		return nil, err
	}
	// Publish the copy's checkpoint, cosigned under the log's policy.
	opts, err := dst.appendOptions(1, 0, true)
	if err != nil {
		return nil, err
	}
	a, err := dst.appender(ctx, opts)
	if err != nil {
		return nil, err
	}
	after, err := dst.awaitPublished(ctx, a.reader, size)
	a.stop()
	if err != nil {
		return nil, err
	}
	_, got, err := readCheckpoint(ctx, dst.st, dst.verifier)
	if err != nil {
		return nil, err
	}
	if got != tree {
		return nil, fmt.Errorf("the copy in %s is a tree of %d records with root %s, not the original's %d with root %s: nothing was switched", dst.st, got.N, got.Hash, tree.N, tree.Hash)
	}
	progress("lookups", 0, size)
	if err := index(ctx, dst.st, 0, size, true, func(done, total uint64) { progress("lookups", done, total) }); err != nil {
		return nil, err
	}
	if err := recordStorage(dir, toS); err != nil {
		return nil, err
	}
	return &Migrated{Before: before, After: after, Records: size}, nil
}

// copyRecords appends the records [0, size) of src to dst, in order, with
// Tessera publishing no checkpoint meanwhile, and waits until dst's tree
// holds them all.
func copyRecords(ctx context.Context, src, dst *logHandle, size uint64, progress func(string, uint64, uint64)) error {
	opts, err := dst.appendOptions(migrateChunk, 24*time.Hour, false)
	if err != nil {
		return err
	}
	opts.WithPushback(uint(max(size, migrateChunk))).WithCheckpointRepublishInterval(48 * time.Hour)
	a, err := dst.appender(ctx, opts)
	if err != nil {
		return err
	}
	defer a.stop()
	if n, err := a.reader.IntegratedSize(ctx); err != nil || n != 0 {
		return fmt.Errorf("%s already holds %d records (%v): migrate needs an empty storage", dst.st, n, err)
	}
	for start := uint64(0); start < size; start += migrateChunk {
		end := min(start+migrateChunk, size)
		var futures []tessera.IndexFuture
		err := eachRecord(ctx, src.st, start, end, size, func(_ uint64, rec []byte) error {
			if _, _, err := sumdb.ParseRecord(rec); err != nil {
				return fmt.Errorf("%s: %v", src.st, err)
			}
			futures = append(futures, a.app.Add(ctx, tessera.NewEntry(rec)))
			return nil
		})
		if err != nil {
			return err
		}
		for j, f := range futures {
			x, err := f()
			if err != nil {
				return fmt.Errorf("copy record %d: %w", start+uint64(j), err)
			}
			if x.Index != start+uint64(j) {
				return fmt.Errorf("copy record %d landed at %d in %s: the copy is out of order; empty it and migrate again", start+uint64(j), x.Index, dst.st)
			}
		}
		progress("records", end, size)
	}
	for {
		n, err := a.reader.IntegratedSize(ctx)
		if err != nil {
			return err
		}
		if n >= size {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
