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

func (e *FormatError) Error() string {
	s := e.Problem()
	switch {
	case e.File != "" && e.Server != "":
		// One broken entry: lock can replace it (lock.go's brokenEntry).
		f := termtext.ShellArg(e.File)
		s += fmt.Sprintf(" (fix the entry by hand; undo an edit, staged or not, with 'git checkout HEAD -- %s'; or, "+
			"to replace this one entry with a fresh lock of the server you mean to run "+
			"(every other entry must be valid), run 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...')",
			f, f, termtext.ShellArg(e.Server))
	case e.File != "":
		s += " (fix the file by hand or restore it from git)"
	}
	return s
}

// Problem is the error without the advice on what to do about it, for a
// caller that is already doing something about it (lock replacing a broken
// entry says what it found once, not the advice to run itself).
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
	f := termtext.ShellArg(e.File)
	return fmt.Sprintf("%s: the file was edited after it was locked, and mcpsum "+
		"reads none of it until it matches. See the edit, staged or not, with 'git diff HEAD -- %s'; "+
		"undo it with 'git checkout HEAD -- %s'; or, to replace this one entry with a fresh "+
		"lock of the server you mean to run (every other entry must match), run "+
		"'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...'",
		e.Problem(), f, f, f, termtext.ShellArg(e.Server))
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
