package fleet

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	fproof "github.com/transparency-dev/formats/proof"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// Checkpoint is the transparency log's signed tree a sync checked the org
// lock's surfaces against: its origin, size and root hash (base64).
type Checkpoint struct {
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Hash   string `json:"hash"`
}

// checkLog looks every keyed entry of f up in cfg's log before anything is
// installed: each must be logged, with the surface the lock holds. Unlike
// `mcpsum lock`, a key the log does not hold yet is a refusal: the fleet
// installs only surfaces everyone can check. An entry with no key (a
// private command, a remote server) or one MCPSUM_NOSUMDB excludes is
// noted, not looked up. It returns the largest checkpoint it saw (nil when
// nothing was looked up).
func checkLog(ctx context.Context, cfg *sumdb.Config, stateDir string, f *lockfile.File, note func(string)) (*Checkpoint, error) {
	c := &sumdb.Client{Config: cfg, StateDir: stateDir}
	var seen *Checkpoint
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		e := f.Servers[n]
		key, ok := launch.LogKey(e)
		switch {
		case !ok:
			note(fmt.Sprintf("%s: private (%s); not looked up in the transparency log", n, launch.PrivateWhy(e.Remote())))
			continue
		case cfg.Excluded(key):
			note(fmt.Sprintf("%s: %s matches MCPSUM_NOSUMDB; not looked up", n, sumdb.Module(key)))
			continue
		}
		res, err := c.Check(ctx, key, launch.LogSurface(e))
		if sumdb.IsSecurity(err) {
			return nil, &RefusedError{Why: WhyLog, Err: fmt.Errorf("%s: %w", n, err)}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if !res.Found {
			return nil, refuse(WhyUnlogged, "%s: %s is not in the transparency log, so nobody else can check its surface (the log's operator adds it with mcpsum-log add; or exclude it with MCPSUM_NOSUMDB)", n, key)
		}
		if cp := proofCheckpoint(res.Proof); cp != nil && (seen == nil || cp.Size > seen.Size) {
			seen = cp
		}
		note(fmt.Sprintf("%s: matches the transparency log (%s)", n, key))
	}
	return seen, nil
}

// proofCheckpoint reads the checkpoint a C2SP tlog-proof carries (its
// signature was checked by the lookup that returned it).
func proofCheckpoint(raw []byte) *Checkpoint {
	var p fproof.TLogProof
	if p.Unmarshal(raw) != nil {
		return nil
	}
	lines := strings.SplitN(string(p.Checkpoint), "\n", 4)
	if len(lines) < 3 {
		return nil
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if _, herr := base64.StdEncoding.DecodeString(lines[2]); err != nil || herr != nil {
		return nil
	}
	return &Checkpoint{Origin: lines[0], Size: size, Hash: lines[2]}
}
