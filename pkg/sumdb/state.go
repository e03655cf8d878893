package sumdb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/tlog"
)

// stateFile is where the last accepted checkpoint of this log is kept: one
// folder per verifier key, under the state folder's sumdb/.
func (c *Client) stateFile() string {
	sum := sha256.Sum256([]byte(c.Config.VerifierKey))
	return filepath.Join(c.StateDir, "sumdb", hex.EncodeToString(sum[:8]), "checkpoint")
}

// advance checks the new tree against the remembered checkpoint and, when
// it is larger, remembers the new one. Everything runs under an exclusive
// lock so two lookups cannot move the remembered tree backwards.
func (c *Client) advance(raw []byte, tree tlog.Tree, hr tlog.HashReader) error {
	path := c.stateFile()
	if err := statefile.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	lk, err := statefile.LockTimeout(filepath.Dir(path), 30*time.Second)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	old, err := safeio.ReadOwn(path, "remembered checkpoint", 64<<10)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return statefile.WriteAtomic(path, raw, statefile.WriteOptions{Perm: 0o600, Sync: true})
	case err != nil:
		return err
	}
	// The remembered checkpoint was accepted when it was fetched, under the
	// witness policy then in force: only its signature is checked again, so
	// a policy set later does not lock the user out (the new checkpoint
	// satisfies it, and must extend this one).
	ocp, _, _, err := log.ParseCheckpoint(old, c.Config.origin, c.Config.verifier)
	if err != nil {
		return fmt.Errorf("remembered checkpoint %s: %v (it was written by mcpsum; if you changed MCPSUMDB's key for the same log, remove %s)", path, err, path)
	}
	otree := tlog.Tree{N: int64(ocp.Size), Hash: tlog.Hash(ocp.Hash)}
	switch {
	case tree.N < otree.N:
		return &RollbackError{Log: c.Config.URL, Remembered: otree, Got: tree}
	case tree.N == otree.N:
		if tree.Hash != otree.Hash {
			return &ForkError{Log: c.Config.URL, Remembered: otree, Got: tree}
		}
		return nil
	}
	tp, err := tlog.ProveTree(tree.N, otree.N, hr)
	if err != nil {
		return &LogError{Log: c.Config.URL, Err: fmt.Errorf("consistency proof from %d to %d records: %v", otree.N, tree.N, err)}
	}
	if err := tlog.CheckTree(tp, tree.N, tree.Hash, otree.N, otree.Hash); err != nil {
		return &ForkError{Log: c.Config.URL, Remembered: otree, Got: tree}
	}
	return statefile.WriteAtomic(path, raw, statefile.WriteOptions{Perm: 0o600, Sync: true})
}
