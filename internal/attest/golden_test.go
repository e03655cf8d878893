package attest_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
)

var update = flag.Bool("update", false, "regenerate testdata/golden (see testdata/README.md)")

// TestGolden verifies bundles committed in testdata/golden, made by an earlier
// build: bundles must stay verifiable across mcpsum and sigstore-go versions,
// and the keyless one long after its virtual Sigstore is gone (certificates
// are checked at the signature's timestamps, not at "now").
func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *update {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lockfiles", "valid.lock"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		attesttest.WriteFixtures(t, dir, "mcp.lock", data)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v (regenerate with go test ./internal/attest -run TestGolden -update)", err)
		}
		return b
	}
	data := read("mcp.lock")
	if _, err := attest.Verify(data, read("mcp.lock.key.sigstore.json"), attest.VerifyOptions{PublicKeyPEM: read("cosign.pub")}); err != nil {
		t.Fatal(err)
	}
	keyless := attest.VerifyOptions{CertificateIdentity: attesttest.Identity, CertificateOIDCIssuer: attesttest.Issuer,
		TrustedRootJSON: read("trusted_root.json")}
	res, err := attest.Verify(data, read("mcp.lock.keyless.sigstore.json"), keyless)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("golden keyless bundle signed at %v", res.Timestamps)
	_, err = attest.Verify(flip(data, 42), read("mcp.lock.keyless.sigstore.json"), keyless)
	wantVerdict(t, err, "signature does not match the data")
	if _, err := attest.SignWithKey(t.Context(), data, read("cosign.key"), []byte(attesttest.Passphrase)); err != nil {
		t.Fatal(err)
	}
}
