// Package attest signs and verifies mcpsum lockfiles with Sigstore. It is the
// only package of mcpsum that imports github.com/sigstore/sigstore-go, so the
// weight of Sigstore stays out of everything else, and only the signing helper
// binary, cmd/mcpsum-attest, imports it: Serve is that helper's whole program
// (the protocol with mcpsum is in internal/attestproto). mcpsum itself runs
// the helper for `sign`, `verify --signature` and `proxy --require-signature`.
//
// # What is signed
//
// A signature covers the exact bytes given (the lockfile as it is on disk):
// a message signature over their SHA-256 digest, packed in a Sigstore bundle
// v0.3 JSON document (media type application/vnd.dev.sigstore.bundle.v0.3+json).
// That is the format `cosign sign-blob --bundle` writes and
// `cosign verify-blob --bundle` reads, so either tool checks the other's work.
//
// # Keys (SignWithKey, VerifyOptions.PublicKeyPEM)
//
// Signing keys are ECDSA P-256 private keys in PEM:
//
//   - "ENCRYPTED SIGSTORE PRIVATE KEY" (and the older "ENCRYPTED COSIGN
//     PRIVATE KEY"), as written by `cosign generate-key-pair`: scrypt +
//     secretbox around PKCS#8. The passphrase is the caller's (cosign reads it
//     from COSIGN_PASSWORD); an empty passphrase is valid for such a key.
//   - "PRIVATE KEY" (PKCS#8), "EC PRIVATE KEY" (SEC 1), unencrypted.
//   - "ENCRYPTED PRIVATE KEY" (PKCS#8 PBES2) and legacy Proc-Type encrypted
//     PEM, with the passphrase.
//
// Anything else (RSA, Ed25519, other curves, a public key, a certificate,
// not PEM) is refused with a *UsageError naming the key type found.
//
// Verification keys are PKIX "PUBLIC KEY" PEM (cosign.pub): ECDSA P-256,
// P-384, P-521 or RSA of at least 2048 bits, checked over SHA-256 exactly as
// `cosign verify-blob --key` does. A key signature carries no trusted time and
// no transparency-log proof is consulted: the key itself is the trust.
//
// # Keyless (SignKeyless, identity verification)
//
// Keyless signing gets a short-lived certificate from Fulcio for an OIDC
// identity token, records the signature in Rekor and optionally gets an
// RFC 3161 timestamp. The token comes from the caller; IDTokenFromEnv reads
// the environment variables CI systems provide:
//
//   - SIGSTORE_ID_TOKEN: a raw OIDC token (the name cosign uses);
//   - ACTIONS_ID_TOKEN_REQUEST_URL + ACTIONS_ID_TOKEN_REQUEST_TOKEN: GitHub
//     Actions with `permissions: id-token: write`; the token is requested
//     with audience "sigstore".
//
// IDTokenClaims reads the subject and issuer a token will put in the
// certificate (unverified), so a CLI can say whom it signs as.
//
// Keyless verification needs a trusted root (trusted_root.json: Fulcio CAs,
// Rekor and CT log keys, TSAs). With VerifyOptions.TrustedRootJSON it is fully
// offline. Without it, Verify fetches the public-good Sigstore root over TUF
// (https://tuf-repo-cdn.sigstore.dev, cached under ~/.sigstore/root); if that
// fails (no network) the error says to pass --trusted-root.
//
// The policy follows the trusted root: at least one trusted time (a Rekor
// entry's integrated time or an RFC 3161 timestamp) is always required and the
// certificate must have been valid at that time; if the root lists Rekor logs a
// verified Rekor entry is required; if it lists CT logs a verified SCT is
// required. This matches cosign's defaults for the public-good instance.
// Identity regular expressions are matched against the whole value (they are
// anchored), which is stricter than cosign.
//
// # Errors
//
// *VerificationError is a verdict on the signature (wrong key, identity or
// issuer, changed data, changed or missing bundle, expired certificate):
// the CLI exits 1. *UsageError is a mistake in what the operator passed (bad
// option combination, unreadable key or trusted root, wrong passphrase): exit 2.
// Any other error means the answer could not be obtained (network, Fulcio or
// Rekor failure, TUF fetch): exit 3. Text taken from a bundle, a certificate
// or a service is escaped in every message (control, bidi and zero-width
// characters) and bounded; Result.Identity and Result.Issuer are the raw
// certificate values and must be quoted by the caller before printing.
//
// Time: certificates are checked at the signature's verified timestamps, not
// at the current time (sigstore-go v1.3.0 has no clock option, and Sigstore's
// model does not need one), so a keyless bundle stays verifiable after its
// short-lived certificate expires, and one whose certificate was not valid at
// its timestamps never verifies.
package attest
