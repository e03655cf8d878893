package lockfile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// FormatError is a malformed lockfile or a surface that cannot be locked:
// bad JSON, unknown keys, wrong types, duplicate keys, unknown versions, bad
// digests syntax, policy names that are not locked tools, bad sandbox paths or
// hosts, numbers that RFC 8785 would change. The cmd maps it to exit 3.
type FormatError struct {
	File   string // path given to Parse; "" for NewServer
	Server string // server name; "" outside a server entry or for NewServer
	Item   string // where in the entry, e.g. `tool "fetch"`, `policy.taint.sources[1]`; may be ""
	Err    error  // what is wrong
}

// Error is what is wrong (Problem); what to do about it is in Hints.
func (e *FormatError) Error() string { return e.Problem() }

// Hints are the next steps for a person: the command that resolves a merge
// conflict, or repairs or replaces a broken entry.
func (e *FormatError) Hints() []string {
	f := termtext.ShellArg(e.File)
	switch {
	case errors.Is(e.Err, ErrMergeConflict):
		return []string{fmt.Sprintf("resolve it with 'mcpsum lock --lockfile %s': it keeps the entries both sides agree on and re-locks the ones they disagree on (docs/locking.md)", f)}
	case e.File != "" && e.Server != "":
		// One broken entry: lock can replace it (locker's brokenEntry).
		return []string{fmt.Sprintf("fix the entry by hand; if %s is committed to git, undo an edit, staged or not, with 'git checkout HEAD -- %s'", f, f),
			fmt.Sprintf("or replace this one entry with a fresh lock of the server you mean to run (every other entry must be valid): 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...'", f, termtext.ShellArg(e.Server))}
	case e.File != "":
		return []string{"fix the file by hand or restore it from git"}
	}
	return nil
}

// Problem is the error without the advice on what to do about it (Error
// is the same now that the advice is in Hints).
func (e *FormatError) Problem() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString("lockfile ")
		b.WriteString(e.File)
	} else {
		b.WriteString("surface")
	}
	if e.Server != "" {
		b.WriteString(": server ")
		b.WriteString(termtext.Quoted(e.Server, 80))
	}
	if e.Item != "" {
		b.WriteString(": ")
		b.WriteString(e.Item)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *FormatError) Unwrap() error { return e.Err }

// IntegrityError is a digest that does not match the content it covers: the
// file was edited after it was locked. The cmd maps it to exit 1.
type IntegrityError struct {
	File     string
	Server   string
	Kind     string // "surface", "instructions", "tool", "prompt", "resource", "resourceTemplate"
	Item     string // the item key; "" for surface and instructions
	Locked   string // digest written in the file ("null" when absent)
	Computed string // digest of the content ("null" when absent)
}

func (e *IntegrityError) Error() string {
	return e.Problem() + ": the file was edited after it was locked, and mcpsum reads none of it until it matches"
}

// Hints are the commands that show the edit, undo it, or replace the entry.
func (e *IntegrityError) Hints() []string {
	f := termtext.ShellArg(e.File)
	return []string{fmt.Sprintf("if %s is committed to git: see the edit, staged or not, with 'git diff HEAD -- %s'; undo it with 'git checkout HEAD -- %s'", f, f, f),
		fmt.Sprintf("or replace this one entry with a fresh lock of the server you mean to run (every other entry must match): 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...'", f, termtext.ShellArg(e.Server))}
}

// Problem is the mismatch alone, without the advice (see FormatError.Problem).
func (e *IntegrityError) Problem() string {
	var what string
	switch e.Kind {
	case "surface":
		what = "the surface digest (command, envPassthrough, protocolVersion, supportedVersions, " +
			"serverInfo, instructions, capabilities and items)"
	case "instructions":
		what = "the instructions"
	default:
		what = e.Kind + " " + termtext.Quoted(e.Item, 80)
	}
	return fmt.Sprintf("lockfile %s: server %s: %s does not match its digest (locked %s, computed %s)",
		e.File, termtext.Quoted(e.Server, 80), what, e.Locked, e.Computed)
}

var errUnknownKind = errors.New("unknown item kind (want tool, prompt, resource or resourceTemplate)")

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// LimitError is an entry that would break a limit on what mcpsum reads
// back: written, the lockfile could not be read again by any command, so
// lock refuses the entry by name and writes the others (see Fit).
type LimitError struct {
	Server string // the entry
	Item   string // its item concerned, e.g. `tool "deep"`; "" when none stands out
	Limit  string // which limit, e.g. "the 64 MiB a lockfile may hold"
	Detail string // what the entry needs
}

func (e *LimitError) Error() string {
	var b strings.Builder
	b.WriteString("server ")
	b.WriteString(termtext.Quoted(e.Server, 80))
	if e.Item != "" {
		b.WriteString(": ")
		b.WriteString(e.Item)
	}
	fmt.Fprintf(&b, ": over %s (%s); the entry was not written, since mcpsum could not read the lockfile back", e.Limit, e.Detail)
	return b.String()
}
