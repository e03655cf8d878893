package sumlog_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// migrateSize is the log TestMigrate moves: 100,000 records with
// MCPSUM_LOG_BIG=1 (minutes on two cores), 600 otherwise: still two
// levels of tiles (two full tiles of records under a partial tile of
// level 1) and a partial bundle, at a third of the CPU of the 2,000 it
// moved before (the lookup objects, one per record, are most of it).
func migrateSize() int {
	if os.Getenv("MCPSUM_LOG_BIG") == "1" {
		return 100_000
	}
	return 600
}

func migKey(i int) string { return fmt.Sprintf("npm/m%d@1.0.0#%024x", i, i) }
func migSurface(i int) sumdb.Surface {
	return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{fmt.Sprint("t", i%97): "sha256:" + strings.Repeat("d", 64)}, {}, {}, {}}}
}

// serveLog serves the log in dir (on the storage it records) on loopback.
func serveLog(t *testing.T, dir string, o sumlog.Options) string {
	t.Helper()
	h, closeStorage, err := sumlog.Handler(context.Background(), dir, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); closeStorage() })
	return srv.URL
}

// A log moves from its folder to S3 and MariaDB with the same origin and
// key: the first checkpoint after is the last before (same tree, same
// key), the next one is consistent with it (the proof checked here from the
// new storage's tiles), every proof a lock stored before still verifies,
// lookups find the same records, the old storage is left as it was, and a
// second migrate into the now full storage is refused.
func TestMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := migrateSize()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "migrate.test/log")
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]sumlog.Entry, n)
	for i := range entries {
		entries[i] = sumlog.Entry{Key: migKey(i), Surface: migSurface(i)}
	}
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{}, entries); err != nil {
		t.Fatal(err)
	}
	// A user's lock: proofs of some records, and the checkpoint their
	// machine remembers.
	url := serveLog(t, dir, sumlog.Options{})
	cfg, err := sumdb.ParseConfig(vkey+" "+url, "")
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	picks := []int{0, 255, 256, n / 2, n - 1}
	proofs := map[int]string{}
	for _, i := range picks {
		res, err := (&sumdb.Client{Config: cfg, StateDir: state}).Check(ctx, migKey(i), migSurface(i))
		if err != nil || !res.Found {
			t.Fatalf("lookup %d before: %+v %v", i, res, err)
		}
		proofs[i] = string(res.Proof)
	}
	oldCP := readAll(t, filepath.Join(dir, sumlog.TilesDir, "checkpoint"))

	_, _, spec, o, _ := s3Log(t, "unused.test/log") // a bucket and database for the move
	start := time.Now()
	m, err := sumlog.Migrate(ctx, dir, "posix", spec, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("migrated %d records to S3 in %v", n, time.Since(start).Round(time.Second))
	if string(m.Before) != oldCP || m.Records != uint64(n) {
		t.Fatalf("migrate reported before %q (%d records), want the old checkpoint %q", m.Before, m.Records, oldCP)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	before, _, _, err := log.ParseCheckpoint(m.Before, v.Name(), v)
	if err != nil {
		t.Fatal(err)
	}
	after, _, _, err := log.ParseCheckpoint(m.After, v.Name(), v)
	if err != nil {
		t.Fatalf("the first checkpoint after is not signed by the log's key: %v", err)
	}
	if after.Size != before.Size || string(after.Hash) != string(before.Hash) {
		t.Fatalf("first checkpoint after (%d %x) is not the tree before (%d %x)", after.Size, after.Hash, before.Size, before.Hash)
	}
	if rec, _ := sumlog.RecordedStorage(dir); rec.String() != spec {
		t.Fatalf("the folder records %s, want %s", rec, spec)
	}
	if readAll(t, filepath.Join(dir, sumlog.TilesDir, "checkpoint")) != oldCP {
		t.Error("migrate changed the old storage")
	}

	// The log grows on its new storage; the next checkpoint is consistent
	// with the last one before the move.
	grown, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: migKey(n), Surface: migSurface(n)}})
	if err != nil || grown[0].Index != uint64(n) {
		t.Fatalf("add after migrate: %+v %v", grown, err)
	}
	newURL := serveLog(t, dir, o)
	cp := httpGet(t, newURL+"/checkpoint")
	next, _, _, err := log.ParseCheckpoint([]byte(cp), v.Name(), v)
	if err != nil || next.Size != uint64(n+1) {
		t.Fatalf("checkpoint after the add: %v %v", next, err)
	}
	tree := tlog.Tree{N: int64(next.Size), Hash: tlog.Hash(next.Hash)}
	hr := tlog.TileHashReader(tree, &httpTiles{url: newURL, t: t})
	tp, err := tlog.ProveTree(tree.N, int64(before.Size), hr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(tp, tree.N, tree.Hash, int64(before.Size), tlog.Hash(before.Hash)); err != nil {
		t.Fatalf("the log after the move does not extend the log before it: %v", err)
	}

	// The lock's proofs still verify; lookups from the new storage (by a
	// machine that remembers the old checkpoint) find the same records.
	cfg2, err := sumdb.ParseConfig(vkey+" "+newURL, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range picks {
		if err := cfg2.CheckProof(migKey(i), migSurface(i), proofs[i]); err != nil {
			t.Errorf("stored proof %d after the move: %v", i, err)
		}
		res, err := (&sumdb.Client{Config: cfg2, StateDir: state}).Check(ctx, migKey(i), migSurface(i))
		if err != nil || !res.Found || !strings.Contains(string(res.Proof), "\nindex "+strconv.Itoa(i)+"\n") {
			t.Errorf("lookup %d after the move: %v %v", i, res, err)
		}
	}
	if _, err := sumlog.Migrate(ctx, dir, spec, spec, o, nil); err == nil || !strings.Contains(err.Error(), "same storage") {
		t.Errorf("migrate onto itself: %v", err)
	}
	back := filepath.Join(t.TempDir(), "again")
	if _, err := sumlog.Migrate(ctx, dir, "posix", "posix:"+back, o, nil); err == nil || !strings.Contains(err.Error(), "lives in "+spec) {
		t.Errorf("migrate from where the log no longer lives: %v", err)
	}
}

// httpTiles reads hash tiles over HTTP (tlog-tiles paths).
type httpTiles struct {
	url string
	t   *testing.T
}

func (h *httpTiles) Height() int                                { return 8 }
func (h *httpTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {}
func (h *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tl := range tiles {
		p := strings.Replace(tl.Path(), "tile/8/", "tile/", 1)
		out[i] = []byte(httpGet(h.t, h.url+"/"+p))
	}
	return out, nil
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(b)
}
