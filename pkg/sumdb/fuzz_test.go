package sumdb_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"golang.org/x/mod/sumdb/note"
)

// memLog is a log answered from memory (no sockets, so a fuzzer runs
// quickly): the files of a real log folder, with some paths answered by
// the test instead.
type memLog struct {
	dir      string
	override func(path string) ([]byte, bool)
}

func (m *memLog) RoundTrip(r *http.Request) (*http.Response, error) {
	p := strings.TrimPrefix(r.URL.Path, "/")
	body, ok := []byte(nil), false
	if m.override != nil {
		body, ok = m.override(p)
	}
	if !ok {
		var err error
		switch {
		case strings.HasPrefix(p, "lookup/"):
			body, err = []byte("0\n"), nil
		default:
			body, err = os.ReadFile(filepath.Join(m.dir, sumlog.TilesDir, filepath.FromSlash(p)))
		}
		if err != nil {
			return &http.Response{StatusCode: 404, Status: "404 Not Found", Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// fuzzLog is a real log of n records, its signer, and a client of it that
// reads through m.
func fuzzLog(f *testing.F, n int) (*sumdb.Config, note.Signer, *memLog, func(i int) string) {
	cfg, dir, key := newLog(f, n)
	skey, err := os.ReadFile(filepath.Join(dir, sumlog.KeyFile))
	if err != nil {
		f.Fatal(err)
	}
	s, err := note.NewSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		f.Fatal(err)
	}
	c, err := sumdb.ParseConfig(cfg.VerifierKey+" http://127.0.0.1:1", "")
	if err != nil {
		f.Fatal(err)
	}
	return c, s, &memLog{dir: dir}, key
}

func sign(s note.Signer, text string) ([]byte, bool) {
	msg, err := note.Sign(&note.Note{Text: text}, s)
	return msg, err == nil
}

func b64(n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, n)) }

// lookupNoPanic runs a lookup (with a remembered checkpoint, so the
// timeline is checked too) and a stored-proof check; any outcome but a
// crash is fine.
func lookupNoPanic(t *testing.T, cfg *sumdb.Config, m *memLog, key string, remembered []byte) {
	state := t.TempDir()
	c := &sumdb.Client{Config: cfg, StateDir: state, HTTP: &http.Client{Transport: m}}
	if remembered != nil {
		c.Remember(context.Background(), []string{"c2sp.org/tlog-proof@v1\nindex 0\n\n" + string(remembered)})
	}
	c.Check(context.Background(), key, surface(0))
}

// Validly signed checkpoints of any content: a root hash of the wrong
// length, a huge or negative-looking size, extension lines. None crashes a
// lookup, the timeline or a proof check; a hash of the wrong length is an
// error.
func FuzzCheckpoint(f *testing.F) {
	cfg, s, m, key := fuzzLog(f, 3)
	real, err := os.ReadFile(filepath.Join(m.dir, sumlog.TilesDir, "checkpoint"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"3\n" + b64(31) + "\n", "3\n" + b64(33) + "\n", "3\n\n", "0\n" + b64(0) + "\n",
		"18446744073709551615\n" + b64(32) + "\n", "9223372036854775808\n" + b64(32) + "\n",
		"3\n" + b64(32) + "\nextension line\n", "1\n" + b64(16) + "\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cp, ok := sign(s, cfg.Origin()+"\n"+body)
		if !ok {
			return
		}
		proof := "c2sp.org/tlog-proof@v1\nindex 0\n" + b64(32) + "\n\n" + string(cp)
		err := cfg.CheckProof(key(0), surface(0), proof)
		if err == nil {
			t.Fatalf("a made-up checkpoint proves a record:\n%s", cp)
		}
		mm := &memLog{dir: m.dir, override: func(p string) ([]byte, bool) { return cp, p == "checkpoint" }}
		lookupNoPanic(t, cfg, mm, key(0), nil)
		lookupNoPanic(t, cfg, m, key(0), cp)    // remembered: the fuzzed one
		lookupNoPanic(t, cfg, mm, key(0), real) // served: the fuzzed one
	})
}

// Hash tiles and entry bundles of any content, under a validly signed
// checkpoint: none crashes a lookup.
func FuzzTile(f *testing.F) {
	cfg, _, m, key := fuzzLog(f, 300)
	f.Add("tile/0/000", []byte{})
	f.Add("tile/0/001.p/44", bytes.Repeat([]byte{1}, 44*32-1))
	f.Add("tile/1/000.p/1", bytes.Repeat([]byte{1}, 33))
	f.Add("tile/entries/000", []byte{0xff, 0xff, 1})
	f.Add("tile/entries/001.p/44", []byte{0, 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		mm := &memLog{dir: m.dir, override: func(p string) ([]byte, bool) { return data, p == path }}
		for _, i := range []int{0, 299} {
			c := &sumdb.Client{Config: cfg, StateDir: t.TempDir(), HTTP: &http.Client{Transport: mm}}
			c.Check(context.Background(), key(i), surface(i))
		}
	})
}

// Stored proofs of any content around a validly signed checkpoint: none
// crashes the offline check or the seeding of a fresh machine.
func FuzzProof(f *testing.F) {
	cfg, s, m, key := fuzzLog(f, 3)
	real, err := os.ReadFile(filepath.Join(m.dir, sumlog.TilesDir, "checkpoint"))
	if err != nil {
		f.Fatal(err)
	}
	sum := sha256.Sum256(nil)
	f.Add("index 0\n"+b64(32)+"\n"+b64(32)+"\n", "3\n"+base64.StdEncoding.EncodeToString(sum[:])+"\n")
	f.Add("index 18446744073709551615\n", "3\n"+b64(32)+"\n")
	f.Add("index 2\n"+b64(31)+"\n", "3\n"+b64(2)+"\n")
	f.Add("extra !!\nindex 1\n", "2\n"+b64(32)+"\n")
	f.Fuzz(func(t *testing.T, head, body string) {
		for _, cp := range [][]byte{real, nil} {
			if cp == nil {
				var ok bool
				if cp, ok = sign(s, cfg.Origin()+"\n"+body); !ok {
					continue
				}
			}
			text := "c2sp.org/tlog-proof@v1\n" + head + "\n" + string(cp)
			if cfg.CheckProof(key(1), surface(1), text) == nil && !strings.Contains(text, "index 1\n") {
				t.Fatalf("a proof for another index checks:\n%s", text)
			}
			c := &sumdb.Client{Config: cfg, StateDir: t.TempDir(), HTTP: &http.Client{Transport: m}}
			c.Remember(context.Background(), []string{text})
		}
	})
}

// A validly signed checkpoint whose root hash is not 32 bytes is an error
// everywhere a checkpoint is read, never a crash (a slice-to-array
// conversion panics on a short hash) or a truncated hash.
func TestCheckpointHashLength(t *testing.T) {
	cfg, dir, key := newLog(t, 3)
	skey, err := os.ReadFile(filepath.Join(dir, sumlog.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		t.Fatal(err)
	}
	c0, err := sumdb.ParseConfig(cfg.VerifierKey+" http://127.0.0.1:1", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 16, 31, 33, 64} {
		cp, ok := sign(s, fmt.Sprintf("%s\n3\n%s\n", cfg.Origin(), b64(n)))
		if !ok {
			t.Fatal("sign")
		}
		m := &memLog{dir: dir, override: func(p string) ([]byte, bool) { return cp, p == "checkpoint" }}
		c := &sumdb.Client{Config: c0, StateDir: t.TempDir(), HTTP: &http.Client{Transport: m}}
		if _, err := c.Check(context.Background(), key(0), surface(0)); !sumdb.IsSecurity(err) || !strings.Contains(err.Error(), fmt.Sprintf("root hash of %d bytes", n)) {
			t.Errorf("served checkpoint with a %d-byte hash: %v", n, err)
		}
		proof := "c2sp.org/tlog-proof@v1\nindex 0\n" + b64(32) + "\n\n" + string(cp)
		if err := c0.CheckProof(key(0), surface(0), proof); !sumdb.IsSecurity(err) || !strings.Contains(err.Error(), "root hash of") {
			t.Errorf("stored proof with a %d-byte hash: %v", n, err)
		}
		if err := c.Remember(context.Background(), []string{proof}); err != nil {
			t.Errorf("Remember of a proof with a %d-byte hash: %v, want it skipped", n, err)
		}
	}
}
