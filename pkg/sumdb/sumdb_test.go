package sumdb_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"golang.org/x/mod/sumdb/note"
)

func surface(n int) sumdb.Surface {
	return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{
		{"tool" + fmt.Sprint(n): "sha256:" + strings.Repeat("a", 64)}, {}, {}, {}}}
}

// newLog makes a log of n records (keys key(i), surfaces surface(i)) and
// serves it on loopback.
func newLog(t testing.TB, n int) (*sumdb.Config, string, func(i int) string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "test.example/log")
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) string { return fmt.Sprintf("npm/pkg%d@1.0.0#%024x", i, i) }
	entries := make([]sumlog.Entry, n)
	for i := range entries {
		entries[i] = sumlog.Entry{Key: key(i), Surface: surface(i)}
	}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, entries); err != nil {
		t.Fatal(err)
	}
	h, _, err := sumlog.Handler(context.Background(), dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg, err := sumdb.ParseConfig(vkey+" "+srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir, key
}

func TestKey(t *testing.T) {
	id := sumdb.Identity{Argv: []string{"/usr/bin/npx", "-y", "@scope/pkg@1.2.3", "--x"}, Env: []string{"B", "A"}, Era: "legacy", Capabilities: []byte(`{}`)}
	k, ok := sumdb.Key(id)
	if !ok || !strings.HasPrefix(k, "npm/@scope/pkg@1.2.3#") || len(k) != len("npm/@scope/pkg@1.2.3#")+24 {
		t.Fatalf("Key = %q, %v", k, ok)
	}
	same := id
	same.Argv = []string{"npx", "-y", "@scope/pkg@1.2.3", "--x"} // another folder of npx
	same.Env = []string{"A", "B"}
	if k2, _ := sumdb.Key(same); k2 != k {
		t.Errorf("the same command from another npx folder, env in another order: key %q, want %q", k2, k)
	}
	for _, change := range []func(*sumdb.Identity){
		func(i *sumdb.Identity) { i.Argv = []string{"npx", "-y", "@scope/pkg@1.2.3", "--y"} },
		func(i *sumdb.Identity) { i.Env = []string{"A"} },
		func(i *sumdb.Identity) { i.Era = "modern" },
		func(i *sumdb.Identity) { i.Capabilities = []byte(`{"roots":{}}`) },
	} {
		c := id
		change(&c)
		if k2, _ := sumdb.Key(c); k2 == k {
			t.Errorf("a changed identity %+v keeps the key", c)
		}
	}
	if _, ok := sumdb.Key(sumdb.Identity{Argv: []string{"node", "server.js"}}); ok {
		t.Error("an unpinned command has a key")
	}
	if m := sumdb.Module(k); m != "npm/@scope/pkg" {
		t.Errorf("Module = %q", m)
	}
}

func TestExcluded(t *testing.T) {
	_, vkey, err := note.GenerateKey(rand.Reader, "test.example/log")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sumdb.ParseConfig(vkey+" https://log.example", "npm/@corp/*, pypi/internal-tool")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"npm/@corp/a@1.0.0#00":        true,
		"npm/@corp@1.0.0#00":          false,
		"npm/@corpx/a@1.0.0#00":       false,
		"pypi/internal-tool@2.0#00":   true,
		"go/github.com/corp/x@v1#00":  false,
		"npm/@modelcontextprotocol/x": false,
	} {
		if got := cfg.Excluded(key); got != want {
			t.Errorf("Excluded(%s) = %v, want %v", key, got, want)
		}
	}
	// Patterns are matched in the keys' normal form: another spelling of
	// an excluded name is excluded too.
	cfg, err = sumdb.ParseConfig(vkey+" https://log.example", "pypi/Internal_Tool, oci/corp/*, npm/@Corp, *i/Other.Tool")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"pypi/internal-tool@1#00":           true,
		"pypi/other-tool@1#00":              true,
		"pypi/internal-tools@1#00":          false,
		"oci/docker.io/corp/x@sha256:00#00": true,
		"oci/ghcr.io/corp/x@sha256:00#00":   false,
		"npm/@corp/x@1.0.0#00":              true,
		"npm/@corpx/x@1.0.0#00":             false,
	} {
		if got := cfg.Excluded(key); got != want {
			t.Errorf("Excluded(%s) = %v, want %v", key, got, want)
		}
	}
	for _, bad := range []string{"key-only", "notakey https://x", vkey + " ftp://x",
		vkey + " http://log.example", vkey + " http://10.0.0.8:8080", vkey + " https://u:p@log.example", vkey + " https://log.example/?x=1"} {
		if _, err := sumdb.ParseConfig(bad, ""); err == nil || !strings.Contains(err.Error(), "MCPSUMDB") {
			t.Errorf("ParseConfig(%q) = %v, want an MCPSUMDB error", bad, err)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:8080", "http://[::1]:8080/log", "http://localhost", "https://log.example/mcp/"} {
		if _, err := sumdb.ParseConfig(vkey+" "+ok, ""); err != nil {
			t.Errorf("ParseConfig(%s): %v", ok, err)
		}
	}
	if c, err := sumdb.ParseConfig("off", ""); c != nil || err != nil {
		t.Errorf("off: %v %v", c, err)
	}
}

