// Package redact keeps the credentials mcpsum sends in this process (header
// values taken from the environment, OAuth tokens, client secrets) and
// takes them out of text mcpsum prints, writes or forwards of its own: a
// server that reflects a credential (in an error body, a WWW-Authenticate
// header, a tool description) must not get it into a terminal, a CI log, a
// SARIF file or an MCP client's error message.
//
// The set is process-wide: the code that reads a credential adds it (Add),
// and the writers of reports and messages redact (String, Bytes, Writer).
// Each credential is matched as sent, JSON-escaped and Go-quoted, so the
// quoted forms mcpsum prints are caught too. Values shorter than MinLen are
// not kept: redacting them would mangle ordinary text, and they protect
// nothing.
//
// It imports nothing of mcpsum.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// MinLen is the shortest credential kept.
const MinLen = 8

var (
	mu      sync.RWMutex
	secrets map[string]string // a form of a credential → its replacement (made by the first Add: no initialiser)
	ordered []string          // the forms, longest first
)

// Add keeps value, a credential mcpsum sends; label says where it came
// from ("$LINEAR_TOKEN", "OAuth access token") and replaces it in text.
func Add(value, label string) {
	if len(value) < MinLen {
		return
	}
	repl := "[redacted " + label + "]"
	j, _ := json.Marshal(value)
	forms := []string{value, strings.Trim(string(j), `"`), strings.Trim(strconv.Quote(value), `"`)}
	mu.Lock()
	defer mu.Unlock()
	for _, f := range forms {
		if secrets == nil {
			secrets = map[string]string{}
		}
		if _, ok := secrets[f]; !ok {
			secrets[f] = repl
			ordered = append(ordered, f)
		}
	}
	sort.SliceStable(ordered, func(i, k int) bool { return len(ordered[i]) > len(ordered[k]) })
}

// String is s with every kept credential replaced.
func String(s string) string {
	mu.RLock()
	defer mu.RUnlock()
	for _, f := range ordered {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, secrets[f])
		}
	}
	return s
}

// Bytes is b with every kept credential replaced (b itself when none
// occurs).
func Bytes(b []byte) []byte {
	mu.RLock()
	defer mu.RUnlock()
	for _, f := range ordered {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(secrets[f]))
		}
	}
	return b
}

// Any reports whether credentials are kept (a writer with none to redact
// can pass text through).
func Any() bool {
	mu.RLock()
	defer mu.RUnlock()
	return len(ordered) > 0
}

// Writer redacts each Write to W. A credential split across two writes is
// not caught: mcpsum writes each line or document in one Write.
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	if !Any() {
		return w.W.Write(p)
	}
	if _, err := w.W.Write(Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Find reports the label of a kept credential that occurs in b.
func Find(b []byte) (string, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, f := range ordered {
		if bytes.Contains(b, []byte(f)) {
			return strings.TrimSuffix(strings.TrimPrefix(secrets[f], "[redacted "), "]"), true
		}
	}
	return "", false
}
