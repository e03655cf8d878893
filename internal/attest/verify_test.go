package attest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
)

// TestVerifyVirtualSigstoreBundle checks bundles made independently of
// SignKeyless: by sigstore-go's own VirtualSigstore (cert chain, hashedrekord
// entry with SET, RFC 3161 timestamp), serialised as a v0.3 bundle.
func TestVerifyVirtualSigstoreBundle(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	entity, err := vs.Sign(attesttest.Identity, attesttest.Issuer, lock)
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := entity.VerificationContent()
	sc, _ := entity.SignatureContent()
	ms := sc.MessageSignatureContent()
	tsrs, _ := entity.Timestamps()
	tles, _ := entity.TlogEntries()
	pb := &protobundle.Bundle{
		MediaType: attest.MediaType,
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
			TimestampVerificationData: &protobundle.TimestampVerificationData{
				Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: tsrs[0]}}},
		},
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: ms.Digest()},
			Signature:     ms.Signature()}},
	}
	for _, e := range tles {
		// VirtualSigstore's entry lacks kindVersion, SET and proof in proto form (see notes §4.3).
		tle := proto.Clone(e.TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
		tle.LogIndex = 0
		tle.KindVersion = &protorekor.KindVersion{Kind: "hashedrekord", Version: "0.0.1"}
		set, err := vs.RekorSignPayload(tlog.RekorPayload{Body: base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
			IntegratedTime: tle.IntegratedTime, LogIndex: 0, LogID: hex.EncodeToString(tle.LogId.KeyId)})
		if err != nil {
			t.Fatal(err)
		}
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
		ip, err := vs.GetInclusionProof(tle.CanonicalizedBody)
		if err != nil {
			t.Fatal(err)
		}
		rh, _ := hex.DecodeString(*ip.RootHash)
		tle.InclusionProof = &protorekor.InclusionProof{LogIndex: *ip.LogIndex, RootHash: rh, TreeSize: *ip.TreeSize,
			Checkpoint: &protorekor.Checkpoint{Envelope: *ip.Checkpoint}}
		pb.VerificationMaterial.TlogEntries = append(pb.VerificationMaterial.TlogEntries, tle)
	}
	bj, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	// VirtualSigstore keeps the hex log ID as TransparencyLog.ID; trusted_root.json wants raw bytes.
	rekorLogs := map[string]*root.TransparencyLog{}
	for k, l := range vs.RekorLogs() {
		c := *l
		c.ID, _ = hex.DecodeString(k)
		rekorLogs[k] = &c
	}
	// No CT logs: VirtualSigstore's certificates carry no SCTs.
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), nil, vs.TimestampingAuthorities(), rekorLogs)
	if err != nil {
		t.Fatal(err)
	}
	trj, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	opts := attest.VerifyOptions{CertificateIdentity: attesttest.Identity, CertificateOIDCIssuer: attesttest.Issuer, TrustedRootJSON: trj}
	res, err := attest.Verify(lock, bj, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Identity != attesttest.Identity || countSource(res, "tlog") != 1 || countSource(res, "tsa") != 1 {
		t.Fatalf("unexpected result %+v", res)
	}
	_, err = attest.Verify(flip(lock, 3), bj, opts)
	wantVerdict(t, err, "signature does not match the data")
	opts.CertificateIdentity = "mallory@example.com"
	_, err = attest.Verify(lock, bj, opts)
	wantVerdict(t, err, `but the expected signer is "mallory@example.com"`)
}

