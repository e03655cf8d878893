package policy

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// AuditFile is the taint audit log's name in the state directory.
const AuditFile = "taint-audit.jsonl"

// DefaultAuditMax bounds the audit log: past it the file is rotated to
// taint-audit.jsonl.1, so the two never take more than twice this.
const DefaultAuditMax = 16 << 20

// Record is one line of the audit log: one decision. Argument values are
// never written, only their digest.
type Record struct {
	Time       string `json:"time"`
	Kind       string `json:"kind"` // always "taint"
	Session    string `json:"session"`
	Server     string `json:"server"`
	Method     string `json:"method"`
	Tool       string `json:"tool,omitempty"` // tool or prompt name (a resource's URI is an argument: not logged)
	Role       string `json:"role"`           // "source" or "sink"
	Tainted    bool   `json:"tainted"`        // the session was tainted when the decision was made
	TaintedBy  string `json:"tainted_by,omitempty"`
	Asked      string `json:"asked,omitempty"`  // "elicitation" or "input_required"
	Answer     string `json:"answer,omitempty"` // accept, decline, cancel, error, timeout, cancelled, disconnected, ...
	Decision   string `json:"decision"`         // "allowed", "refused", "asked" or, for a source, "tainted"
	ArgsDigest string `json:"args_digest,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Audit appends Records to the audit log.
type Audit struct {
	log *statefile.Log
	now func() time.Time
}

// OpenAudit opens (creating it and the state directory) the audit log in
// stateDir, bounded to max bytes (0: DefaultAuditMax).
func OpenAudit(stateDir string, max int64) (*Audit, error) {
	if max <= 0 {
		max = DefaultAuditMax
	}
	if err := statefile.MkdirPrivate(stateDir); err != nil {
		return nil, err
	}
	l, err := statefile.OpenLog(filepath.Join(stateDir, AuditFile), max)
	if err != nil {
		return nil, err
	}
	return &Audit{log: l, now: time.Now}, nil
}

// Write appends r as one line.
func (a *Audit) Write(r Record) error {
	if a == nil {
		return nil
	}
	r.Time = a.now().UTC().Format(time.RFC3339Nano)
	r.Kind = "taint"
	r.Tool = truncate(r.Tool, 256)
	r.Reason = truncate(r.Reason, 1024)
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return a.log.Append(redact.Bytes(line)) // a reason may quote a server that reflected a credential
}

// Close closes the log.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	return a.log.Close()
}
