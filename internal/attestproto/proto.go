// Package attestproto is the protocol between mcpsum and its signing helper,
// mcpsum-attest. Signing pulls in sigstore-go, whose ~265 package
// initialisers would run at every start of every mcpsum command (lock,
// verify, proxy and the sandbox stage) if it were linked into mcpsum. So
// pkg/attest lives in a binary of its own, which mcpsum runs for `sign`,
// `verify --signature` and `proxy --require-signature`.
//
// The protocol, version Version:
//
//	mcpsum-attest sign   --protocol 1 [--key PRIV] [--fulcio-url U] [--rekor-url U] [--tsa-url U]
//	mcpsum-attest verify --protocol 1 --bundle B (--key PUB | identity flags) [--trusted-root R]
//
// stdin carries the exact bytes of the lockfile, read once by mcpsum: the
// helper never opens the lockfile, so what it signs or verifies is what
// mcpsum parsed and will use. Other files (keys, bundle, trusted root) are
// named by path and read by the helper; the passphrase and OIDC tokens come
// from the inherited environment. stdout carries exactly one JSON Response;
// the exit status equals Response.Exit (0 ok, 1 verdict, 2 usage, 3 could
// not decide). The helper writes nothing else to stdout.
//
// This package has no dependencies beyond the standard library: mcpsum
// imports it.
package attestproto

import "time"

// Version is the protocol version both sides must speak.
const Version = 1

// Command is the helper's file name (plus ".exe" on Windows).
const Command = "mcpsum-attest"

// Package is the helper's import path, for install instructions.
const Package = "github.com/mcpsum/mcpsum/cmd/mcpsum-attest"

// MaxInput bounds the lockfile bytes the helper reads from stdin.
const MaxInput = 64 << 20

// Public-good Sigstore endpoints (the sign flags' defaults).
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
)

// Exit statuses, the same contract as mcpsum's.
const (
	ExitOK        = 0
	ExitVerdict   = 1
	ExitUsage     = 2
	ExitUndecided = 3
)

// Response is the helper's one JSON object on stdout.
type Response struct {
	Protocol int `json:"protocol"`
	// Exit is the exit status; 0 means the request succeeded.
	Exit int `json:"exit"`
	// Error is a complete, terminal-safe message when Exit != 0.
	Error string `json:"error,omitempty"`
	// Notes are progress lines for the user (sign: where the token came from).
	Notes []string `json:"notes,omitempty"`
	// Bundle is the new Sigstore bundle (sign).
	Bundle []byte `json:"bundle,omitempty"`
	// Signer describes a signature that verified (verify).
	Signer *Signer `json:"signer,omitempty"`
}

// Signer describes a verified signature.
type Signer struct {
	Keyless    bool        `json:"keyless"`
	KeyHint    string      `json:"keyHint,omitempty"`
	Identity   string      `json:"identity,omitempty"`
	Issuer     string      `json:"issuer,omitempty"`
	Digest     string      `json:"digest"`
	Timestamps []Timestamp `json:"timestamps,omitempty"`
}

// Timestamp is one verified trusted time.
type Timestamp struct {
	Source string    `json:"source"` // "tlog" or "tsa"
	URI    string    `json:"uri"`
	Time   time.Time `json:"time"`
}
