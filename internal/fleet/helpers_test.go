//go:build unix

package fleet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

var binDir string

func TestMain(m *testing.M) {
	os.Exit(testbin.Run(m, func() (err error) {
		binDir, err = os.MkdirTemp("", "fleet-test-") // inside the isolated TMPDIR, removed with it
		return err
	}))
}

// helper is the real signing helper (cmd/mcpsum-attest), built once.
func helper(t *testing.T) attestproto.Client {
	t.Helper()
	return attestproto.Client{Helper: testbin.Build(t, filepath.Join(binDir, "mcpsum-attest"), "github.com/mcpsum/mcpsum/cmd/mcpsum-attest")}
}

// keyPair writes a plain P-256 key pair (as openssl makes them) into dir.
func keyPair(t *testing.T, dir, name string) (priv, pub string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pder, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub = filepath.Join(dir, name+".key"), filepath.Join(dir, name+".pub")
	write(t, priv, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
	write(t, pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), 0o644)
	return priv, pub
}

func write(t *testing.T, p string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

func testLock(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lockfiles", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// org is an organisation publishing releases over HTTP, and a machine
// syncing them.
type org struct {
	t        *testing.T
	c        attestproto.Client
	pub      string // the published folder, served at url
	url      string
	key      string // the trusted signer's private key
	to       string // the machine's installed lock
	trust    string
	stranger string // a key nobody trusts
}

func newOrg(t *testing.T) *org {
	t.Helper()
	o := &org{t: t, c: helper(t), pub: t.TempDir()}
	keys := t.TempDir()
	var pub string
	o.key, pub = keyPair(t, keys, "org")
	o.stranger, _ = keyPair(t, keys, "stranger")
	srv := httptest.NewServer(http.FileServer(http.Dir(o.pub)))
	t.Cleanup(srv.Close)
	o.url = srv.URL + "/fleet/org.lock"
	etc := filepath.Join(t.TempDir(), "etc", "mcpsum")
	o.to = filepath.Join(etc, "org.lock")
	o.trust = o.to + TrustSuffix
	write(t, filepath.Join(etc, "org.pub"), read(t, pub), 0o644)
	write(t, o.trust, []byte(`{"name": "eng", "signers": [{"name": "org-release", "key": "org.pub"}]}`+"\n"), 0o644)
	return o
}

// publish releases lock as release serial of the org lock "eng" (the
// one the machine's trust file names), valid for 30 days, signed with key.
func (o *org) publish(lock []byte, serial int64, key string) {
	o.t.Helper()
	o.publishAs(PublishOptions{Name: "eng", Serial: serial}, lock, key)
}

// publishAs releases lock as po says (its Lockfile, Helper and SignArgs
// are set here).
func (o *org) publishAs(po PublishOptions, lock []byte, key string) {
	o.t.Helper()
	po.Lockfile = filepath.Join(o.pub, "fleet", "org.lock")
	write(o.t, po.Lockfile, lock, 0o644)
	po.Helper, po.SignArgs = o.c, []string{"--key", key}
	if _, err := Publish(context.Background(), po); err != nil {
		o.t.Fatalf("publish %d: %v", po.Serial, err)
	}
}

// publishUnchecked releases lock as a careless or hostile publisher could:
// signed, though the lock does not match its own digests.
func (o *org) publishUnchecked(lock []byte, serial int64, key string) {
	o.t.Helper()
	p := filepath.Join(o.pub, "fleet", "org.lock")
	write(o.t, p, lock, 0o644)
	stmt := Release{Name: "eng", Serial: serial, Expires: time.Now().Add(time.Hour).UTC().Truncate(time.Second), Lockfile: Digest(lock)}.Marshal()
	resp, err := o.c.Sign(context.Background(), stmt, "--key", key)
	if err != nil {
		o.t.Fatal(err)
	}
	write(o.t, p+ReleaseSuffix, stmt, 0o644)
	write(o.t, p+BundleSuffix, resp.Bundle, 0o644)
}

func (o *org) sync() (*SyncResult, error) {
	return o.syncAt(time.Now())
}

// syncAt syncs as if the clock said now.
func (o *org) syncAt(now time.Time) (*SyncResult, error) {
	return Sync(context.Background(), SyncOptions{From: o.url, To: o.to, Helper: o.c, Now: func() time.Time { return now }})
}

// installed is every file sync writes, by suffix.
func (o *org) installed() map[string]string {
	out := map[string]string{}
	for _, s := range []string{"", ReleaseSuffix, BundleSuffix, RecordSuffix} {
		out[s] = string(read(o.t, o.to+s))
	}
	return out
}
