package sumlog_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// init makes a private signing key and refuses a folder that has one; add
// is idempotent for the same surface and refuses another surface for a
// logged key with both digests, appending nothing (the checkpoint and the
// index stay byte for byte the same).
func TestInitAndAdd(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "posix.test/log")
	if err != nil || !strings.HasPrefix(vkey, "posix.test/log+") {
		t.Fatalf("Init: %q %v", vkey, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, sumlog.KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("signing key: %v %v", fi, err)
	}
	if _, err := sumlog.Init(dir, "posix.test/log"); err == nil || !strings.Contains(err.Error(), "already holds a log") {
		t.Errorf("Init over a log: %v", err)
	}
	if _, err := sumlog.Init(t.TempDir(), "has space"); err == nil {
		t.Error("Init accepted an origin with a space")
	}
	a := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("1", 64)}, {}, {}, {}}}
	b := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("2", 64)}, {}, {}, {}}}
	got, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: a}})
	if err != nil || !got[0].New || got[0].Index != 0 {
		t.Fatalf("first add: %+v %v", got, err)
	}
	cp := filepath.Join(dir, sumlog.TilesDir, "checkpoint")
	before, idx := readAll(t, cp), readAll(t, filepath.Join(dir, sumlog.TilesDir, "lookup", sumlog.KeyHash("npm/x@1.0.0#00")))
	if got, err = sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: a}}); err != nil || got[0].New {
		t.Errorf("same surface again: %+v %v", got, err)
	}
	_, err = sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/y@1.0.0#00", Surface: a}, {Key: "npm/x@1.0.0#00", Surface: b}})
	var ce *sumlog.ConflictError
	if !errors.As(err, &ce) || ce.Logged != sumdb.Digest(a) || ce.New != sumdb.Digest(b) || !strings.Contains(err.Error(), ce.Logged) || !strings.Contains(err.Error(), ce.New) {
		t.Fatalf("another surface for a logged key: %v", err)
	}
	if readAll(t, cp) != before || readAll(t, filepath.Join(dir, sumlog.TilesDir, "lookup", sumlog.KeyHash("npm/x@1.0.0#00"))) != idx {
		t.Error("a refused add changed the log")
	}
}

func readAll(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An add that crashed between publishing its records and writing their
// lookups (or a log made before lookups were files) leaves records without
// lookups: serve writes them before it answers, and add before it decides,
// so the key keeps its one surface.
func TestLookupsRebuiltFromTheLog(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "crash.test/log")
	if err != nil {
		t.Fatal(err)
	}
	a := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("1", 64)}, {}, {}, {}}}
	b := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("2", 64)}, {}, {}, {}}}
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: a}, {Key: "npm/y@1.0.0#00", Surface: a}}); err != nil {
		t.Fatal(err)
	}
	crash := func() {
		if err := os.RemoveAll(filepath.Join(dir, sumlog.TilesDir, "lookup")); err != nil {
			t.Fatal(err)
		}
	}
	crash()
	url := serveLog(t, dir, sumlog.Options{})
	cfg, err := sumdb.ParseConfig(vkey+" "+url, "")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := (&sumdb.Client{Config: cfg, StateDir: t.TempDir()}).Check(ctx, "npm/y@1.0.0#00", a); err != nil || !res.Found {
		t.Fatalf("lookup served after the lookups were lost: %+v %v", res, err)
	}
	crash()
	_, err = sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: b}})
	var ce *sumlog.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("another surface for a key whose lookup was lost: %v, want a conflict", err)
	}
	got, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: a}})
	if err != nil || got[0].New || got[0].Index != 0 {
		t.Errorf("the same surface again: %+v %v", got, err)
	}
}

// Tessera's appender runs goroutines until its context ends: none
// outlives an add (they would keep writing into the log's folder).
func TestAddLeavesNoGoroutines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	if _, err := sumlog.Init(dir, "posix.test/log"); err != nil {
		t.Fatal(err)
	}
	s := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("1", 64)}, {}, {}, {}}}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: s}}); err != nil {
		t.Fatal(err)
	}
	// The goroutines see the cancellation and return soon after; a leaked
	// one never does. Generous: the machine may be loaded.
	var stacks string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "transparency-dev/tessera") {
			return
		}
	}
	t.Fatalf("Tessera goroutines still run after the add:\n%s", stacks)
}

// serve answers the log's paths only: the checkpoint, tiles and entry
// bundles as tlog-tiles spells them, lookups. A dot segment, a folder or
// the storage's own state beside the tiles is not found.
func TestServeOnlyLogPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	if _, err := sumlog.Init(dir, "posix.test/log"); err != nil {
		t.Fatal(err)
	}
	s := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("1", 64)}, {}, {}, {}}}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/x@1.0.0#00", Surface: s}}); err != nil {
		t.Fatal(err)
	}
	h, _, err := sumlog.Handler(context.Background(), dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) int {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "http://log.test/", nil)
		r.URL.Path = p // as a client may send it, uncleaned
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	for _, p := range []string{"/checkpoint", "/tile/0/000.p/1", "/tile/entries/000.p/1", "/lookup/" + sumlog.KeyHash("npm/x@1.0.0#00")} {
		if code := get(p); code != 200 {
			t.Errorf("GET %s: %d, want 200", p, code)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, sumlog.TilesDir, ".state", "treeState")); err != nil {
		t.Fatalf("the storage keeps no state beside the tiles any more (%v): pick another file for this test", err)
	}
	for _, p := range []string{"/tile/../.state/treeState", "/tile/0/../../.state/treeState", "/tile/", "/tile/0/", "/tile/entries/",
		"/tile/0/000.p/1/", "/tile/0/0.p/1", "/tile/entries/../.state/treeState", "/checkpoint/", "/.state/treeState", "/tile/8/0/000.p/1"} {
		if code := get(p); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}
