package sumdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/transparency-dev/formats/log"
	fproof "github.com/transparency-dev/formats/proof"
	mproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// Check looks key up and compares the logged surface with s. A differing
// surface is *MismatchError; a key the log does not hold is a Result with
// Found false (nothing to compare, not an error).
func (c *Client) Check(ctx context.Context, key string, s Surface) (*Result, error) {
	res, err := c.Lookup(ctx, key)
	if err != nil || !res.Found {
		return res, err
	}
	if local := Digest(s); res.Logged != local {
		return nil, &MismatchError{Key: key, Logged: res.Logged, Local: local}
	}
	return res, nil
}

// CheckProof checks a stored C2SP tlog-proof offline: its checkpoint is
// signed by the configured log (and satisfies the witness policy), and the
// record of key and s is included in that tree at the proof's index.
func (cfg *Config) CheckProof(key string, s Surface, text string) error {
	var p fproof.TLogProof
	if err := p.Unmarshal([]byte(text)); err != nil {
		return &ProofError{Key: key, Err: err}
	}
	tree, err := cfg.open(p.Checkpoint)
	if err != nil {
		if cfg.witness != nil {
			if _, _, _, e := log.ParseCheckpoint(p.Checkpoint, cfg.origin, cfg.verifier); e == nil {
				err = fmt.Errorf("%v (a proof stored before the witness policy was set: lock the entry again with MCPSUMDB and MCPSUM_WITNESS_POLICY set to store a cosigned one)", err)
			}
		}
		return &ProofError{Key: key, Err: err}
	}
	if p.Index >= uint64(tree.N) {
		return &ProofError{Key: key, Err: fmt.Errorf("record %d is beyond the checkpoint's %d records", p.Index, tree.N)}
	}
	hashes := make([][]byte, len(p.Hashes))
	for i := range p.Hashes {
		hashes[i] = p.Hashes[i][:]
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(Record(key, s))
	if err := mproof.VerifyInclusion(rfc6962.DefaultHasher, p.Index, uint64(tree.N), leaf, hashes, tree.Hash[:]); err != nil {
		var rm mproof.RootMismatchError
		if errors.As(err, &rm) {
			err = errors.New("the entry's record (its key or digests) is not the one logged at that index")
		}
		return &ProofError{Key: key, Err: err}
	}
	return nil
}
