package attesttest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/mcpsum/mcpsum/internal/attest"
)

// Defaults used by WriteFixtures and handy for tests.
const (
	Identity = "release@example.com"
	Issuer   = "https://issuer.example"
)

// Sigstore is a running virtual Sigstore. Its URLs are plain http on
// 127.0.0.1; TrustedRootJSON verifies everything it issues.
type Sigstore struct {
	FulcioURL string // base URL, for KeylessOptions.FulcioURL
	RekorURL  string // base URL, for KeylessOptions.RekorURL
	TSAURL    string // full URL, for KeylessOptions.TSAURL
	// TrustedRootJSON is a trusted_root.json with the virtual Fulcio CA, TSA
	// and Rekor log (no CT log: certificates carry no SCTs).
	TrustedRootJSON []byte

	rootCert, fulcioCert, tsaCert *x509.Certificate
	fulcioKey, tsaKey, rekorKey   *ecdsa.PrivateKey
	rekorLogID                    string // hex sha256 of the PKIX Rekor key

	mu       sync.Mutex
	expired  bool
	logIndex int64
	servers  []*httptest.Server
}

// Start starts a virtual Sigstore and stops it when t ends.
func Start(t testing.TB) *Sigstore {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a virtual Sigstore; Close stops it.
func New() (*Sigstore, error) {
	s := &Sigstore{}
	var err error
	if s.rootCert, s.fulcioKey, err = ca.GenerateRootCa(); err != nil {
		return nil, err
	}
	rootKey := s.fulcioKey
	if s.fulcioCert, s.fulcioKey, err = ca.GenerateFulcioIntermediate(s.rootCert, rootKey); err != nil {
		return nil, err
	}
	tsaInt, tsaIntKey, err := ca.GenerateTSAIntermediate(s.rootCert, rootKey)
	if err != nil {
		return nil, err
	}
	if s.tsaKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	if s.tsaCert, err = tsaLeaf(s.tsaKey, tsaInt, tsaIntKey); err != nil {
		return nil, err
	}
	if s.rekorKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(s.rekorKey.Public())
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256(der)
	s.rekorLogID = hex.EncodeToString(id[:])

	fulcio := httptest.NewServer(http.HandlerFunc(s.serveFulcio))
	rekor := httptest.NewServer(http.HandlerFunc(s.serveRekor))
	tsa := httptest.NewServer(http.HandlerFunc(s.serveTSA))
	s.servers = []*httptest.Server{fulcio, rekor, tsa}
	s.FulcioURL, s.RekorURL, s.TSAURL = fulcio.URL, rekor.URL, tsa.URL+"/api/v1/timestamp"

	start := time.Now().Add(-5 * time.Hour)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{&root.FulcioCertificateAuthority{Root: s.rootCert,
			Intermediates: []*x509.Certificate{s.fulcioCert}, ValidityPeriodStart: start, URI: s.FulcioURL}},
		nil,
		[]root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{Root: s.rootCert,
			Intermediates: []*x509.Certificate{tsaInt}, Leaf: s.tsaCert, ValidityPeriodStart: start, URI: s.TSAURL}},
		map[string]*root.TransparencyLog{s.rekorLogID: {BaseURL: s.RekorURL, ID: id[:], ValidityPeriodStart: start,
			HashFunc: crypto.SHA256, PublicKey: s.rekorKey.Public(), SignatureHashFunc: crypto.SHA256}})
	if err != nil {
		s.Close()
		return nil, err
	}
	if s.TrustedRootJSON, err = tr.MarshalJSON(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the servers.
func (s *Sigstore) Close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// IssueExpiredCertificates makes Fulcio issue certificates that expired
// before they were issued (valid for ten minutes an hour ago), so any
// signature made with them has no trusted time inside their validity.
func (s *Sigstore) IssueExpiredCertificates(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expired = on
}

// IDToken returns an unsigned JWT whose claims name identity (as "email",
// or "sub" when identity is not an e-mail address) and issuer ("iss"). The
// virtual Fulcio trusts it as is; the real one would not.
func (s *Sigstore) IDToken(identity, issuer string) string {
	claims := map[string]any{"iss": issuer, "sub": identity, "aud": "sigstore",
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	if strings.Contains(identity, "@") && !strings.Contains(identity, "://") {
		claims["email"], claims["email_verified"] = identity, true
	}
	body, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(body) + "." + enc([]byte("unsigned"))
}

// KeylessOptions returns options that sign with this Sigstore (Fulcio, Rekor
// and the TSA) as identity/issuer, self-checking against TrustedRootJSON.
func (s *Sigstore) KeylessOptions(identity, issuer string) attest.KeylessOptions {
	return attest.KeylessOptions{
		IDToken:         s.IDToken(identity, issuer),
		FulcioURL:       s.FulcioURL,
		RekorURL:        s.RekorURL,
		TSAURL:          s.TSAURL,
		TrustedRootJSON: s.TrustedRootJSON,
	}
}

// leafCert issues a Fulcio-style code-signing certificate for pub.
func (s *Sigstore) leafCert(pub crypto.PublicKey, subject, issuer string) (*x509.Certificate, error) {
	s.mu.Lock()
	notBefore := time.Now().Add(-time.Minute)
	if s.expired {
		notBefore = time.Now().Add(-time.Hour)
	}
	s.mu.Unlock()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		NotBefore:    notBefore,
		NotAfter:     notBefore.Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{{ // Fulcio's OIDC issuer extension (v1, raw)
			Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(issuer)}},
	}
	if u, err := url.Parse(subject); err == nil && u.Scheme != "" && u.Host != "" {
		tmpl.URIs = []*url.URL{u}
	} else {
		tmpl.EmailAddresses = []string{subject}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.fulcioCert, pub, s.fulcioKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func tsaLeaf(key *ecdsa.PrivateKey, parent *x509.Certificate, parentKey crypto.Signer) (*x509.Certificate, error) {
	eku, err := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "virtual tsa"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		// The timestamping EKU must be the only one and critical (RFC 3161).
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: eku}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func pemCert(c *x509.Certificate) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
}

func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), code)
}
