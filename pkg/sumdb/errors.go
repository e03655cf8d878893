package sumdb

import (
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// MismatchError: the log holds another surface for the key. A security
// verdict: the server showed this machine something else than everyone saw.
type MismatchError struct {
	Key, Logged, Local string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: %s: this server's surface differs from the transparency log's\n\tlocal:  %s\n\tlogged: %s\nthe server showed this machine something other than what others saw (a targeted change, or a tampered install); nothing was written", e.Key, e.Local, e.Logged)
}

// RollbackError: the log's checkpoint is older than one this machine saw.
type RollbackError struct {
	Log             string
	Remembered, Got tlog.Tree
}

func (e *RollbackError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: transparency log %s rolled back: it now shows %s, older than the %s this machine saw before; a log only grows", e.Log, treeText(e.Got), treeText(e.Remembered))
}

// ForkError: the log's checkpoint does not extend the one this machine saw.
type ForkError struct {
	Log             string
	Remembered, Got tlog.Tree
}

func (e *ForkError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: transparency log %s forked: it now shows %s, which does not extend the %s this machine saw before (the log shows different histories to different users)", e.Log, treeText(e.Got), treeText(e.Remembered))
}

func treeText(t tlog.Tree) string {
	return fmt.Sprintf("tree of %d records with root %s", t.N, base64.StdEncoding.EncodeToString(t.Hash[:]))
}

// ProofError: a stored proof does not prove the entry's record.
type ProofError struct {
	Key string
	Err error
}

func (e *ProofError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: %s: the stored transparency-log proof does not match: %v", e.Key, e.Err)
}

// UnreachableError: the log could not be asked. The lookup fails: a log
// that is blocked must not make every surface look genuine.
type UnreachableError struct {
	Log string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("transparency log %s cannot be reached: %v (a surface is only checked when the log answers; to skip keys of your own packages set MCPSUM_NOSUMDB, to skip the log MCPSUMDB=off)", e.Log, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// LogError: the log answered something that does not check out (a bad
// signature, a tile that does not match the tree, a malformed record).
type LogError struct {
	Log string
	Err error
}

func (e *LogError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: transparency log %s: %v", e.Log, e.Err)
}

// IsSecurity reports whether err is (or wraps) a security verdict (exit 1).
func IsSecurity(err error) bool {
	var (
		m *MismatchError
		r *RollbackError
		f *ForkError
		p *ProofError
		l *LogError
	)
	return errors.As(err, &m) || errors.As(err, &r) || errors.As(err, &f) || errors.As(err, &p) || errors.As(err, &l)
}
