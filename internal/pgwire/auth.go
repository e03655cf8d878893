package pgwire

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// maxIterations bounds the SCRAM iteration count a server may ask for
// (PostgreSQL's default is 4096): a hostile server cannot make the client
// spin for minutes.
const maxIterations = 1 << 20

// md5Password is PostgreSQL's md5 answer: "md5" + md5(md5(password+user)+salt).
func md5Password(user, password string, salt []byte) string {
	inner := md5.Sum([]byte(password + user))
	h := md5.New()
	h.Write([]byte(hex.EncodeToString(inner[:])))
	h.Write(salt)
	return "md5" + hex.EncodeToString(h.Sum(nil))
}

// scram is one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677) without channel
// binding, as libpq does it: the user name is the startup message's, so
// the SCRAM one is empty.
type scram struct {
	password    string
	clientNonce string
	clientFirst string // client-first-message-bare
	gs2         string // the GS2 header: "n,," (no TLS), "y,," (TLS, no binding offered), "p=tls-server-end-point,,"
	cbind       []byte // the channel binding data with "p="
	authMessage string
	saltedPass  []byte
}

func newScram(password string) (*scram, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	s := &scram{password: saslprep(password), clientNonce: base64.StdEncoding.EncodeToString(b)}
	s.clientFirst = "n=,r=" + s.clientNonce
	return s, nil
}

// first is the client-first-message.
func (s *scram) first() string { return s.header() + s.clientFirst }

func (s *scram) header() string {
	if s.gs2 == "" {
		return "n,,"
	}
	return s.gs2
}

// final answers the server-first-message with the client-final-message.
func (s *scram) final(serverFirst string) (string, error) {
	attrs, err := scramAttrs(serverFirst, "r", "s", "i")
	if err != nil {
		return "", err
	}
	nonce := attrs["r"]
	if !strings.HasPrefix(nonce, s.clientNonce) || len(nonce) == len(s.clientNonce) {
		return "", errors.New("SCRAM: the server's nonce does not extend the client's")
	}
	salt, err := base64.StdEncoding.DecodeString(attrs["s"])
	if err != nil || len(salt) == 0 {
		return "", errors.New("SCRAM: the server's salt is not base64")
	}
	iter, err := strconv.Atoi(attrs["i"])
	if err != nil || iter < 1 || iter > maxIterations {
		return "", fmt.Errorf("SCRAM: the server asks for %q iterations (at most %d)", clean(attrs["i"]), maxIterations)
	}
	s.saltedPass, err = pbkdf2.Key(sha256.New, s.password, salt, iter, sha256.Size)
	if err != nil {
		return "", err
	}
	cb := base64.StdEncoding.EncodeToString(append([]byte(s.header()), s.cbind...))
	withoutProof := "c=" + cb + ",r=" + nonce
	s.authMessage = s.clientFirst + "," + serverFirst + "," + withoutProof
	clientKey := mac(s.saltedPass, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	sig := mac(storedKey[:], s.authMessage)
	for i := range sig {
		sig[i] ^= clientKey[i]
	}
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(sig), nil
}

// verify checks the server-final-message: the server proves it knows the
// password's verifier. A missing or wrong signature fails.
func (s *scram) verify(serverFinal string) error {
	if s.saltedPass == nil {
		return errors.New("SCRAM: the server ended the exchange early")
	}
	if strings.HasPrefix(serverFinal, "e=") {
		return fmt.Errorf("SCRAM: the server refused: %s", clean(serverFinal[2:]))
	}
	attrs, err := scramAttrs(serverFinal, "v")
	if err != nil {
		return err
	}
	got, err := base64.StdEncoding.DecodeString(attrs["v"])
	want := mac(mac(s.saltedPass, "Server Key"), s.authMessage)
	if err != nil || subtle.ConstantTimeCompare(got, want) != 1 {
		return errors.New("SCRAM: the server's signature is wrong: it does not know this user's password (not the server you meant?)")
	}
	return nil
}

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramAttrs reads a=value,b=value and requires the attributes want in
// their order at its start (extensions after them are ignored).
func scramAttrs(msg string, want ...string) (map[string]string, error) {
	parts := strings.Split(msg, ",")
	if len(parts) < len(want) {
		return nil, errors.New("SCRAM: the server's message lacks attributes")
	}
	attrs := map[string]string{}
	for i, name := range want {
		v, ok := strings.CutPrefix(parts[i], name+"=")
		if !ok {
			return nil, fmt.Errorf("SCRAM: the server's message lacks %s=", name)
		}
		attrs[name] = v
	}
	return attrs, nil
}

// endPoint is RFC 5929's tls-server-end-point channel binding: the hash of
// the server's certificate with its signature's hash (SHA-256 for MD5 and
// SHA-1), as PostgreSQL computes it.
func endPoint(cert *x509.Certificate) ([]byte, error) {
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil, fmt.Errorf("SCRAM channel binding: no hash for the server certificate's signature algorithm %v", cert.SignatureAlgorithm)
	}
	h.Write(cert.Raw)
	return h.Sum(nil), nil
}
