package sumdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/transparency-dev/formats/proof"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/mcpsum/mcpsum/internal/netrule"
)

// Client looks keys up in one log, as golang.org/x/mod/sumdb's client does
// for Go modules: every checkpoint is signed, every tile is checked against
// a signed tree (tlog.TileHashReader), every record is proved included, and
// the log's history is checked against the one this machine remembers.
type Client struct {
	Config *Config
	// StateDir holds the last checkpoint this machine accepted from the log
	// (mcpsum's state folder; never a cache).
	StateDir string
	// CacheDir, when set, keeps the log's tiles and entry bundles, which
	// never change once published. A cached tile is checked against the
	// signed tree like a fetched one, so a changed cache is a failed check,
	// never a pass; a check that fails on cached data is made again from the
	// log. Empty: nothing is cached.
	CacheDir string
	// HTTP, when set, is the client requests go through; its redirects are
	// held to the rule MCPSUMDB's address is (https, or http to this
	// machine).
	HTTP *http.Client
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

// Lookup fetches the log's checkpoint and takes it into the timeline this
// machine remembers (see Remember), then finds key's record and proves it
// included in the newest tree of that timeline. A key the log does not
// hold yet is Found false.
func (c *Client) Lookup(ctx context.Context, key string) (*Result, error) {
	f := c.fetch(ctx, true)
	res, err := c.lookup(f, key)
	if err != nil && f.cached && retryable(err) {
		// Checked against cached data: ask the log itself before blaming it.
		res, err = c.lookup(c.fetch(ctx, false), key)
	}
	return res, err
}

// retryable reports a failed check that cached data may have caused (a
// tile that does not match its tree): it is made again from the log before
// the log is blamed. A fork shown by tiles checked against a signed tree
// stands, wherever they came from.
func retryable(err error) bool {
	var le *LogError
	var re *RollbackError
	return errors.As(err, &le) || errors.As(err, &re)
}

func (c *Client) lookup(f *fetch, key string) (*Result, error) {
	got, err := f.checkpoint()
	if err != nil {
		return nil, err
	}
	latest, err := c.merge(f, got)
	if err != nil {
		return nil, err
	}
	tree := latest.tree
	idx, found, err := f.index(key)
	if err != nil || !found {
		return &Result{}, err
	}
	if idx < 0 || idx >= tree.N {
		return nil, f.logError("lookup of %s names record %d, beyond the checkpoint's %d records", key, idx, tree.N)
	}
	rec, bundle, err := f.entry(idx, tree.N)
	if err != nil {
		return nil, err
	}
	hr := tlog.TileHashReader(tree, f)
	rp, err := tlog.ProveRecord(tree.N, idx, hr)
	if err != nil {
		return nil, f.logError("inclusion proof of record %d: %v", idx, err)
	}
	if err := tlog.CheckRecord(rp, tree.N, tree.Hash, idx, tlog.RecordHash(rec)); err != nil {
		return nil, f.logError("record %d is not in the signed tree: %v", idx, err)
	}
	gotKey, surface, err := ParseRecord(rec)
	if err != nil {
		return nil, f.logError("record %d: %v", idx, err)
	}
	if gotKey != key {
		return nil, f.logError("lookup of %s answered record %d, which is for %q", key, idx, gotKey)
	}
	f.saveBundle(bundle)
	p := proof.TLogProof{Index: uint64(idx), Checkpoint: latest.raw}
	for _, h := range rp {
		p.Hashes = append(p.Hashes, [sha256.Size]byte(h))
	}
	return &Result{Found: true, Record: rec, Proof: p.Marshal(), Logged: surface}, nil
}

// signedTree is a checkpoint as the log signed it and the tree it states.
// full says it satisfies the whole configuration (the witness policy too),
// not only the log's signature.
type signedTree struct {
	raw  []byte
	tree tlog.Tree
	full bool
}

// checkpoint fetches and opens the log's checkpoint (signature, origin and,
// with a policy, the witnesses' cosignatures).
func (f *fetch) checkpoint() (signedTree, error) {
	raw, err := f.get("checkpoint")
	if err != nil {
		return signedTree{}, err
	}
	tree, err := f.c.Config.open(raw)
	if err != nil {
		return signedTree{}, &LogError{Log: f.c.Config.URL, Err: err}
	}
	return signedTree{raw: raw, tree: tree, full: true}, nil
}

// index asks the log's lookup endpoint where key's record is. The answer is
// untrusted: the record found there must carry the key and be in the tree.
func (f *fetch) index(key string) (int64, bool, error) {
	sum := sha256.Sum256([]byte(key))
	body, err := f.get("lookup/" + hex.EncodeToString(sum[:]))
	var nf *notFound
	if errors.As(err, &nf) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
	if err != nil {
		return 0, false, f.logError("lookup of %s: answer is not a record number", key)
	}
	return n, true, nil
}

// entry reads record idx from its C2SP entry bundle of a tree of size
// records; bundle is what to cache once the record is proved.
func (f *fetch) entry(idx, size int64) (rec []byte, bundle cacheItem, err error) {
	t := tlog.Tile{H: HeightTiles, L: -1, N: idx >> HeightTiles}
	if end := (t.N + 1) << HeightTiles; end > size {
		t.W = int(size - t.N<<HeightTiles)
	} else {
		t.W = 1 << HeightTiles
	}
	data, fromCache, err := f.tile(t)
	if err != nil {
		return nil, cacheItem{}, err
	}
	want := int(idx - t.N<<HeightTiles)
	for i, b := 0, data; len(b) >= 2; i++ {
		n := int(b[0])<<8 | int(b[1])
		if len(b) < 2+n {
			break
		}
		if i == want {
			return b[2 : 2+n], cacheItem{t: t, data: data, cached: fromCache}, nil
		}
		b = b[2+n:]
	}
	return nil, cacheItem{}, f.logError("entry bundle %s has no record %d", tilePath(t), idx)
}

// tilePath is the C2SP tlog-tiles path of t (L -1: an entry bundle).
func tilePath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/"+strconv.Itoa(HeightTiles)+"/")
	return "tile/" + strings.Replace(p, "data/", "entries/", 1)
}

type notFound struct{ path string }

func (e *notFound) Error() string { return e.path + ": not found" }

// get fetches one path of the log, capped; 404 is *notFound, anything else
// that is not 200 an *UnreachableError.
func (f *fetch) get(p string) ([]byte, error) {
	c := f.c
	hc := &http.Client{Timeout: 30 * time.Second}
	if c.HTTP != nil {
		copied := *c.HTTP
		hc = &copied
	}
	hc.CheckRedirect = checkRedirect
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, c.Config.URL+"/"+p, nil)
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
		return nil, f.logError("GET %s: answer over %d bytes", p, maxResponse)
	}
	return body, nil
}

// checkRedirect holds a log's redirects to the rule of its address: a
// redirect to plain http elsewhere would let anyone on the path answer.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if _, err := netrule.ParseServerURL(req.URL.String()); err != nil {
		return fmt.Errorf("redirected to %s: %v", req.URL.Redacted(), err)
	}
	return nil
}