// A lookup finds a record and proves it; its proof checks offline; a
// changed surface or a proof for another index fails; a differing surface
// is a MismatchError; an unknown key is not found.
func TestLookupAndProof(t *testing.T) {
	cfg, _, key := newLog(t, 300) // two entry bundles, a partial second one
	c := &sumdb.Client{Config: cfg, StateDir: t.TempDir()}
	ctx := context.Background()
	for _, i := range []int{0, 255, 256, 299} {
		res, err := c.Check(ctx, key(i), surface(i))
		if err != nil || !res.Found {
			t.Fatalf("Check(%d): %v %+v", i, err, res)
		}
		if err := cfg.CheckProof(key(i), surface(i), string(res.Proof)); err != nil {
			t.Errorf("CheckProof(%d): %v", i, err)
		}
		if err := cfg.CheckProof(key(i), surface(i+1), string(res.Proof)); !sumdb.IsSecurity(err) {
			t.Errorf("CheckProof of another surface (%d): %v, want a security error", i, err)
		}
		if err := cfg.CheckProof(key(i+1), surface(i+1), string(res.Proof)); !sumdb.IsSecurity(err) {
			t.Errorf("CheckProof of another key with this proof (%d): %v", i, err)
		}
	}
	_, err := c.Check(ctx, key(7), surface(8))
	var me *sumdb.MismatchError
	if !asMismatch(err, &me) || me.Logged != sumdb.Digest(surface(7)) || me.Local != sumdb.Digest(surface(8)) {
		t.Errorf("Check of a changed surface: %v", err)
	}
	if res, err := c.Check(ctx, key(1000), surface(0)); err != nil || res.Found {
		t.Errorf("Check of an unlogged key: %v %+v", err, res)
	}
}

func asMismatch(err error, me **sumdb.MismatchError) bool {
	m, ok := err.(*sumdb.MismatchError)
	*me = m
	return ok
}

// BenchmarkLookup100k is a warm lookup with its proofs (checkpoint, lookup,
// entry bundle, hash tiles, inclusion and consistency checks) against a
// log of 100,000 records over loopback HTTP. Goal: ≤ 50 ms.
func BenchmarkLookup100k(b *testing.B) { benchLookup(b, "") }

// BenchmarkLookup100kCached is BenchmarkLookup100k with the tile cache:
// the hash tiles and entry bundles come from disk once seen (each still
// checked against the signed tree).
func BenchmarkLookup100kCached(b *testing.B) { benchLookup(b, b.TempDir()) }

func benchLookup(b *testing.B, cache string) {
	n := 100_000
	if os.Getenv("MCPSUM_BENCH_SMALL") == "1" {
		n = 1000
	}
	cfg, _, key := newLog(b, n)
	c := &sumdb.Client{Config: cfg, StateDir: b.TempDir(), CacheDir: cache}
	ctx := context.Background()
	if _, err := c.Check(ctx, key(0), surface(0)); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i = (i + 7919) % n
		if res, err := c.Check(ctx, key(i), surface(i)); err != nil || !res.Found {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckProofs32 is verify --offline's proof work for a lock of 32
// logged entries. Goal: ≤ 20 ms.
func BenchmarkCheckProofs32(b *testing.B) {
	cfg, _, key := newLog(b, 1000)
	c := &sumdb.Client{Config: cfg, StateDir: b.TempDir()}
	proofs := make([]string, 32)
	for i := range proofs {
		res, err := c.Check(context.Background(), key(i*31), surface(i*31))
		if err != nil {
			b.Fatal(err)
		}
		proofs[i] = string(res.Proof)
	}
	for b.Loop() {
		for i, p := range proofs {
			if err := cfg.CheckProof(key(i*31), surface(i*31), p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// A hostile log (a FAKE: the real handler with its lookups answered
// wrongly) that points a key at another key's record, or past its tree, is
// a security error, never a match or a silent "not logged".
func TestHostileLookup(t *testing.T) {
	cfg, dir, key := newLog(t, 10)
	h, _, err := sumlog.Handler(context.Background(), dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"3\n", "99\n", "x\n"} {
		lying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/lookup/") {
				io.WriteString(w, answer)
				return
			}
			h.ServeHTTP(w, r)
		}))
		c2, err := sumdb.ParseConfig(cfg.VerifierKey+" "+lying.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&sumdb.Client{Config: c2, StateDir: t.TempDir()}).Check(context.Background(), key(5), surface(5))
		if !sumdb.IsSecurity(err) {
			t.Errorf("lookup answered %q: %v, want a security error", answer, err)
		}
		lying.Close()
	}
}
