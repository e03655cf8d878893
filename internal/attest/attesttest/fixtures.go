package attesttest

import (
	"context"
	"crypto/elliptic"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/mcpsum/mcpsum/internal/attest"
)

// GenerateKeyPEM returns a fresh ECDSA P-256 key pair the way
// `cosign generate-key-pair` writes it: the private key as an
// "ENCRYPTED SIGSTORE PRIVATE KEY" PEM under pass (which may be empty; nil
// gives an unencrypted PKCS#8 "PRIVATE KEY"), the public key as PKIX
// "PUBLIC KEY" PEM.
func GenerateKeyPEM(t testing.TB, pass []byte) (privPEM, pubPEM []byte) {
	t.Helper()
	var pf cryptoutils.PassFunc
	if pass != nil {
		pf = cryptoutils.StaticPasswordFunc(pass)
	}
	privPEM, pubPEM, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), pf)
	if err != nil {
		t.Fatal(err)
	}
	return privPEM, pubPEM
}

// Passphrase protects the private key WriteFixtures writes.
const Passphrase = "mcpsum-test"

// Fixtures are the files WriteFixtures wrote (absolute paths).
type Fixtures struct {
	Data          string // the signed file (a copy of the data given)
	Key, Pub      string // cosign.key (encrypted with Passphrase), cosign.pub
	OtherPub      string // other.pub: a key that did not sign anything
	KeyBundle     string // Data signed with Key
	KeylessBundle string // Data signed keyless as Identity/Issuer (Rekor + TSA)
	TrustedRoot   string // trusted_root.json for KeylessBundle
}

// WriteFixtures writes, into dir, name (holding data), a key pair, bundles
// for data made with the key and keyless (as Identity, issued by Issuer),
// and the trusted_root.json that verifies the keyless bundle offline:
//
//	name  name.key.sigstore.json  name.keyless.sigstore.json
//	cosign.key  cosign.pub  other.pub  trusted_root.json
//
// The keyless bundle stays verifiable after the virtual Sigstore is gone:
// certificates are checked at the signature's timestamps, not at "now".
func WriteFixtures(t testing.TB, dir, name string, data []byte) *Fixtures {
	t.Helper()
	f := &Fixtures{
		Data: filepath.Join(dir, name), Key: filepath.Join(dir, "cosign.key"), Pub: filepath.Join(dir, "cosign.pub"),
		OtherPub: filepath.Join(dir, "other.pub"), KeyBundle: filepath.Join(dir, name+".key.sigstore.json"),
		KeylessBundle: filepath.Join(dir, name+".keyless.sigstore.json"), TrustedRoot: filepath.Join(dir, "trusted_root.json"),
	}
	priv, pub := GenerateKeyPEM(t, []byte(Passphrase))
	_, other := GenerateKeyPEM(t, nil)
	keyBundle, err := attest.SignWithKey(context.Background(), data, priv, []byte(Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	s := Start(t)
	keyless, err := attest.SignKeyless(context.Background(), data, s.KeylessOptions(Identity, Issuer))
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range map[string][]byte{f.Data: data, f.Key: priv, f.Pub: pub, f.OtherPub: other,
		f.KeyBundle: keyBundle, f.KeylessBundle: keyless, f.TrustedRoot: s.TrustedRootJSON} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}
