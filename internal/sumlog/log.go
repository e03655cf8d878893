package sumlog

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api"
)

// ConflictError: the log already holds another surface for a key. A log
// holds one surface per key, forever.
type ConflictError struct {
	Key, Logged, New string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: the log already holds another surface for this key\n\tlogged: %s\n\tnow:    %s\nnothing was appended (a key's surface never changes in the log; a changed server needs a new version)", e.Key, e.Logged, e.New)
}

// Entry is one record to append.
type Entry struct {
	Key     string
	Surface sumdb.Surface
}

// Added is what Add did with one entry.
type Added struct {
	Key   string
	Index uint64
	New   bool // false: the same surface was logged already
}

type indexEntry struct {
	index   uint64
	surface string
}

// maxIndex caps the index file (about 130 bytes a key: 8 million keys).
const maxIndex = 1 << 30

// readIndex reads the index file: "KEYHASH INDEX SURFACE" lines. covered
// is the number of records it accounts for (one past the largest index).
func readIndex(dir string) (m map[string]indexEntry, covered uint64, err error) {
	data, err := safeio.ReadOwn(filepath.Join(dir, IndexFile), "log index", maxIndex)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]indexEntry{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	m = map[string]indexEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, 0, fmt.Errorf("%s line %d: want KEYHASH INDEX SURFACE", IndexFile, n)
		}
		i, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %v", IndexFile, n, err)
		}
		if _, dup := m[f[0]]; !dup {
			m[f[0]] = indexEntry{index: i, surface: f[2]}
		}
		covered = max(covered, i+1)
	}
	return m, covered, sc.Err()
}

// KeyHash is how the index and the lookup endpoint name a key.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Add appends one record per entry whose key the log does not hold yet and
// waits until a signed checkpoint covers them. The same surface again is not
// appended (New false); another surface for a logged key is *ConflictError
// and nothing at all is appended. The key index is first brought up to the
// log itself (catchUp), so a key whose record was published by an add that
// died before indexing it is refused a second surface too. Adds to one
// folder are serialised by a lock on the folder.
func Add(ctx context.Context, dir string, st Options, entries []Entry) ([]Added, error) {
	// Tessera's appender and awaiter run goroutines until their context
	// ends: end it with the add, so none outlives it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lk, err := statefile.LockTimeout(dir, time.Minute)
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	s, err := signer(dir)
	if err != nil {
		return nil, err
	}
	drv, closeDB, err := st.driver(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	opts := tessera.NewAppendOptions().WithCheckpointSigner(s).
		WithBatching(uint(max(len(entries), 1)), 100*time.Millisecond).
		WithCheckpointInterval(st.checkpointInterval()).
		WithCheckpointRepublishInterval(0) // an add that appends nothing changes nothing
	if err := st.witnesses(opts); err != nil {
		return nil, err
	}
	app, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	if err != nil {
		return nil, err
	}
	aw := tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, 50*time.Millisecond)
	idx, err := catchUp(ctx, dir, reader, aw)
	if err != nil {
		return nil, err
	}
	out := make([]Added, len(entries))
	var todo []int
	for i, e := range entries {
		d := sumdb.Digest(e.Surface)
		out[i].Key = e.Key
		if have, ok := idx[KeyHash(e.Key)]; ok {
			if have.surface != d {
				return nil, &ConflictError{Key: e.Key, Logged: have.surface, New: d}
			}
			out[i].Index = have.index
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	futures := make([]tessera.IndexFuture, len(todo))
	for j, i := range todo {
		futures[j] = app.Add(ctx, tessera.NewEntry(sumdb.Record(entries[i].Key, entries[i].Surface)))
	}
	var lines bytes.Buffer
	for j, i := range todo {
		x, _, err := aw.Await(ctx, futures[j])
		if err != nil {
			return nil, fmt.Errorf("append %s: %w", entries[i].Key, err)
		}
		out[i].Index, out[i].New = x.Index, true
		fmt.Fprintf(&lines, "%s %d %s\n", KeyHash(entries[i].Key), x.Index, sumdb.Digest(entries[i].Surface))
	}
	if err := shutdown(ctx); err != nil {
		return nil, err
	}
	return out, appendIndex(dir, lines.Bytes())
}

// catchUp brings the key index up to the log: the records the log holds
// beyond those the index accounts for (an add that died between Tessera
// publishing its records and writing the index; a lost index) are read
// back from the log's entry bundles and indexed, once a checkpoint covers
// them. An index naming records the log does not hold is refused: the
// folder's log and index are not one log.
func catchUp(ctx context.Context, dir string, r tessera.LogReader, aw *tessera.PublicationAwaiter) (map[string]indexEntry, error) {
	idx, covered, err := readIndex(dir)
	if err != nil {
		return nil, err
	}
	next, err := r.NextIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the log's size: %w", err)
	}
	switch {
	case covered > next:
		return nil, fmt.Errorf("%s names record %d, but the log holds %d records: the index is not this log's (restore the log, or remove %s to rebuild it from the log)", filepath.Join(dir, IndexFile), covered-1, next, IndexFile)
	case covered == next:
		return idx, nil
	}
	last := func() (tessera.Index, error) { return tessera.Index{Index: next - 1}, nil }
	if _, _, err := aw.Await(ctx, last); err != nil {
		return nil, fmt.Errorf("waiting for the log to publish its %d records: %w", next, err)
	}
	const width = 1 << 8 // records per entry bundle (C2SP tlog-tiles)
	var lines bytes.Buffer
	for b := covered / width; b*width < next; b++ {
		partial := uint8(0)
		if (b+1)*width > next {
			partial = uint8(next % width)
		}
		raw, err := r.ReadEntryBundle(ctx, b, partial)
		if err != nil {
			return nil, fmt.Errorf("reading the log's entry bundle %d: %w", b, err)
		}
		var bundle api.EntryBundle
		if err := bundle.UnmarshalText(raw); err != nil {
			return nil, fmt.Errorf("the log's entry bundle %d: %w", b, err)
		}
		for j, rec := range bundle.Entries {
			i := b*width + uint64(j)
			if i < covered || i >= next {
				continue
			}
			key, surface, err := sumdb.ParseRecord(rec)
			if err != nil {
				return nil, fmt.Errorf("the log's record %d: %v", i, err)
			}
			if _, ok := idx[KeyHash(key)]; !ok { // a key's first record is the one lookups name
				idx[KeyHash(key)] = indexEntry{index: i, surface: surface}
			}
			fmt.Fprintf(&lines, "%s %d %s\n", KeyHash(key), i, surface)
		}
	}
	return idx, appendIndex(dir, lines.Bytes())
}

// appendIndex adds lines to the index file (replaced atomically, durably).
func appendIndex(dir string, lines []byte) error {
	path := filepath.Join(dir, IndexFile)
	old, err := safeio.ReadOwn(path, "log index", maxIndex)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return statefile.WriteAtomic(path, append(old, lines...), statefile.WriteOptions{Perm: 0o644, Sync: true})
}