// TestVerifyRSAKey: verification takes RSA keys, as `cosign verify-blob --key` does.
func TestVerifyRSAKey(t *testing.T) {
	kp, err := sign.NewEphemeralKeypair(&sign.EphemeralKeypairOptions{Algorithm: protocommon.PublicKeyDetails_PKIX_RSA_PKCS1V15_2048_SHA256})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := sign.Bundle(&sign.PlainData{Data: lock}, kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bj, _ := protojson.Marshal(pb)
	pub, _ := cryptoutils.MarshalPublicKeyToPEM(kp.GetPublicKey())
	if _, err := attest.Verify(lock, bj, attest.VerifyOptions{PublicKeyPEM: pub}); err != nil {
		t.Fatal(err)
	}
	_, err = attest.Verify(flip(lock, 1), bj, attest.VerifyOptions{PublicKeyPEM: pub})
	wantVerdict(t, err, "signature does not verify")
}

func TestVerifyOptionErrors(t *testing.T) {
	_, pub := attesttest.GenerateKeyPEM(t, nil)
	id, iss, tr := attesttest.Identity, attesttest.Issuer, []byte("{}")
	for _, tc := range []struct {
		name, option, want string
		opts               attest.VerifyOptions
	}{
		{"nothing", "--key", "say who must have signed", attest.VerifyOptions{}},
		{"key and identity", "--key", "not both", attest.VerifyOptions{PublicKeyPEM: pub, CertificateIdentity: id, CertificateOIDCIssuer: iss}},
		{"key with trusted root", "--trusted-root", "only used for keyless", attest.VerifyOptions{PublicKeyPEM: pub, TrustedRootJSON: tr}},
		{"identity without issuer", "--certificate-oidc-issuer", "required", attest.VerifyOptions{CertificateIdentity: id}},
		{"issuer without identity", "--certificate-identity", "required", attest.VerifyOptions{CertificateOIDCIssuer: iss}},
		{"identity twice", "--certificate-identity", "not both",
			attest.VerifyOptions{CertificateIdentity: id, CertificateIdentityRegexp: ".*", CertificateOIDCIssuer: iss}},
		{"issuer twice", "--certificate-oidc-issuer", "not both",
			attest.VerifyOptions{CertificateIdentity: id, CertificateOIDCIssuer: iss, CertificateOIDCIssuerRegexp: ".*"}},
		{"bad regexp", "--certificate-identity-regexp", "not a valid regular expression",
			attest.VerifyOptions{CertificateIdentityRegexp: "(", CertificateOIDCIssuer: iss, TrustedRootJSON: tr}},
		{"bad trusted root", "--trusted-root", "not a usable trusted_root.json",
			attest.VerifyOptions{CertificateIdentity: id, CertificateOIDCIssuer: iss, TrustedRootJSON: []byte("not json")}},
		{"bad key", "--key", "not a PEM public key", attest.VerifyOptions{PublicKeyPEM: []byte("ssh-ed25519 AAAA")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Options are judged before the bundle: a missing bundle does not hide them.
			_, err := attest.Verify(lock, nil, tc.opts)
			wantUsage(t, err, tc.option, tc.want)
		})
	}
}

// TestVerifyWithoutTrustedRoot: with no trusted root, Verify goes to TUF; when
// that fails (here a mirror that has nothing, as offline) the error is neither
// a verdict nor a usage error, and names --trusted-root.
func TestVerifyWithoutTrustedRoot(t *testing.T) {
	var hits int
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.NotFound(w, r)
	}))
	defer mirror.Close()
	_, err := attest.Verify(lock, []byte("{}"), attest.VerifyOptions{CertificateIdentity: attesttest.Identity,
		CertificateOIDCIssuer: attesttest.Issuer, TUFMirror: mirror.URL, TUFCacheDir: t.TempDir()})
	var ue *attest.UsageError
	var ve *attest.VerificationError
	if err == nil || errors.As(err, &ue) || errors.As(err, &ve) || !strings.Contains(err.Error(), "pass --trusted-root FILE") ||
		!strings.Contains(err.Error(), mirror.URL) || hits == 0 {
		t.Fatalf("want a plain error naming --trusted-root after asking the mirror, got %T (hits %d): %v", err, hits, err)
	}
	t.Log(err)
}

func TestIDTokenFromEnv(t *testing.T) {
	ctx := context.Background()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	tok, src, err := attest.IDTokenFromEnv(ctx, env(map[string]string{"SIGSTORE_ID_TOKEN": " a.b.c\n"}))
	if err != nil || tok != "a.b.c" || src != "SIGSTORE_ID_TOKEN" {
		t.Fatalf("got %q %q %v", tok, src, err)
	}

	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer req-token" || r.URL.Query().Get("audience") != "sigstore" ||
			r.URL.Query().Get("api-version") != "2.0" {
			http.Error(w, "bad request "+r.URL.String(), http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(`{"count":1,"value":"gh.jwt.token"}`))
	}))
	defer gh.Close()
	ghEnv := map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": gh.URL + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "req-token"}
	tok, src, err = attest.IDTokenFromEnv(ctx, env(ghEnv))
	if err != nil || tok != "gh.jwt.token" || src != "github-actions" {
		t.Fatalf("got %q %q %v", tok, src, err)
	}

	ghEnv["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "wrong"
	_, _, err = attest.IDTokenFromEnv(ctx, env(ghEnv))
	var ue *attest.UsageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "HTTP 403") {
		t.Fatalf("want a plain HTTP 403 error, got %T: %v", err, err)
	}

	_, _, err = attest.IDTokenFromEnv(ctx, env(nil))
	wantUsage(t, err, "SIGSTORE_ID_TOKEN", "no OIDC identity token")
}

// TestWriteFixtures checks the files the CLI tests build on.
func TestWriteFixtures(t *testing.T) {
	dir := t.TempDir()
	f := attesttest.WriteFixtures(t, dir, "mcp.lock", lock)
	read := func(p string) []byte {
		b, err := readFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read(f.Data), lock) {
		t.Fatal("data not written")
	}
	if _, err := attest.Verify(lock, read(f.KeyBundle), attest.VerifyOptions{PublicKeyPEM: read(f.Pub)}); err != nil {
		t.Fatal(err)
	}
	_, err := attest.Verify(lock, read(f.KeyBundle), attest.VerifyOptions{PublicKeyPEM: read(f.OtherPub)})
	wantVerdict(t, err, "signature does not verify")
	if _, err := attest.Verify(lock, read(f.KeylessBundle), attest.VerifyOptions{CertificateIdentity: attesttest.Identity,
		CertificateOIDCIssuer: attesttest.Issuer, TrustedRootJSON: read(f.TrustedRoot)}); err != nil {
		t.Fatal(err)
	}
	if _, err := attest.SignWithKey(context.Background(), lock, read(f.Key), []byte(attesttest.Passphrase)); err != nil {
		t.Fatal(err)
	}
}
