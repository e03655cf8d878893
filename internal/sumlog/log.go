package sumlog

import (
	"context"
	"fmt"

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

// Add appends one record per entry whose key the log does not hold yet and
// waits until a signed (and, under a witness policy, cosigned) checkpoint
// covers them. The same surface again is not appended (New false); another
// surface for a logged key is *ConflictError and nothing at all is
// appended. Adds to one storage are serialised by its lock; what an add
// that crashed published without indexing is indexed first. Tessera runs
// under a context of its own that ends with the add.
func Add(ctx context.Context, dir string, o Options, entries []Entry) ([]Added, error) {
	l, err := openLog(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	defer l.close()
	unlock, err := l.st.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	size, err := l.catchUp(ctx)
	if err != nil {
		return nil, err
	}
	out, todo, first, err := plan(ctx, l, entries, size)
	if err != nil || len(todo) == 0 {
		return out, err
	}
	opts, err := l.appendOptions(uint(len(todo)), 0, true)
	if err != nil {
		return nil, err
	}
	a, err := l.appender(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer a.stop()
	futures := make([]tessera.IndexFuture, len(todo))
	for j, i := range todo {
		futures[j] = a.app.Add(ctx, tessera.NewEntry(sumdb.Record(entries[i].Key, entries[i].Surface)))
	}
	var last uint64
	for j, i := range todo {
		x, err := futures[j]()
		if err != nil {
			return nil, fmt.Errorf("append %s: %w", entries[i].Key, err)
		}
		out[i].Index, out[i].New = x.Index, true
		last = max(last, x.Index+1)
	}
	for i, e := range entries { // a key given twice is logged once
		out[i].Index = out[first[e.Key]].Index
	}
	if _, err := l.awaitPublished(ctx, a.reader, last); err != nil {
		return nil, err
	}
	a.stop()
	_, tree, err := readCheckpoint(ctx, l.st, l.verifier)
	if err != nil {
		return nil, err
	}
	return out, index(ctx, l.st, size, uint64(tree.N), false, nil)
}

// plan says, per entry, whether the log holds its key (with the same
// surface: Index set; another: *ConflictError) and returns the entries to
// append, one per key, and the first entry of each key.
func plan(ctx context.Context, l *logHandle, entries []Entry, size uint64) (out []Added, todo []int, first map[string]int, err error) {
	out = make([]Added, len(entries))
	first = map[string]int{}
	for i, e := range entries {
		d := sumdb.Digest(e.Surface)
		out[i].Key = e.Key
		if j, ok := first[e.Key]; ok {
			if dj := sumdb.Digest(entries[j].Surface); dj != d {
				return nil, nil, nil, &ConflictError{Key: e.Key, Logged: dj, New: d}
			}
			continue
		}
		first[e.Key] = i
		idx, ok, err := lookup(ctx, l.st, e.Key)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			todo = append(todo, i)
			continue
		}
		logged, err := loggedSurface(ctx, l.st, e.Key, idx, size)
		if err != nil {
			return nil, nil, nil, err
		}
		if logged != d {
			return nil, nil, nil, &ConflictError{Key: e.Key, Logged: logged, New: d}
		}
		out[i].Index = idx
	}
	for i, e := range entries {
		out[i].Index = out[first[e.Key]].Index
	}
	return out, todo, first, nil
}

// Logged reports whether the log in dir holds a record for any of keys.
func Logged(ctx context.Context, dir string, o Options, keys []string) (bool, error) {
	l, err := openLog(ctx, dir, o)
	if err != nil {
		return false, err
	}
	defer l.close()
	for _, k := range keys {
		if _, ok, err := lookup(ctx, l.st, k); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// catchUp writes the lookups of every published record that has none yet
// (an add that crashed between publishing and indexing, or a log made
// before lookups were files) and returns the published tree's size. The
// caller holds the storage's lock.
func (l *logHandle) catchUp(ctx context.Context) (uint64, error) {
	_, tree, err := readCheckpoint(ctx, l.st, l.verifier)
	if err != nil {
		return 0, err
	}
	size := uint64(tree.N)
	from, err := indexed(ctx, l.st)
	if err != nil {
		return 0, err
	}
	if from > size {
		return 0, fmt.Errorf("%s: indexed up to %d records, but its checkpoint has %d: the storage lost records (restore it from a backup)", l.st, from, size)
	}
	if err := index(ctx, l.st, from, size, false, nil); err != nil {
		return 0, fmt.Errorf("indexing the records the log holds: %w", err)
	}
	return size, nil
}
