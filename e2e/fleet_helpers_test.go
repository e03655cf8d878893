package e2e

import (
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
)

// fleetOrg is an organisation that publishes its lock over HTTP (pub, served
// at url) and signs releases with key, and a machine whose trust file
// beside to names the key's public half.
type fleetOrg struct {
	pub, url, key, to string
}

func newFleetOrg(t *testing.T) *fleetOrg {
	t.Helper()
	o := &fleetOrg{pub: t.TempDir()}
	srv := httptest.NewServer(http.FileServer(http.Dir(o.pub)))
	t.Cleanup(srv.Close)
	o.url = srv.URL + "/org.lock"
	etc := filepath.Join(t.TempDir(), "etc", "mcpsum")
	must(t, os.MkdirAll(etc, 0o755))
	o.to = filepath.Join(etc, "org.lock")
	var pub []byte
	o.key, pub = ecKey(t, t.TempDir())
	must(t, os.WriteFile(filepath.Join(etc, "release.pub"), pub, 0o644))
	must(t, os.WriteFile(o.to+".trust.json", []byte(`{"name": "eng", "signers": [{"name": "acme-release", "key": "release.pub"}]}`+"\n"), 0o644))
	return o
}

// ecKey writes a P-256 private key as openssl writes it and returns its
// path and the public key's PEM.
func ecKey(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	der, err := x509.MarshalECPrivateKey(k)
	must(t, err)
	pder, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	must(t, err)
	p := filepath.Join(dir, "release.key")
	must(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600))
	return p, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder})
}

// release publishes lock (a file) as release serial, signed with key.
func (o *fleetOrg) release(t *testing.T, lock string, serial, key string) {
	t.Helper()
	b, err := os.ReadFile(lock)
	must(t, err)
	p := filepath.Join(o.pub, "org.lock")
	must(t, os.WriteFile(p, b, 0o644))
	if so, se, code := mcpsum(t, o.pub, nil, "fleet", "release", "--lockfile", p, "--name", "eng", "--serial", serial, "--key", key); code != 0 {
		t.Fatalf("fleet release %s: exit %d\n%s%s", serial, code, so, se)
	}
}

// installed is the machine's installed files, by name.
func (o *fleetOrg) installed(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range []string{"", ".release.json", ".release.json.sigstore.json", ".sync.json"} {
		out[s] = readFile(t, o.to+s)
	}
	return out
}
