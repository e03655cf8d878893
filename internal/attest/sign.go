package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Public-good Sigstore endpoints, the defaults of KeylessOptions.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
	// PublicGoodTSAURL is the public-good RFC 3161 timestamp authority. It is
	// not used unless KeylessOptions.TSAURL names it (Rekor's integrated time
	// is enough for the public-good instance).
	PublicGoodTSAURL = "https://timestamp.sigstore.dev/api/v1/timestamp"
)

// MediaType is the media type of every bundle this package writes.
const MediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// SignWithKey signs the exact bytes of data with a long-lived ECDSA P-256
// key in PEM (see the package comment for formats; pass may be nil for an
// unencrypted key) and returns a Sigstore bundle v0.3 JSON document with a
// message signature over sha256(data) and the key's hint. Nothing is sent to
// any service. Key problems (unreadable, wrong passphrase, wrong type) are
// *UsageError.
func SignWithKey(ctx context.Context, data, keyPEM, pass []byte) ([]byte, error) {
	priv, err := loadSigningKey(keyPEM, pass)
	if err != nil {
		return nil, err
	}
	kp := newKeypair(priv)
	pb, err := sign.Bundle(&sign.PlainData{Data: data}, kp, sign.BundleOptions{Context: ctx})
	if err != nil {
		return nil, fmt.Errorf("sign with key: %w", err)
	}
	out, err := marshalBundle(pb)
	if err != nil {
		return nil, err
	}
	// Check our own output with the key's public half before handing it out.
	pubPEM, err := kp.GetPublicKeyPem()
	if err != nil {
		return nil, fmt.Errorf("sign with key: %w", err)
	}
	if _, err := Verify(data, out, VerifyOptions{PublicKeyPEM: []byte(pubPEM)}); err != nil {
		return nil, fmt.Errorf("sign with key: the new bundle does not verify: %w", err)
	}
	return out, nil
}

// KeylessOptions configures SignKeyless. Zero values mean the public-good
// Sigstore instance.
type KeylessOptions struct {
	// IDToken is the OIDC identity token (a JWT) that Fulcio exchanges for a
	// short-lived certificate. Required; see IDTokenFromEnv.
	IDToken string
	// FulcioURL is the Fulcio base URL (default DefaultFulcioURL).
	FulcioURL string
	// RekorURL is the Rekor v1 base URL (default DefaultRekorURL).
	RekorURL string
	// NoTransparencyLog skips Rekor; then TSAURL is required (a keyless
	// signature needs a trusted time). Verifiers whose trusted root lists Rekor
	// logs will reject such a bundle.
	NoTransparencyLog bool
	// TSAURL is the full URL of an RFC 3161 timestamp authority, e.g.
	// PublicGoodTSAURL. Empty: no timestamp beyond Rekor's integrated time.
	TSAURL string
	// TrustedRootJSON, if set, is a trusted_root.json against which the new
	// bundle is verified before it is returned (offline self-check).
	TrustedRootJSON []byte
	// Timeout bounds each request to Fulcio, Rekor and the TSA (default 30s).
	Timeout time.Duration
}

// SignKeyless signs the exact bytes of data with an ephemeral ECDSA P-256
// key certified by Fulcio for the identity in opts.IDToken, records the
// signature in Rekor (unless NoTransparencyLog) and timestamps it (if TSAURL),
// and returns the Sigstore bundle v0.3 JSON. Service failures are plain
// errors (could not decide); option problems are *UsageError.
func SignKeyless(ctx context.Context, data []byte, opts KeylessOptions) ([]byte, error) {
	if opts.IDToken == "" {
		return nil, usagef("SIGSTORE_ID_TOKEN", "no OIDC identity token for keyless signing; set SIGSTORE_ID_TOKEN, run in GitHub Actions with `permissions: id-token: write`, or sign with --key")
	}
	if _, _, err := IDTokenClaims(opts.IDToken); err != nil {
		return nil, &UsageError{Option: "SIGSTORE_ID_TOKEN", Err: err}
	}
	if opts.NoTransparencyLog && opts.TSAURL == "" {
		return nil, usagef("--tsa-url", "a keyless signature without Rekor needs an RFC 3161 timestamp authority for its trusted time")
	}
	fulcioURL, rekorURL := or(opts.FulcioURL, DefaultFulcioURL), or(opts.RekorURL, DefaultRekorURL)
	where := "Fulcio " + fulcioURL
	if !opts.NoTransparencyLog {
		where += ", Rekor " + rekorURL
	}
	if opts.TSAURL != "" {
		where += ", TSA " + opts.TSAURL
	}
	bo := sign.BundleOptions{
		Context:                    ctx,
		CertificateProvider:        sign.NewFulcio(&sign.FulcioOptions{BaseURL: fulcioURL, Timeout: opts.Timeout, Retries: 1}),
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: opts.IDToken},
	}
	if opts.TSAURL != "" {
		bo.TimestampAuthorities = []*sign.TimestampAuthority{sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: opts.TSAURL, Timeout: opts.Timeout, Retries: 1})}
	}
	if !opts.NoTransparencyLog {
		bo.TransparencyLogs = []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: rekorURL, Timeout: opts.Timeout, Retries: 1})}
	}
	if opts.TrustedRootJSON != nil {
		tr, err := root.NewTrustedRootFromJSON(opts.TrustedRootJSON)
		if err != nil {
			return nil, usagef("--trusted-root", "not a usable trusted_root.json: %v", err)
		}
		bo.TrustedRoot = tr
	}
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("keyless signing: %w", err)
	}
	pb, err := sign.Bundle(&sign.PlainData{Data: data}, kp, bo)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, wrapClean(err, "keyless signing (%s)", where) // service answers are quoted into err
	}
	return marshalBundle(pb)
}

// marshalBundle renders a bundle as compact JSON with a trailing newline.
// protojson output is deliberately unstable in its whitespace; compacting it
// gives bytes that depend on the bundle only.
func marshalBundle(pb *protobundle.Bundle) ([]byte, error) {
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, fmt.Errorf("encode bundle: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("encode bundle: %w", err)
	}
	if pb.GetMediaType() != MediaType {
		return nil, errors.New("encode bundle: sigstore-go produced media type " + pb.GetMediaType())
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
