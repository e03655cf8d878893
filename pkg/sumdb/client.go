package sumdb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/formats/proof"
	"golang.org/x/mod/sumdb/tlog"
)

// Client looks keys up in one log. Its tiles are checked against the signed
// checkpoint of each lookup (tlog.TileHashReader), so nothing the server
// sends is trusted unchecked.
type Client struct {
	Config *Config
	// StateDir holds the last checkpoint this machine accepted from the log
	// (mcpsum's state folder; never a cache).
	StateDir string
	HTTP     *http.Client
}

// Result is the answer of a lookup.
type Result struct {
	Found  bool
	Record []byte // the logged record
	Proof  []byte // C2SP tlog-proof of the record against the checkpoint
	Logged string // the surface digest the log holds
}

// maxResponse caps every body read from a log (a tile is 8 KiB, an entry
// bundle of 256 records ~150 KiB).
const maxResponse = 4 << 20

// HeightTiles is the C2SP tlog-tiles tile height.
const HeightTiles = 8

// Lookup fetches the log's checkpoint, checks it against the one this
// machine remembers (a smaller tree is *RollbackError, one that does not
// extend it *ForkError) and remembers it, then finds key's record and
// checks its inclusion. A key the log does not hold yet is Found false.
func (c *Client) Lookup(ctx context.Context, key string) (*Result, error) {
	cpRaw, cp, err := c.checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	tree := tlog.Tree{N: int64(cp.Size), Hash: tlog.Hash(cp.Hash)}
	hr := tlog.TileHashReader(tree, &tileReader{c: c, ctx: ctx})
	if err := c.advance(cpRaw, tree, hr); err != nil {
		return nil, err
	}
	idx, found, err := c.index(ctx, key)
	if err != nil || !found {
		return &Result{}, err
	}
	if idx < 0 || idx >= tree.N {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("lookup of %s names record %d, beyond the checkpoint's %d records", key, idx, tree.N)}
	}
	rec, err := c.entry(ctx, idx, tree.N)
	if err != nil {
		return nil, err
	}
	rp, err := tlog.ProveRecord(tree.N, idx, hr)
	if err != nil {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("inclusion proof of record %d: %v", idx, err)}
	}
	if err := tlog.CheckRecord(rp, tree.N, tree.Hash, idx, tlog.RecordHash(rec)); err != nil {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("record %d is not in the signed tree: %v", idx, err)}
	}
	gotKey, surface, err := parseRecord(rec)
	if err != nil {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("record %d: %v", idx, err)}
	}
	if gotKey != key {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("lookup of %s answered record %d, which is for %q", key, idx, gotKey)}
	}
	p := proof.TLogProof{Index: uint64(idx), Checkpoint: cpRaw}
	for _, h := range rp {
		p.Hashes = append(p.Hashes, [sha256.Size]byte(h))
	}
	return &Result{Found: true, Record: rec, Proof: p.Marshal(), Logged: surface}, nil
}

// checkpoint fetches and opens the log's checkpoint (signature, origin and,
// with a policy, the witnesses' cosignatures).
func (c *Client) checkpoint(ctx context.Context) ([]byte, *log.Checkpoint, error) {
	raw, err := c.get(ctx, "checkpoint")
	if err != nil {
		return nil, nil, err
	}
	cp, err := c.Config.open(raw)
	if err != nil {
		return nil, nil, &LogError{Log: c.Config.URL, Err: err}
	}
	return raw, cp, nil
}

// open checks a checkpoint's log signature, origin and witness policy.
func (cfg *Config) open(raw []byte) (*log.Checkpoint, error) {
	cp, _, _, err := log.ParseCheckpoint(raw, cfg.origin, cfg.verifier)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %v", err)
	}
	if cfg.witness != nil && !cfg.witness.Satisfied(raw) {
		return nil, fmt.Errorf("checkpoint of size %d is not cosigned as the witness policy %s requires", cp.Size, cfg.policy)
	}
	return cp, nil
}

// index asks the log's lookup endpoint where key's record is. The answer is
// untrusted: the record found there must carry the key and be in the tree.
func (c *Client) index(ctx context.Context, key string) (int64, bool, error) {
	sum := sha256.Sum256([]byte(key))
	body, err := c.get(ctx, "lookup/"+hex.EncodeToString(sum[:]))
	var nf *notFound
	if errors.As(err, &nf) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
	if err != nil {
		return 0, false, &LogError{Log: c.Config.URL, Err: fmt.Errorf("lookup of %s: answer is not a record number", key)}
	}
	return n, true, nil
}

// entry reads record idx from its C2SP entry bundle.
func (c *Client) entry(ctx context.Context, idx, size int64) ([]byte, error) {
	t := tlog.Tile{H: HeightTiles, L: -1, N: idx >> HeightTiles}
	if end := (t.N + 1) << HeightTiles; end > size {
		t.W = int(size - t.N<<HeightTiles)
	} else {
		t.W = 1 << HeightTiles
	}
	bundle, err := c.get(ctx, tilePath(t))
	if err != nil {
		return nil, err
	}
	want := int(idx - t.N<<HeightTiles)
	for i := 0; len(bundle) >= 2; i++ {
		n := int(binary.BigEndian.Uint16(bundle))
		if len(bundle) < 2+n {
			break
		}
		if i == want {
			return bundle[2 : 2+n], nil
		}
		bundle = bundle[2+n:]
	}
	return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("entry bundle %s has no record %d", tilePath(t), idx)}
}

// tilePath is the C2SP tlog-tiles path of t (L -1: an entry bundle).
func tilePath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/"+strconv.Itoa(HeightTiles)+"/")
	return "tile/" + strings.Replace(p, "data/", "entries/", 1)
}

type tileReader struct {
	c   *Client
	ctx context.Context
}

func (r *tileReader) Height() int { return HeightTiles }

func (r *tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// ReadTiles fetches hash tiles; a partial tile the log no longer serves is
// read from its full tile, as tlog-tiles allows.
func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := r.c.get(r.ctx, tilePath(t))
		var nf *notFound
		if errors.As(err, &nf) && t.W < 1<<HeightTiles {
			full := t
			full.W = 1 << HeightTiles
			if data, err = r.c.get(r.ctx, tilePath(full)); err == nil && len(data) >= t.W*tlog.HashSize {
				data = data[:t.W*tlog.HashSize]
			}
		}
		if err != nil {
			return nil, err
		}
		if len(data) != t.W*tlog.HashSize {
			return nil, &LogError{Log: r.c.Config.URL, Err: fmt.Errorf("tile %s has %d bytes, want %d", tilePath(t), len(data), t.W*tlog.HashSize)}
		}
		out[i] = data
	}
	return out, nil
}

type notFound struct{ path string }

func (e *notFound) Error() string { return e.path + ": not found" }

// get fetches one path of the log, capped; 404 is *notFound, anything else
// that is not 200 an *UnreachableError.
func (c *Client) get(ctx context.Context, p string) ([]byte, error) {
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Config.URL+"/"+p, nil)
	if err != nil {
		return nil, &UnreachableError{Log: c.Config.URL, Err: err}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &UnreachableError{Log: c.Config.URL, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, &notFound{path: p}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &UnreachableError{Log: c.Config.URL, Err: fmt.Errorf("GET %s: %s", p, resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, &UnreachableError{Log: c.Config.URL, Err: err}
	}
	if len(body) > maxResponse {
		return nil, &LogError{Log: c.Config.URL, Err: fmt.Errorf("GET %s: answer over %d bytes", p, maxResponse)}
	}
	return body, nil
}
