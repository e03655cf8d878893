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

// readIndex reads the index file: "KEYHASH INDEX SURFACE" lines.
func readIndex(dir string) (map[string]indexEntry, error) {
	data, err := safeio.ReadOwn(filepath.Join(dir, IndexFile), "log index", maxIndex)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]indexEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]indexEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, fmt.Errorf("%s line %d: want KEYHASH INDEX SURFACE", IndexFile, n)
		}
		i, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", IndexFile, n, err)
		}
		m[f[0]] = indexEntry{index: i, surface: f[2]}
	}
	return m, sc.Err()
}

// KeyHash is how the index and the lookup endpoint name a key.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Add appends one record per entry whose key the log does not hold yet and
// waits until a signed checkpoint covers them. The same surface again is not
// appended (New false); another surface for a logged key is *ConflictError
// and nothing at all is appended. Adds to one folder are serialised by a
// lock on the folder.
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
	idx, err := readIndex(dir)
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
		WithBatching(uint(len(todo)), 100*time.Millisecond).
		WithCheckpointInterval(st.checkpointInterval())
	if err := st.witnesses(opts); err != nil {
		return nil, err
	}
	app, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	if err != nil {
		return nil, err
	}
	aw := tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, 50*time.Millisecond)
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

// appendIndex adds lines to the index file (replaced atomically, durably).
func appendIndex(dir string, lines []byte) error {
	path := filepath.Join(dir, IndexFile)
	old, err := safeio.ReadOwn(path, "log index", maxIndex)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return statefile.WriteAtomic(path, append(old, lines...), statefile.WriteOptions{Perm: 0o644, Sync: true})
}
