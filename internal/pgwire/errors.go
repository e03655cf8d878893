package pgwire

import (
	"errors"
	"fmt"
)

// Error is an ErrorResponse from the server. Its text is cleaned of control
// characters and cut to length; Error names the SQLSTATE.
type Error struct {
	Severity string // ERROR, FATAL, PANIC (not localised)
	Code     string // the SQLSTATE, e.g. 28P01
	Message  string
	Detail   string
	Hint     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("PostgreSQL %s: %s (SQLSTATE %s)", e.Severity, e.Message, e.Code)
}

func pgError(f map[byte]string) *Error {
	sev := f['V'] // non-localised severity, from 9.6
	if sev == "" {
		sev = f['S']
	}
	return &Error{Severity: clean(sev), Code: clean(f['C']), Message: clean(f['M']), Detail: clean(f['D']), Hint: clean(f['H'])}
}

// ErrNoRows is what QueryRow's Scan returns when the query returned no row.
var ErrNoRows = errors.New("no rows in result set")

// ErrTxRolledBack is Commit's error when the transaction had failed: the
// server rolled it back instead.
var ErrTxRolledBack = errors.New("the transaction failed and was rolled back")
