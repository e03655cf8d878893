package attest

//lint:file-ignore SA1019 IsEncryptedPEMBlock only detects a legacy encrypted key to refuse it with a clear message

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// loadSigningKey parses a PEM private key (see the package comment for the
// accepted formats) and insists on ECDSA P-256.
func loadSigningKey(keyPEM, pass []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, usagef("--key", "not a PEM private key; expected the key file written by `cosign generate-key-pair` (cosign.key) or a PKCS#8/EC PEM key")
	}
	switch block.Type {
	case "PUBLIC KEY", "RSA PUBLIC KEY":
		return nil, usagef("--key", "is a public key (%s); signing needs the private key (cosign.key), the public key is for verify", block.Type)
	case "CERTIFICATE":
		return nil, usagef("--key", "is a certificate; signing needs the private key (cosign.key)")
	}
	encrypted := strings.HasPrefix(block.Type, "ENCRYPTED ") || x509.IsEncryptedPEMBlock(block) //nolint:staticcheck // legacy PEM encryption is still accepted
	if pass == nil {
		pass = []byte{} // cosign keys made with an empty password are still encrypted
	}
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(keyPEM, cryptoutils.StaticPasswordFunc(pass))
	if err != nil {
		if encrypted && len(pass) == 0 {
			return nil, usagef("--key", "cannot decrypt the %s without its passphrase: put it in %s (or %s) in the environment", block.Type, EnvKeyPassword, EnvCosignPassword)
		}
		if encrypted {
			return nil, usagef("--key", "cannot decrypt the %s: wrong passphrase? (%v)", block.Type, err)
		}
		return nil, usagef("--key", "cannot parse the %s PEM block: %v", block.Type, err)
	}
	k, ok := priv.(*ecdsa.PrivateKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, usagef("--key", "unsupported key type %s; mcpsum signs with ECDSA P-256 keys (what `cosign generate-key-pair` writes)", keyKind(priv))
	}
	return k, nil
}

// loadVerifyKey parses a PKIX "PUBLIC KEY" PEM (cosign.pub).
func loadVerifyKey(pubPEM []byte) (crypto.PublicKey, error) {
	block, _ := pem.Decode(pubPEM)
	if block == nil {
		return nil, usagef("--key", "not a PEM public key; expected a \"PUBLIC KEY\" PEM such as cosign.pub")
	}
	if strings.Contains(block.Type, "PRIVATE KEY") {
		return nil, usagef("--key", "is a private key (%s); verify needs the public key (cosign.pub)", block.Type)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pubPEM)
	if err != nil {
		return nil, usagef("--key", "cannot parse the public key: %v", err)
	}
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return k, nil
		}
	case *rsa.PublicKey:
		if k.N.BitLen() >= 2048 {
			return k, nil
		}
	}
	return nil, usagef("--key", "unsupported public key type %s; accepted: ECDSA P-256/P-384/P-521 or RSA >= 2048 bits", keyKind(pub))
}

func keyKind(k any) string {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case *rsa.PrivateKey:
		return fmt.Sprintf("RSA-%d", k.N.BitLen())
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA-%d", k.N.BitLen())
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", k), "*")
}

// keyHint is the Sigstore key hint: base64(sha256(PKIX public key)).
func keyHint(pub crypto.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(h[:])
}

// keypair implements sign.Keypair over a long-lived ECDSA P-256 key.
type keypair struct {
	priv *ecdsa.PrivateKey
	hint []byte
}

func newKeypair(priv *ecdsa.PrivateKey) *keypair {
	return &keypair{priv: priv, hint: []byte(keyHint(&priv.PublicKey))}
}

func (k *keypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}
func (k *keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}
func (k *keypair) GetHint() []byte                { return k.hint }
func (k *keypair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *keypair) GetPublicKey() crypto.PublicKey { return &k.priv.PublicKey }
func (k *keypair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(&k.priv.PublicKey)
	return string(b), err
}

// SignData signs sha256(data) and returns the signature and the digest.
func (k *keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	d := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, d[:])
	return sig, d[:], err
}
