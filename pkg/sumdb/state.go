package sumdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	fproof "github.com/transparency-dev/formats/proof"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// stateFile is where the last accepted checkpoint of this log is kept: one
// folder per verifier key, under the state folder's sumdb/.
func (c *Client) stateFile() string {
	sum := sha256.Sum256([]byte(c.Config.VerifierKey))
	return filepath.Join(c.StateDir, "sumdb", hex.EncodeToString(sum[:8]), "checkpoint")
}

// merge takes got, a checkpoint signed by the log, into the timeline this
// machine remembers, as x/mod's client does:
//
//   - none remembered yet: got is remembered;
//   - a larger tree must extend the remembered one (else *ForkError), and
//     is remembered;
//   - a tree of the same size must be the same tree (else *ForkError);
//   - a smaller tree is the past (a stale cache or mirror), not an attack,
//     when the remembered tree holds it; one it does not hold is
//     *ForkError, and one the log no longer serves the remembered tree's
//     tiles to compare with is *RollbackError.
//
// It returns the newest tree of the timeline a lookup may prove against:
// the remembered one when it is newer and satisfies the whole
// configuration, else got. Everything runs under an exclusive lock, so two
// lookups cannot move the remembered tree backwards.
func (c *Client) merge(f *fetch, got signedTree) (signedTree, error) {
	path := c.stateFile()
	if err := statefile.MkdirPrivate(filepath.Dir(path)); err != nil {
		return got, err
	}
	lk, err := statefile.LockTimeout(filepath.Dir(path), 30*time.Second)
	if err != nil {
		return got, err
	}
	defer lk.Unlock()
	raw, err := safeio.ReadOwn(path, "remembered checkpoint", 64<<10)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return got, remember(path, got)
	case err != nil:
		return got, err
	}
	old := signedTree{raw: raw}
	if old.tree, err = c.Config.openLog(raw); err != nil {
		return got, fmt.Errorf("remembered checkpoint %s: %v (it was written by mcpsum; if you changed MCPSUMDB's key for the same log, remove %s)", path, err, path)
	}
	_, werr := c.Config.open(raw)
	old.full = werr == nil
	switch {
	case got.tree.N > old.tree.N:
		if err := f.extends(old, got, false); err != nil {
			return got, err
		}
		return got, remember(path, got)
	case got.tree.N == old.tree.N:
		if got.tree.Hash != old.tree.Hash {
			return got, c.forkError(old, got, nil)
		}
		return got, nil
	}
	if err := f.extends(got, old, true); err != nil {
		return got, err
	}
	if old.full {
		return old, nil
	}
	return got, nil
}

func remember(path string, t signedTree) error {
	return statefile.WriteAtomic(path, t.raw, statefile.WriteOptions{Perm: 0o600, Sync: true})
}

// extends checks that newer's tree holds older's as its first records,
// reading newer's tiles. rollback says newer is the remembered tree and
// older the log's: a log that no longer serves what it signed before
// rolled back.
func (f *fetch) extends(older, newer signedTree, rollback bool) error {
	c := f.c
	thr := tlog.TileHashReader(newer.tree, f)
	h, err := tlog.TreeHash(older.tree.N, thr)
	if err != nil {
		var ue *UnreachableError
		switch {
		case errors.As(err, &ue):
			return err
		case rollback:
			return &RollbackError{Log: c.Config.URL, Remembered: newer.tree, Got: older.tree, RememberedNote: newer.raw, GotNote: older.raw, Err: err}
		}
		return f.logError("consistency of the tree of %d records with the remembered %d: %v", newer.tree.N, older.tree.N, err)
	}
	if h == older.tree.Hash {
		return nil
	}
	proof, err := tlog.ProveTree(newer.tree.N, older.tree.N, thr)
	if err != nil || tlog.CheckTree(proof, newer.tree.N, newer.tree.Hash, older.tree.N, h) != nil {
		proof = nil
	}
	ev := &evidence{hashAt: h, proof: proof}
	if rollback {
		return c.forkError(newer, older, ev)
	}
	return c.forkError(older, newer, ev)
}

func (c *Client) forkError(remembered, got signedTree, ev *evidence) error {
	return &ForkError{Log: c.Config.URL, Remembered: remembered.tree, Got: got.tree, RememberedNote: remembered.raw, GotNote: got.raw, evidence: ev}
}

// Remember takes the checkpoints of stored proofs (a committed lock's
// logProofs: what the repository last saw of the log) into the timeline
// this machine remembers, as a lookup takes the log's own checkpoint. A
// fresh machine (a CI runner) so starts from the lock's view, and catches
// a log that rolled back or forked since. A proof that does not parse, or
// whose checkpoint the log's key did not sign, says nothing about this log
// and is skipped (verify --offline reports it). A checkpoint older than
// the remembered one is checked to be its past with the log's tiles.
func (c *Client) Remember(ctx context.Context, proofs []string) error {
	var seen []signedTree
	for _, text := range proofs {
		var p fproof.TLogProof
		if p.Unmarshal([]byte(text)) != nil {
			continue
		}
		tree, err := c.Config.openLog(p.Checkpoint)
		if err != nil || slices.ContainsFunc(seen, func(s signedTree) bool { return bytes.Equal(s.raw, p.Checkpoint) }) {
			continue
		}
		seen = append(seen, signedTree{raw: p.Checkpoint, tree: tree})
	}
	// Newest first: each older one is then checked against one tree's tiles.
	slices.SortStableFunc(seen, func(a, b signedTree) int { return int(min(max(b.tree.N-a.tree.N, -1), 1)) })
	for _, s := range seen {
		f := c.fetch(ctx, true)
		_, err := c.merge(f, s)
		if err != nil && f.cached && retryable(err) {
			_, err = c.merge(c.fetch(ctx, false), s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
