package attest_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
)

var lock = []byte("{\n  \"version\": 1,\n  \"servers\": {}\n}\n")

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x01
	return c
}

func wantVerdict(t *testing.T, err error, contains string) {
	t.Helper()
	var ve *attest.VerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *VerificationError, got %T: %v", err, err)
	}
	if !strings.Contains(ve.Reason, contains) {
		t.Fatalf("reason %q does not mention %q", ve.Reason, contains)
	}
	t.Logf("rejected as expected: %v", err)
}

func wantUsage(t *testing.T, err error, option, contains string) {
	t.Helper()
	var ue *attest.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("want *UsageError, got %T: %v", err, err)
	}
	if ue.Option != option || !strings.Contains(ue.Error(), contains) {
		t.Fatalf("got %q (option %q), want option %q mentioning %q", ue.Error(), ue.Option, option, contains)
	}
}

func TestSignWithKeyRoundTrip(t *testing.T) {
	priv, pub := attesttest.GenerateKeyPEM(t, []byte("pw"))
	if !bytes.Contains(priv, []byte("ENCRYPTED SIGSTORE PRIVATE KEY")) {
		t.Fatalf("GenerateKeyPEM did not write cosign's format:\n%s", priv)
	}
	b, err := attest.SignWithKey(context.Background(), lock, priv, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	// The shape cosign writes and `cosign verify-blob --bundle --key` reads.
	var doc struct {
		MediaType            string
		VerificationMaterial struct {
			PublicKey   *struct{ Hint string }
			TlogEntries []any
		}
		MessageSignature struct {
			MessageDigest struct{ Algorithm, Digest string }
			Signature     string
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.MediaType != attest.MediaType || doc.VerificationMaterial.PublicKey == nil ||
		doc.MessageSignature.MessageDigest.Algorithm != "SHA2_256" || doc.MessageSignature.Signature == "" ||
		len(doc.VerificationMaterial.TlogEntries) != 0 || b[len(b)-1] != '\n' {
		t.Fatalf("unexpected bundle shape:\n%s", b)
	}
	res, err := attest.Verify(lock, b, attest.VerifyOptions{PublicKeyPEM: pub})
	if err != nil {
		t.Fatal(err)
	}
	if res.Keyless || res.KeyHint != doc.VerificationMaterial.PublicKey.Hint ||
		res.Digest != "sha256:"+hexSHA256(lock) || len(res.Timestamps) != 0 {
		t.Fatalf("unexpected result %+v", res)
	}
}

func TestSignWithKeyFormats(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pubPEM, _ := cryptoutils.MarshalPublicKeyToPEM(&ec.PublicKey)
	pkcs8, _ := cryptoutils.MarshalPrivateKeyToPEM(ec)
	sec1DER, _ := x509.MarshalECPrivateKey(ec)
	sec1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1DER})
	encDER, _ := cryptoutils.MarshalPrivateKeyToEncryptedDER(ec, cryptoutils.StaticPasswordFunc([]byte("s3cret")))
	enc := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: encDER})
	legacy := bytes.ReplaceAll(enc, []byte("SIGSTORE"), []byte("COSIGN"))
	emptyDER, _ := cryptoutils.MarshalPrivateKeyToEncryptedDER(ec, cryptoutils.StaticPasswordFunc([]byte{}))
	emptyPass := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: emptyDER})
	for _, tc := range []struct {
		name      string
		key, pass []byte
	}{
		{"cosign encrypted", enc, []byte("s3cret")},
		{"cosign legacy type", legacy, []byte("s3cret")},
		{"cosign empty passphrase, nil given", emptyPass, nil},
		{"pkcs8", pkcs8, nil},
		{"sec1", sec1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := attest.SignWithKey(context.Background(), lock, tc.key, tc.pass)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := attest.Verify(lock, b, attest.VerifyOptions{PublicKeyPEM: pubPEM}); err != nil {
				t.Fatal(err)
			}
		})
	}

	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384PEM, _ := cryptoutils.MarshalPrivateKeyToPEM(p384)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPEM, _ := cryptoutils.MarshalPrivateKeyToPEM(rsaKey)
	for _, tc := range []struct {
		name, want string
		key, pass  []byte
	}{
		{"wrong passphrase", "wrong passphrase", enc, []byte("nope")},
		{"missing passphrase", "without its passphrase: put it in MCPSUM_KEY_PASSWORD", enc, nil},
		{"public key", "is a public key", pubPEM, nil},
		{"not pem", "not a PEM private key", []byte("hello"), nil},
		{"p384", "unsupported key type ECDSA P-384", p384PEM, nil},
		{"rsa", "unsupported key type RSA-2048", rsaPEM, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := attest.SignWithKey(context.Background(), lock, tc.key, tc.pass)
			wantUsage(t, err, "--key", tc.want)
		})
	}
}

func TestVerifyKeyRejects(t *testing.T) {
	priv, pub := attesttest.GenerateKeyPEM(t, nil)
	_, otherPub := attesttest.GenerateKeyPEM(t, nil)
	b, err := attest.SignWithKey(context.Background(), lock, priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := attest.VerifyOptions{PublicKeyPEM: pub}
	t.Run("tampered data", func(t *testing.T) {
		for _, i := range []int{0, len(lock) / 2, len(lock) - 1} {
			_, err := attest.Verify(flip(lock, i), b, key)
			wantVerdict(t, err, "signature does not verify with the given public key")
		}
	})
	t.Run("extra byte", func(t *testing.T) {
		_, err := attest.Verify(append(bytes.Clone(lock), ' '), b, key)
		wantVerdict(t, err, "signature does not verify")
	})
	t.Run("tampered signature", func(t *testing.T) {
		_, err := attest.Verify(lock, tamperSignature(t, b), key)
		wantVerdict(t, err, "signature does not verify")
	})
	t.Run("tampered bundle bytes", func(t *testing.T) {
		flipEveryByte(t, b, 1, func(bad []byte) (*attest.Result, error) { return attest.Verify(lock, bad, key) })
	})
	t.Run("wrong key", func(t *testing.T) {
		_, err := attest.Verify(lock, b, attest.VerifyOptions{PublicKeyPEM: otherPub})
		wantVerdict(t, err, "with the given public key (the bundle names key hint ")
	})
	t.Run("missing bundle", func(t *testing.T) {
		for _, empty := range [][]byte{nil, {}, []byte(" \n")} {
			_, err := attest.Verify(lock, empty, key)
			wantVerdict(t, err, "missing signature bundle")
		}
	})
	t.Run("not a bundle", func(t *testing.T) {
		_, err := attest.Verify(lock, []byte(`{"mediaType":"nope"}`), key)
		wantVerdict(t, err, "not a valid Sigstore bundle")
	})
	t.Run("private key given to verify", func(t *testing.T) {
		_, err := attest.Verify(lock, b, attest.VerifyOptions{PublicKeyPEM: priv})
		wantUsage(t, err, "--key", "is a private key")
	})
}

// tamperSignature flips one bit of the decoded message signature.
func tamperSignature(t *testing.T, bundleJSON []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(bundleJSON, &m); err != nil {
		t.Fatal(err)
	}
	ms := m["messageSignature"].(map[string]any)
	sig := decodeB64(t, ms["signature"].(string))
	sig[len(sig)/2] ^= 0x01
	ms["signature"] = encodeB64(sig)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
