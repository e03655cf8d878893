package sumdb

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// MismatchError: the log holds another surface for the key. A security
// verdict: the server showed this machine something else than everyone saw.
type MismatchError struct {
	Key, Logged, Local string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: %s: this server's surface differs from the transparency log's\n\tlocal:  %s\n\tlogged: %s\nthe server showed this machine something other than what others saw (a targeted change, or a tampered install); nothing was written", e.Key, e.Local, e.Logged)
}

// RollbackError: the log's checkpoint is older than one this machine saw,
// and the log no longer serves the tiles of the newer tree it signed before
// (which would show the older one is its past, as a stale cache's is).
type RollbackError struct {
	Log             string
	Remembered, Got tlog.Tree
	// RememberedNote and GotNote are both checkpoints as the log signed
	// them: evidence anyone can check against the log's key.
	RememberedNote, GotNote []byte
	Err                     error // why the remembered tree's tiles could not be read
}

func (e *RollbackError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: transparency log %s rolled back: it now shows %s, older than the %s this machine saw before, and no longer serves what proves the older one is its past (%v); a log only grows\n%s",
		e.Log, treeText(e.Got), treeText(e.Remembered), e.Err, notesText(e.RememberedNote, e.GotNote, nil))
}

// ForkError: the log's checkpoint is not on the timeline of the one this
// machine saw: a larger tree that does not extend it, a tree of the same
// size with another root, or a smaller one it does not hold.
type ForkError struct {
	Log             string
	Remembered, Got tlog.Tree
	// RememberedNote and GotNote are both checkpoints as the log signed
	// them: evidence anyone can check against the log's key.
	RememberedNote, GotNote []byte
	evidence                *evidence
}

// evidence is the proof that two trees of a fork are inconsistent: the
// larger tree's hash at the smaller one's size, and the consistency proof
// of that hash in the larger tree (x/mod's "proof of misbehavior").
type evidence struct {
	hashAt tlog.Hash
	proof  tlog.TreeProof
}

func (e *ForkError) Error() string {
	return fmt.Sprintf("SECURITY ERROR: transparency log %s forked: it now shows %s, which is not on the timeline of the %s this machine saw before (the log shows different histories to different users)\n%s",
		e.Log, treeText(e.Got), treeText(e.Remembered), notesText(e.RememberedNote, e.GotNote, e.evidence))
}

func treeText(t tlog.Tree) string {
	return fmt.Sprintf("tree of %d records with root %s", t.N, base64.StdEncoding.EncodeToString(t.Hash[:]))
}

// notesText prints both signed checkpoints (and the proof of an
// inconsistency), indented, each line quoted for the terminal.
func notesText(remembered, got []byte, ev *evidence) string {
	var b strings.Builder
	b.WriteString("both checkpoints, as the log signed them (evidence anyone can check against its key):\n")
	for _, n := range []struct {
		what string
		note []byte
	}{{"remembered", remembered}, {"now served", got}} {
		b.WriteString(n.what + ":\n")
		for _, line := range strings.Split(strings.TrimSuffix(string(n.note), "\n"), "\n") {
			b.WriteString("\t" + termtext.TruncateQuote(line, 1024) + "\n")
		}
	}
	if ev != nil {
		fmt.Fprintf(&b, "proof of misbehaviour: the larger tree's hash at the smaller one's size is\n\t%s\n", ev.hashAt)
		if len(ev.proof) > 0 {
			b.WriteString("consistency proof of that hash in the larger tree:\n")
			for _, h := range ev.proof {
				fmt.Fprintf(&b, "\t%s\n", h)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
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
