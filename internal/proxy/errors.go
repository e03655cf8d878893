package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// CodeQuarantined is the JSON-RPC error code of every request to a
// quarantined server: the user's choice (DESIGN I4). It is also the legacy
// spec's "resource not found" and is reserved in 2026-07-28, so the error's
// data always carries {"mcpsum":"quarantined", ...} to tell them apart.
const CodeQuarantined = -32002

// QuarantineError is what Run returns after it quarantined the server: a
// security verdict (exit 1).
type QuarantineError struct {
	Server   string
	Reason   string             // one line, server text quoted
	Findings []lockfile.Finding // definitional findings (may be empty, e.g. an unreadable surface)
	Next     string             // the command to run
	Hint     string             // another way out, when one fits (e.g. policy.unpinned for data resources); may be empty
}

func (e *QuarantineError) Error() string {
	return fmt.Sprintf("server %q was quarantined: %s; run %s%s", e.Server, e.Reason, e.Next, e.hintSuffix())
}

// hintSuffix is the hint as the end of a sentence, or "".
func (e *QuarantineError) hintSuffix() string {
	if e.Hint == "" {
		return ""
	}
	return "; " + e.Hint
}

// rpc renders the quarantine as the -32002 error every later request gets.
func (e *QuarantineError) rpc() *jsonline.Error {
	type finding struct {
		Kind   string   `json:"kind"`
		Name   string   `json:"name,omitempty"`
		Change string   `json:"change"`
		Fields []string `json:"fields,omitempty"`
		Labels []string `json:"labels,omitempty"` // what kind of change (internal/review)
	}
	fs := make([]finding, 0, len(e.Findings))
	for _, f := range e.Findings {
		fs = append(fs, finding{f.Kind, f.Name, f.Change, f.Fields, f.Labels})
	}
	data := map[string]any{
		"mcpsum":   "quarantined",
		"server":   e.Server,
		"reason":   e.Reason,
		"findings": fs,
		"next":     e.Next,
	}
	if e.Hint != "" {
		data["hint"] = e.Hint
	}
	return &jsonline.Error{
		Code:    CodeQuarantined,
		Message: fmt.Sprintf("mcpsum: server %q is quarantined: %s; run %s%s", e.Server, e.Reason, e.Next, e.hintSuffix()),
		Data:    data,
	}
}

// describe renders definitional findings as one line for people.
func describe(fs []lockfile.Finding) string {
	var parts []string
	for _, f := range fs {
		s := f.Kind
		if f.Name != "" {
			q, _ := termtext.Quote(f.Name)
			s += ` "` + q + `"`
		}
		s += " " + f.Change
		if len(f.Fields) > 0 {
			s += " (" + strings.Join(quoteAll(f.Fields), ", ") + ")"
		}
		if len(f.Labels) > 0 {
			s += " [" + strings.Join(f.Labels, ", ") + "]"
		}
		switch f.Kind {
		case lockfile.KindEra, lockfile.KindVersionDropped:
			l, _ := termtext.Quote(f.Locked)
			o, _ := termtext.Quote(f.Observed)
			s += fmt.Sprintf(": locked %s, now %s", l, o)
		}
		parts = append(parts, s)
	}
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, "; ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i], _ = termtext.Quote(s)
	}
	return out
}

// mustJSON is json.Marshal for values that cannot fail.
func mustJSON(v any) json.RawMessage {
	return jsonline.AppendJSON(nil, v)
}

// StallError is a server that stopped in the middle of a long line.
type StallError struct {
	Server string
	After  time.Duration
}

// FramingError is a server whose stdout line is not exactly one JSON-RPC
// message (broken JSON, or more after the message on the same line).
type FramingError struct {
	Server string
	Err    error
}
