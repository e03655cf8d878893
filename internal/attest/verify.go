package attest

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// VerifyOptions says what a valid signature looks like. Exactly one of
// PublicKeyPEM (key mode) or the identity fields (keyless mode) is set.
type VerifyOptions struct {
	// PublicKeyPEM is a PKIX "PUBLIC KEY" PEM (cosign.pub). Key mode.
	PublicKeyPEM []byte

	// Keyless mode: the certificate's subject (SAN: an e-mail, or a URI such
	// as a GitHub workflow ref) must equal CertificateIdentity or match
	// CertificateIdentityRegexp, and its OIDC issuer must equal
	// CertificateOIDCIssuer or match CertificateOIDCIssuerRegexp. Exactly one
	// of each pair. The regular expressions are Go syntax, anchored (they must
	// match the whole value).
	CertificateIdentity         string
	CertificateIdentityRegexp   string
	CertificateOIDCIssuer       string
	CertificateOIDCIssuerRegexp string

	// TrustedRootJSON is a trusted_root.json (keyless mode only). Nil means
	// the public-good root fetched over TUF, which needs the network.
	TrustedRootJSON []byte
	// TUFMirror and TUFCacheDir override the TUF repository and cache used
	// when TrustedRootJSON is nil (defaults: tuf.DefaultMirror and
	// ~/.sigstore/root). The embedded root of trust is always the public-good one.
	TUFMirror   string
	TUFCacheDir string
}

// Result describes a signature that verified.
type Result struct {
	// Keyless is true for a certificate (Fulcio) signature, false for a key.
	Keyless bool
	// KeyHint is the bundle's public-key hint (key mode).
	KeyHint string
	// Identity and Issuer are the certificate's SAN and OIDC issuer (keyless).
	Identity, Issuer string
	// Digest is "sha256:<hex>" of the verified data.
	Digest string
	// Timestamps are the verified trusted times (keyless mode).
	Timestamps []Timestamp
}

// Timestamp is one verified trusted time.
type Timestamp struct {
	Source string // "tlog" (Rekor integrated time) or "tsa" (RFC 3161)
	URI    string // the log or authority, as named in the trusted root
	Time   time.Time
}

// Verify checks that bundleJSON is a valid Sigstore signature over the exact
// bytes of data by the expected key or identity. A nil or empty bundleJSON
// (the signature file is missing) is a *VerificationError, like every other
// defect of the bundle or data. Bad options are *UsageError; failing to fetch
// the public-good trusted root is a plain error.
func Verify(data, bundleJSON []byte, opts VerifyOptions) (*Result, error) {
	keyMode, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	// Prepare everything the operator gave before judging the bundle.
	var tm root.TrustedMaterial
	var vopts []verify.VerifierOption
	var popts []verify.PolicyOption
	var givenHint, keyNote string
	if keyMode {
		pub, err := loadVerifyKey(opts.PublicKeyPEM)
		if err != nil {
			return nil, err
		}
		sv, err := signature.LoadVerifier(pub, crypto.SHA256)
		if err != nil {
			return nil, usagef("--key", "cannot use the public key: %v", err)
		}
		key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
		tm = root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
		vopts = []verify.VerifierOption{verify.WithNoObserverTimestamps()}
		popts = []verify.PolicyOption{verify.WithKey()}
		givenHint = keyHint(pub)
	} else {
		id, err := identity(opts)
		if err != nil {
			return nil, err
		}
		tr, err := trustedRoot(opts)
		if err != nil {
			return nil, err
		}
		tm = tr
		vopts = []verify.VerifierOption{verify.WithObserverTimestamps(1)}
		if len(tr.RekorLogs()) > 0 {
			vopts = append(vopts, verify.WithTransparencyLog(1))
		}
		if len(tr.CTLogs()) > 0 {
			vopts = append(vopts, verify.WithSignedCertificateTimestamps(1))
		}
		popts = []verify.PolicyOption{verify.WithCertificateIdentity(id)}
	}
	v, err := verify.NewVerifier(tm, vopts...)
	if err != nil {
		return nil, fmt.Errorf("set up verifier: %w", err)
	}

	b, err := parseBundle(bundleJSON)
	if err != nil {
		return nil, err
	}
	if pk := b.VerificationMaterial.GetPublicKey(); pk != nil {
		if !keyMode {
			return nil, verdict(nil, "the bundle is signed with a key (hint %q), not keyless; verify it with --key", pk.GetHint())
		}
		if pk.GetHint() != "" && pk.GetHint() != givenHint {
			keyNote = fmt.Sprintf(" (the bundle names key hint %q, the given key's hint is %q)", pk.GetHint(), givenHint)
		}
	}
	res, err := v.Verify(b, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(data)), popts...))
	if err != nil {
		return nil, explain(err, opts, signerOf(b), keyNote)
	}
	sum := sha256.Sum256(data)
	out := &Result{Digest: "sha256:" + hex.EncodeToString(sum[:])}
	if c := res.Signature.Certificate; c != nil {
		out.Keyless, out.Identity, out.Issuer = true, c.SubjectAlternativeName, c.Issuer
	} else {
		out.KeyHint = b.VerificationMaterial.GetPublicKey().GetHint()
	}
	for _, ts := range res.VerifiedTimestamps {
		src := "tsa"
		if ts.Type == "Tlog" {
			src = "tlog"
		}
		out.Timestamps = append(out.Timestamps, Timestamp{Source: src, URI: ts.URI, Time: ts.Timestamp})
	}
	return out, nil
}

