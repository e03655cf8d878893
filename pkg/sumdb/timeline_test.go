package sumdb_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// serveDir serves a log folder on loopback, counting the tile requests.
func serveDir(t *testing.T, dir string) (url string, tiles *atomic.Int64) {
	t.Helper()
	h, _, err := sumlog.Handler(context.Background(), dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tiles = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/tile/") {
			tiles.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, tiles
}

// grow appends records from..to-1 (keys key(i), surfaces surface(i+shift))
// to the log in dir.
func grow(t *testing.T, dir string, from, to, shift int) {
	t.Helper()
	var entries []sumlog.Entry
	for i := from; i < to; i++ {
		entries = append(entries, sumlog.Entry{Key: fmt.Sprintf("npm/pkg%d@1.0.0#%024x", i, i), Surface: surface(i + shift)})
	}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, entries); err != nil {
		t.Fatal(err)
	}
}

func client(t *testing.T, cfg *sumdb.Config, url, state, cache string) *sumdb.Client {
	t.Helper()
	c, err := sumdb.ParseConfig(cfg.VerifierKey+" "+url, "")
	if err != nil {
		t.Fatal(err)
	}
	return &sumdb.Client{Config: c, StateDir: state, CacheDir: cache}
}

// snapshot copies a log folder: the log as it was.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "snapshot")
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// A checkpoint older than the remembered one that the remembered tree
// holds is the past (a stale cache or mirror), not an attack: the lookup
// proves against the newer tree it remembers. One the log can no longer
// show is its past is a rollback; one on another history a fork; both
// print the two signed checkpoints.
func TestTimeline(t *testing.T) {
	cfg, dir, key := newLog(t, 3)
	old := snapshot(t, dir) // the log at 3 records
	grow(t, dir, 3, 6, 0)
	state, cache := t.TempDir(), t.TempDir()
	url, _ := serveDir(t, dir)
	if res, err := client(t, cfg, url, state, cache).Check(context.Background(), key(4), surface(4)); err != nil || !res.Found {
		t.Fatalf("lookup against the log of 6: %v", err)
	}

	// A stale mirror: the old checkpoint in front of the current tiles.
	cpOld, err := os.ReadFile(filepath.Join(old, sumlog.TilesDir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := sumlog.Handler(context.Background(), dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stale := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/checkpoint" { // a FAKE: a cache that kept the checkpoint of 3 records
			w.Write(cpOld)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer stale.Close()
	for _, cacheDir := range []string{"", cache} {
		res, err := client(t, cfg, stale.URL, state, cacheDir).Check(context.Background(), key(5), surface(5))
		if err != nil || !res.Found {
			t.Fatalf("stale checkpoint (cache %q): %v, want the past accepted", cacheDir, err)
		}
		if !strings.Contains(string(res.Proof), "\n6\n") {
			t.Errorf("record 5 proved against %q, want the remembered tree of 6", res.Proof)
		}
	}

	// A rollback: the log restored from the copy at 3 records, which no
	// longer serves the tiles of the tree of 6 it signed.
	oldURL, _ := serveDir(t, old)
	_, err = client(t, cfg, oldURL, state, "").Check(context.Background(), key(1), surface(1))
	var rb *sumdb.RollbackError
	if !errors.As(err, &rb) || rb.Got.N != 3 || rb.Remembered.N != 6 || !bothNotes(err, cfg.Origin(), 3, 6) {
		t.Fatalf("rollback: %v", err)
	}

	// A fork: the copy grows on another history, to fewer, as many and
	// more records than the remembered tree.
	for _, size := range []int{5, 6, 8} {
		fork := snapshot(t, old)
		grow(t, fork, 3, size, 100)
		forkURL, _ := serveDir(t, fork)
		_, err = client(t, cfg, forkURL, state, cache).Check(context.Background(), key(1), surface(1))
		var fe *sumdb.ForkError
		if !errors.As(err, &fe) || fe.Got.N != int64(size) || fe.Remembered.N != 6 || !bothNotes(err, cfg.Origin(), size, 6) {
			t.Fatalf("fork to %d records: %v", size, err)
		}
		if size != 6 && !strings.Contains(err.Error(), "proof of misbehaviour") {
			t.Errorf("fork to %d records: no proof of the inconsistency\n%v", size, err)
		}
	}
	// Nothing moved the remembered tree: the honest log still checks.
	if _, err := client(t, cfg, url, state, cache).Check(context.Background(), key(2), surface(2)); err != nil {
		t.Fatalf("honest log after the attacks: %v", err)
	}
}

// bothNotes reports whether err prints both signed checkpoints (origin,
// size, signature line) in full.
func bothNotes(err error, origin string, a, b int) bool {
	s := err.Error()
	return strings.Contains(s, "SECURITY ERROR") &&
		strings.Contains(s, fmt.Sprintf("\t%s\n\t%d\n", origin, a)) &&
		strings.Contains(s, fmt.Sprintf("\t%s\n\t%d\n", origin, b)) &&
		strings.Count(s, "\t— "+origin+" ") == 2
}

// A fresh machine seeds its timeline from the checkpoints of a committed
// lock's proofs: a log that forked since is caught there too.
func TestRememberProofs(t *testing.T) {
	cfg, dir, key := newLog(t, 3)
	old := snapshot(t, dir)
	grow(t, dir, 3, 6, 0)
	url, _ := serveDir(t, dir)
	res, err := client(t, cfg, url, t.TempDir(), "").Check(context.Background(), key(4), surface(4))
	if err != nil {
		t.Fatal(err)
	}
	proofs := []string{string(res.Proof), "not a proof", ""}
	fork := snapshot(t, old)
	grow(t, fork, 3, 7, 100)
	forkURL, _ := serveDir(t, fork)

	// Without the lock's view, a fresh machine takes the fork as it is.
	if _, err := client(t, cfg, forkURL, t.TempDir(), "").Check(context.Background(), key(1), surface(1)); err != nil {
		t.Fatalf("fresh machine, no seed: %v", err)
	}
	fresh := client(t, cfg, forkURL, t.TempDir(), "")
	if err := fresh.Remember(context.Background(), proofs); err != nil {
		t.Fatalf("Remember: %v", err)
	}
	var fe *sumdb.ForkError
	if _, err := fresh.Check(context.Background(), key(1), surface(1)); !errors.As(err, &fe) || fe.Remembered.N != 6 || fe.Got.N != 7 {
		t.Fatalf("fresh machine seeded from the lock: %v, want a fork", err)
	}
	// A proof of another log says nothing about this one: skipped.
	other, _, _ := newLog(t, 1)
	if err := client(t, other, forkURL, t.TempDir(), "").Remember(context.Background(), proofs); err != nil {
		t.Errorf("Remember of another log's proofs: %v", err)
	}
}

// Tiles and entry bundles are cached: a second lookup in the same part of
// the tree fetches none; a cache changed on disk is not trusted (the
// lookup reads the log again and still proves the record).
func TestTilesCached(t *testing.T) {
	cfg, dir, key := newLog(t, 300)
	url, tiles := serveDir(t, dir)
	state, cache := t.TempDir(), t.TempDir()
	c := client(t, cfg, url, state, cache)
	if _, err := c.Check(context.Background(), key(10), surface(10)); err != nil {
		t.Fatal(err)
	}
	first := tiles.Load()
	if _, err := c.Check(context.Background(), key(10), surface(10)); err != nil {
		t.Fatal(err)
	}
	if n := tiles.Load() - first; first == 0 || n != 0 {
		t.Errorf("the same lookup again fetched %d tiles (the first %d), want none", n, first)
	}
	var corrupted int
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			corrupted++
			return os.WriteFile(p, make([]byte, 8192), 0o644)
		}
		return err
	})
	if corrupted == 0 {
		t.Fatal("nothing was cached")
	}
	if res, err := c.Check(context.Background(), key(10), surface(10)); err != nil || !res.Found {
		t.Errorf("lookup over a corrupted cache: %v", err)
	}
}

// A log that redirects to plain http elsewhere is refused before any
// request leaves for it (a 404 from anyone on the path would make a key
// look unlogged).
func TestRedirectToPlainHTTP(t *testing.T) {
	cfg, _, key := newLog(t, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1"+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	_, err := client(t, cfg, srv.URL, t.TempDir(), "").Check(context.Background(), key(0), surface(0))
	if err == nil || !strings.Contains(err.Error(), "plain http to 192.0.2.1") {
		t.Fatalf("redirect to plain http: %v", err)
	}
}
