package attest

import (
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// VerificationError is a negative verdict: the bundle does not prove that the
// data was signed by the expected key or identity. The CLI maps it to exit 1.
type VerificationError struct {
	// Reason is a complete, lower-case sentence fragment for humans, e.g.
	// `signature does not match the data: ...`.
	Reason string
	// Err is the underlying sigstore-go error, if any.
	Err error
}

func (e *VerificationError) Error() string { return "signature check failed: " + e.Reason }
func (e *VerificationError) Unwrap() error { return e.Err }

// UsageError is an operator mistake in what was passed to Sign* or Verify: a
// bad option combination, an unreadable key or trusted root, a wrong
// passphrase. The CLI maps it to exit 2.
type UsageError struct {
	// Option names what is wrong the way the CLI spells it: "--key",
	// "--trusted-root", "--certificate-identity", "SIGSTORE_ID_TOKEN", ...
	Option string
	Err    error
}

func (e *UsageError) Error() string { return e.Option + ": " + e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(option, format string, args ...any) *UsageError {
	return &UsageError{Option: option, Err: errors.New(clean(fmt.Sprintf(format, args...)))}
}

func verdict(err error, format string, args ...any) *VerificationError {
	return &VerificationError{Reason: clean(fmt.Sprintf(format, args...)), Err: err}
}

// cleanError wraps err with a message made safe for a terminal.
type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }

func wrapClean(err error, format string, args ...any) error {
	return &cleanError{msg: clean(fmt.Sprintf(format, args...) + ": " + err.Error()), err: err}
}

// maxMessage bounds messages that may quote bundle or service content.
const maxMessage = 2000

// clean makes a message that may carry text from a bundle, a certificate or a
// service safe to print: control characters, bidi controls and zero-width
// characters become \u escapes, invalid UTF-8 becomes \x escapes, and the
// message is truncated.
func clean(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for i, r := range s {
		if b.Len() >= maxMessage {
			b.WriteString("...(truncated)")
			break
		}
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || unsafeRune(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069,
		r == 0x061c, r == 0xfeff:
		return true
	}
	return false
}

// explain turns a sigstore-go verification failure into a VerificationError
// whose reason says what failed, most specific cause first. signer is the
// bundle's certificate (nil for a key bundle); keyNote adds key hints.
func explain(err error, opts VerifyOptions, signer *certificate.Summary, keyNote string) *VerificationError {
	msg := err.Error()
	keyMode := len(opts.PublicKeyPEM) > 0
	var mismatch *verify.ErrValueMismatch
	var reMismatch *verify.ErrValueRegexMismatch
	var certErr x509.CertificateInvalidError
	switch {
	case (errors.As(err, &mismatch) || errors.As(err, &reMismatch)) && signer != nil:
		return verdict(err, "certificate identity does not match: signed by %q (OIDC issuer %q), but the expected signer is %s",
			signer.SubjectAlternativeName, signer.Issuer, expected(opts))
	case strings.Contains(msg, "expected key signature, not certificate"):
		return verdict(err, "the bundle is signed keyless (with a certificate), not with a key; verify it with --certificate-identity and --certificate-oidc-issuer")
	case strings.Contains(msg, "integrated time outside certificate validity"),
		errors.As(err, &certErr) && (certErr.Reason == x509.Expired),
		strings.Contains(msg, "certificate has expired or is not yet valid"):
		return verdict(err, "the signing certificate was not valid at the signature's trusted time (expired or not yet valid): %v", err)
	case strings.Contains(msg, "failed to verify log inclusion"):
		return verdict(err, "the transparency-log (Rekor) entry does not verify against the trusted root: %v", err)
	case strings.Contains(msg, "failed to verify timestamps"):
		return verdict(err, "no trusted time for the signature (a verified Rekor entry or RFC 3161 timestamp is required): %v", err)
	case strings.Contains(msg, "failed to verify leaf certificate"):
		return verdict(err, "the signing certificate does not chain to a CA in the trusted root: %v", err)
	case strings.Contains(msg, "failed to verify signed certificate timestamp"):
		return verdict(err, "the signing certificate has no valid certificate-transparency SCT: %v", err)
	case strings.Contains(msg, "failed to verify signature"), strings.Contains(msg, "failed to get signature verifier"):
		if keyMode {
			return verdict(err, "signature does not verify with the given public key%s: the data changed after signing, the bundle was altered, or another key signed it", keyNote)
		}
		return verdict(err, "signature does not match the data: the data changed after signing or the bundle was altered")
	}
	return verdict(err, "%v", err)
}

// expected describes the identity options for a message.
func expected(o VerifyOptions) string {
	id := fmt.Sprintf("%q", o.CertificateIdentity)
	if o.CertificateIdentityRegexp != "" {
		id = fmt.Sprintf("one matching %q", o.CertificateIdentityRegexp)
	}
	iss := fmt.Sprintf("%q", o.CertificateOIDCIssuer)
	if o.CertificateOIDCIssuerRegexp != "" {
		iss = fmt.Sprintf("one matching %q", o.CertificateOIDCIssuerRegexp)
	}
	return id + " from issuer " + iss
}