// checkOptions validates the combination and reports whether it is key mode.
func checkOptions(o VerifyOptions) (keyMode bool, err error) {
	idSet := o.CertificateIdentity != "" || o.CertificateIdentityRegexp != "" ||
		o.CertificateOIDCIssuer != "" || o.CertificateOIDCIssuerRegexp != ""
	switch {
	case len(o.PublicKeyPEM) > 0 && idSet:
		return false, usagef("--key", "give either --key or --certificate-identity/--certificate-oidc-issuer, not both")
	case len(o.PublicKeyPEM) > 0:
		if o.TrustedRootJSON != nil {
			return false, usagef("--trusted-root", "only used for keyless verification (--certificate-identity); a --key signature is checked against the key alone")
		}
		return true, nil
	case !idSet:
		return false, usagef("--key", "say who must have signed: give --key PUB, or --certificate-identity (or -regexp) with --certificate-oidc-issuer (or -regexp)")
	case o.CertificateIdentity != "" && o.CertificateIdentityRegexp != "":
		return false, usagef("--certificate-identity", "give --certificate-identity or --certificate-identity-regexp, not both")
	case o.CertificateIdentity == "" && o.CertificateIdentityRegexp == "":
		return false, usagef("--certificate-identity", "required with --certificate-oidc-issuer: the expected signer (e-mail or workflow URI)")
	case o.CertificateOIDCIssuer != "" && o.CertificateOIDCIssuerRegexp != "":
		return false, usagef("--certificate-oidc-issuer", "give --certificate-oidc-issuer or --certificate-oidc-issuer-regexp, not both")
	case o.CertificateOIDCIssuer == "" && o.CertificateOIDCIssuerRegexp == "":
		return false, usagef("--certificate-oidc-issuer", "required with --certificate-identity: the expected OIDC issuer, e.g. https://token.actions.githubusercontent.com")
	}
	return false, nil
}

func identity(o VerifyOptions) (verify.CertificateIdentity, error) {
	sanRe, err := anchored("--certificate-identity-regexp", o.CertificateIdentityRegexp)
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	issRe, err := anchored("--certificate-oidc-issuer-regexp", o.CertificateOIDCIssuerRegexp)
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	id, err := verify.NewShortCertificateIdentity(o.CertificateOIDCIssuer, issRe, o.CertificateIdentity, sanRe)
	if err != nil {
		return verify.CertificateIdentity{}, usagef("--certificate-identity", "%v", err)
	}
	return id, nil
}

func anchored(option, re string) (string, error) {
	if re == "" {
		return "", nil
	}
	if _, err := regexp.Compile(re); err != nil {
		return "", usagef(option, "not a valid regular expression: %v", err)
	}
	return "^(?:" + re + ")$", nil
}

func trustedRoot(o VerifyOptions) (*root.TrustedRoot, error) {
	if o.TrustedRootJSON != nil {
		tr, err := root.NewTrustedRootFromJSON(o.TrustedRootJSON)
		if err != nil {
			return nil, usagef("--trusted-root", "not a usable trusted_root.json: %v", err)
		}
		return tr, nil
	}
	to := tuf.DefaultOptions()
	if o.TUFMirror != "" {
		to.RepositoryBaseURL = o.TUFMirror
	}
	if o.TUFCacheDir != "" {
		to.CachePath = o.TUFCacheDir
	}
	tr, err := root.FetchTrustedRootWithOptions(to)
	if err != nil {
		return nil, &cleanError{err: err, msg: clean(fmt.Sprintf("fetch the public-good Sigstore trusted root over TUF from %s: %v; to verify offline pass --trusted-root FILE (a trusted_root.json)", to.RepositoryBaseURL, err))}
	}
	return tr, nil
}

const maxBundle = 16 << 20

func parseBundle(bundleJSON []byte) (*bundle.Bundle, error) {
	if len(bytes.TrimSpace(bundleJSON)) == 0 {
		return nil, verdict(nil, "missing signature bundle: the lockfile is not signed (run `mcpsum sign`)")
	}
	if len(bundleJSON) > maxBundle {
		return nil, verdict(nil, "signature bundle is larger than %d bytes", maxBundle)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return nil, verdict(err, "not a valid Sigstore bundle: %v", err)
	}
	if b.GetMessageSignature() == nil {
		return nil, verdict(nil, "the bundle holds a DSSE attestation, not a signature over the file's bytes")
	}
	return &b, nil
}

// signerOf summarises the bundle's leaf certificate (nil if none or unreadable).
func signerOf(b *bundle.Bundle) *certificate.Summary {
	vc, err := b.VerificationContent()
	if err != nil || vc.Certificate() == nil {
		return nil
	}
	sum, err := certificate.SummarizeCertificate(vc.Certificate())
	if err != nil {
		return nil
	}
	return &sum
}
