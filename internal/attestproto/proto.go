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
