package sumdb

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// Logged is one record of the log, read and checked by Follow.
type Logged struct {
	Index   int64
	Key     string
	Surface string // the surface digest the record states
}

// Step is what Follow found: the checkpoint it started from (nil on a
// first run) and the log's current one, both signed by the log (the new
// one also satisfying the witness policy) and the new one proved to extend
// the old.
type Step struct {
	Old, New   []byte
	From, Tree tlog.Tree
}

// Follow checks the log's current checkpoint against prev, the last one
// the caller checked (nil: none yet; only its signature is checked again):
// a smaller tree is *RollbackError, a tree that does not extend it
// *ForkError (both carry the two trees). It then reads every record added
// since (all of them on a first run) from the entry bundles, checks each
// against the signed tree's hashes, and hands it to fn in order. The
// caller keeps Step.New as the next prev once fn has taken every record.
// With a rollback or fork the Step is returned too: it holds both signed
// checkpoints, the evidence to publish.
func (c *Client) Follow(ctx context.Context, prev []byte, fn func(Logged) error) (*Step, error) {
	f := c.fetch(ctx, false)
	got, err := f.checkpoint()
	if err != nil {
		return nil, err
	}
	tree := got.tree
	hr := tlog.TileHashReader(tree, f)
	step := &Step{Old: prev, New: got.raw, Tree: tree}
	if prev != nil {
		t, err := c.Config.openLog(prev)
		if err != nil {
			return nil, fmt.Errorf("the last checkpoint checked: %v", err)
		}
		old := signedTree{raw: prev, tree: t}
		step.From = t
		switch {
		case tree.N < t.N:
			// The log's own tiles must still prove the older tree is the
			// past of the one checked before; one that no longer serves
			// what it signed rolled back.
			if err := f.extends(got, old, true); err != nil {
				return step, err
			}
			step.New, step.Tree = prev, t // a stale copy: nothing new
			return step, nil
		case tree.N == t.N:
			if tree.Hash != t.Hash {
				return step, c.forkError(old, got, nil)
			}
		default:
			if err := f.extends(old, got, false); err != nil {
				return step, err
			}
		}
	}
	for n := step.From.N >> HeightTiles; n<<HeightTiles < tree.N; n++ {
		t := tlog.Tile{H: HeightTiles, L: -1, N: n, W: int(min(tree.N-n<<HeightTiles, 1<<HeightTiles))}
		b, err := f.get(tilePath(t))
		if err != nil {
			return nil, err
		}
		recs, err := SplitBundle(b, t.W)
		if err != nil {
			return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("%s: %v", tilePath(t), err)}
		}
		first := n << HeightTiles
		var idx []int64
		for i := range recs {
			idx = append(idx, tlog.StoredHashIndex(0, first+int64(i)))
		}
		hashes, err := hr.ReadHashes(idx)
		if err != nil {
			return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("hashes of %s: %v", tilePath(t), err)}
		}
		for i, rec := range recs {
			index := first + int64(i)
			if index < step.From.N {
				continue
			}
			if tlog.RecordHash(rec) != hashes[i] {
				return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("record %d is not the one in the signed tree", index)}
			}
			key, surface, err := ParseRecord(rec)
			if err != nil {
				return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("record %d: %v", index, err)}
			}
			if err := fn(Logged{Index: index, Key: key, Surface: surface}); err != nil {
				return nil, err
			}
		}
	}
	return step, nil
}

// MatchModule reports whether key's ECOSYSTEM/PACKAGE matches one of the
// patterns, as MCPSUM_NOSUMDB matches (globs; a pattern also covers the
// paths below it).
func MatchModule(patterns []string, key string) bool {
	return (&Config{Exclude: patterns}).Excluded(key)
}
