package attest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
)

const (
	ghIdentity = "https://github.com/mcpsum/demo/.github/workflows/release.yml@refs/heads/main"
	ghIssuer   = "https://token.actions.githubusercontent.com"
)

func keyless(t *testing.T, s *attesttest.Sigstore, identity, issuer string) []byte {
	t.Helper()
	b, err := attest.SignKeyless(context.Background(), lock, s.KeylessOptions(identity, issuer))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func byIdentity(s *attesttest.Sigstore) attest.VerifyOptions {
	return attest.VerifyOptions{CertificateIdentity: attesttest.Identity,
		CertificateOIDCIssuer: attesttest.Issuer, TrustedRootJSON: s.TrustedRootJSON}
}

func TestSignKeylessRoundTrip(t *testing.T) {
	s := attesttest.Start(t)
	b := keyless(t, s, attesttest.Identity, attesttest.Issuer)
	// The shape `cosign verify-blob --bundle` reads: a leaf certificate (not a
	// chain, v0.3), a hashedrekord entry with proof and promise, a TSA stamp.
	var doc struct {
		MediaType            string
		VerificationMaterial struct {
			Certificate *struct{ RawBytes string }
			TlogEntries []struct {
				KindVersion      struct{ Kind, Version string }
				InclusionPromise *struct{ SignedEntryTimestamp string }
				InclusionProof   *struct{ Checkpoint struct{ Envelope string } }
			}
			TimestampVerificationData struct{ Rfc3161Timestamps []any }
		}
		MessageSignature *struct{ Signature string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	vm := doc.VerificationMaterial
	if doc.MediaType != attest.MediaType || vm.Certificate == nil || len(vm.TlogEntries) != 1 ||
		vm.TlogEntries[0].KindVersion.Kind != "hashedrekord" || vm.TlogEntries[0].InclusionPromise == nil ||
		vm.TlogEntries[0].InclusionProof == nil || len(vm.TimestampVerificationData.Rfc3161Timestamps) != 1 ||
		doc.MessageSignature == nil {
		t.Fatalf("unexpected bundle shape:\n%s", b)
	}

	for name, opts := range map[string]attest.VerifyOptions{
		"exact": byIdentity(s),
		"regexps": {CertificateIdentityRegexp: `[a-z]+@example\.com`, CertificateOIDCIssuerRegexp: `https://issuer\.example`,
			TrustedRootJSON: s.TrustedRootJSON},
		"identity regexp, exact issuer": {CertificateIdentityRegexp: `release@.*`, CertificateOIDCIssuer: attesttest.Issuer,
			TrustedRootJSON: s.TrustedRootJSON},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := attest.Verify(lock, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			sources := map[string]bool{}
			for _, ts := range res.Timestamps {
				sources[ts.Source] = true
			}
			if !res.Keyless || res.Identity != attesttest.Identity || res.Issuer != attesttest.Issuer ||
				res.Digest != "sha256:"+hexSHA256(lock) || !sources["tlog"] || !sources["tsa"] {
				t.Fatalf("unexpected result %+v", res)
			}
		})
	}
}

func TestSignKeylessWorkflowIdentity(t *testing.T) {
	s := attesttest.Start(t)
	b := keyless(t, s, ghIdentity, ghIssuer)
	res, err := attest.Verify(lock, b, attest.VerifyOptions{
		CertificateIdentityRegexp: `https://github\.com/mcpsum/demo/\.github/workflows/release\.yml@refs/heads/.*`,
		CertificateOIDCIssuer:     ghIssuer, TrustedRootJSON: s.TrustedRootJSON})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identity != ghIdentity {
		t.Fatalf("identity %q", res.Identity)
	}
	// Regexps are anchored: a prefix of the identity is not enough.
	_, err = attest.Verify(lock, b, attest.VerifyOptions{CertificateIdentityRegexp: `https://github\.com/mcpsum/`,
		CertificateOIDCIssuer: ghIssuer, TrustedRootJSON: s.TrustedRootJSON})
	wantVerdict(t, err, "certificate identity does not match")
}

func TestVerifyKeylessRejects(t *testing.T) {
	s := attesttest.Start(t)
	b := keyless(t, s, attesttest.Identity, attesttest.Issuer)
	with := func(f func(*attest.VerifyOptions)) attest.VerifyOptions {
		o := byIdentity(s)
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name, want   string
		data, bundle []byte
		opts         attest.VerifyOptions
	}{
		{"wrong identity", `signed by "release@example.com" (OIDC issuer "https://issuer.example"), but the expected signer is "mallory@example.com" from issuer "https://issuer.example"`, lock, b,
			with(func(o *attest.VerifyOptions) { o.CertificateIdentity = "mallory@example.com" })},
		{"wrong issuer", `but the expected signer is "release@example.com" from issuer "https://evil.example"`, lock, b,
			with(func(o *attest.VerifyOptions) { o.CertificateOIDCIssuer = "https://evil.example" })},
		{"identity regexp", `the expected signer is one matching ".*@evil\\.example"`, lock, b,
			with(func(o *attest.VerifyOptions) {
				o.CertificateIdentity, o.CertificateIdentityRegexp = "", `.*@evil\.example`
			})},
		{"issuer regexp", "certificate identity does not match", lock, b,
			with(func(o *attest.VerifyOptions) {
				o.CertificateOIDCIssuer, o.CertificateOIDCIssuerRegexp = "", `https://issuer\.example/.+`
			})},
		{"tampered data first byte", "signature does not match the data", flip(lock, 0), b, byIdentity(s)},
		{"tampered data last byte", "signature does not match the data", flip(lock, len(lock)-1), b, byIdentity(s)},
		{"tampered signature", "", lock, tamperSignature(t, b), byIdentity(s)},
		{"missing bundle", "missing signature bundle", lock, nil, byIdentity(s)},
		{"verified as a key signature", "signed keyless", lock, b, attest.VerifyOptions{PublicKeyPEM: pubOf(t)}},
		{"another sigstore's root", "", lock, b,
			with(func(o *attest.VerifyOptions) { o.TrustedRootJSON = attesttest.Start(t).TrustedRootJSON })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := attest.Verify(tc.data, tc.bundle, tc.opts)
			wantVerdict(t, err, tc.want)
		})
	}
	t.Run("tampered bundle bytes", func(t *testing.T) {
		flipEveryByte(t, b, 1, func(bad []byte) (*attest.Result, error) { return attest.Verify(lock, bad, byIdentity(s)) })
	})
}

func pubOf(t *testing.T) []byte {
	_, pub := attesttest.GenerateKeyPEM(t, nil)
	return pub
}

func TestVerifyKeyBundleAsKeyless(t *testing.T) {
	s := attesttest.Start(t)
	priv, _ := attesttest.GenerateKeyPEM(t, nil)
	b, err := attest.SignWithKey(context.Background(), lock, priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = attest.Verify(lock, b, byIdentity(s))
	wantVerdict(t, err, "signed with a key")
}

func TestVerifyExpiredCertificate(t *testing.T) {
	s := attesttest.Start(t)
	s.IssueExpiredCertificates(true)
	opts := s.KeylessOptions(attesttest.Identity, attesttest.Issuer)
	opts.TrustedRootJSON = nil // the self-check would refuse the bundle
	b, err := attest.SignKeyless(context.Background(), lock, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = attest.Verify(lock, b, byIdentity(s))
	wantVerdict(t, err, "was not valid at the signature's trusted time")

	// The self-check catches it at signing time too.
	_, err = attest.SignKeyless(context.Background(), lock, s.KeylessOptions(attesttest.Identity, attesttest.Issuer))
	if err == nil {
		t.Fatal("signing with an expired certificate passed the self-check")
	}
}

func TestVerifyTSAOnlyBundleNeedsTlog(t *testing.T) {
	s := attesttest.Start(t)
	opts := s.KeylessOptions(attesttest.Identity, attesttest.Issuer)
	opts.NoTransparencyLog, opts.TrustedRootJSON = true, nil
	b, err := attest.SignKeyless(context.Background(), lock, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The virtual trusted root lists a Rekor log, so a log entry is required.
	_, err = attest.Verify(lock, b, byIdentity(s))
	wantVerdict(t, err, "transparency-log (Rekor) entry")
}

func TestSignKeylessErrors(t *testing.T) {
	s := attesttest.Start(t)
	ctx := context.Background()
	opts := s.KeylessOptions(attesttest.Identity, attesttest.Issuer)

	noToken := opts
	noToken.IDToken = ""
	_, err := attest.SignKeyless(ctx, lock, noToken)
	wantUsage(t, err, "SIGSTORE_ID_TOKEN", "no OIDC identity token")

	noTime := opts
	noTime.NoTransparencyLog, noTime.TSAURL = true, ""
	_, err = attest.SignKeyless(ctx, lock, noTime)
	wantUsage(t, err, "--tsa-url", "needs an RFC 3161 timestamp authority")

	notJWT := opts
	notJWT.IDToken = "not-a-jwt"
	_, err = attest.SignKeyless(ctx, lock, notJWT)
	wantUsage(t, err, "SIGSTORE_ID_TOKEN", "not an OIDC identity token")

	badRoot := opts
	badRoot.TrustedRootJSON = []byte("{}")
	_, err = attest.SignKeyless(ctx, lock, badRoot)
	wantUsage(t, err, "--trusted-root", "not a usable trusted_root.json")

	// Services that fail are "could not decide", neither usage nor verdict.
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	// A hostile Fulcio (fake, named as such): its answer is shown escaped.
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied\x1b[2J\u202e", http.StatusForbidden)
	}))
	defer hostile.Close()
	hostileOpts := opts
	hostileOpts.FulcioURL = hostile.URL
	_, err = attest.SignKeyless(ctx, lock, hostileOpts)
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\u202e") || !strings.HasSuffix(err.Error(), `denied\u001b[2J\u202e`) {
		t.Fatalf("want the hostile answer escaped, got %q", err)
	}
	for name, o := range map[string]attest.KeylessOptions{
		"fulcio down":    func() attest.KeylessOptions { o := opts; o.FulcioURL = down.URL; return o }(),
		"rekor down":     func() attest.KeylessOptions { o := opts; o.RekorURL = down.URL; return o }(),
		"token rejected": func() attest.KeylessOptions { o := opts; o.IDToken = expiredToken(); return o }(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := attest.SignKeyless(ctx, lock, o)
			var ue *attest.UsageError
			var ve *attest.VerificationError
			if err == nil || errors.As(err, &ue) || errors.As(err, &ve) || !strings.Contains(err.Error(), "keyless signing (Fulcio ") {
				t.Fatalf("want a plain keyless-signing error, got %T: %v", err, err)
			}
			t.Log(err)
		})
	}
}

// expiredToken is a JWT for attesttest.Identity that expired a minute ago.
func expiredToken() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"iss":%q,"sub":%q,"email":%q,"email_verified":true,"exp":%d}`,
		attesttest.Issuer, attesttest.Identity, attesttest.Identity, time.Now().Add(-time.Minute).Unix())
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("x"))
}

// TestVerifyReasonIsEscaped: certificate content in a reason cannot drive the
// terminal (an ANSI escape and a bidi override in the certificate's OIDC
// issuer are shown escaped).
func TestVerifyReasonIsEscaped(t *testing.T) {
	s := attesttest.Start(t)
	b := keyless(t, s, attesttest.Identity, "https://issuer.example/\x1b[2J\u202e")
	_, err := attest.Verify(lock, b, byIdentity(s))
	wantVerdict(t, err, `(OIDC issuer "https://issuer.example/\x1b[2J\u202e")`)
	if strings.ContainsAny(err.Error(), "\x1b\u202e") {
		t.Fatalf("raw control characters in %q", err.Error())
	}
}
