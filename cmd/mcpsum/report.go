package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/fleet"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/importer"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/sandbox"
	"github.com/mcpsum/mcpsum/internal/verify"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// Exit codes: the contract scripts rely on (README "Exit codes").
const (
	exitOK        = 0 // everything checked and fine
	exitVerdict   = 1 // security verdict: drift, digest mismatch, bad signature, policy denial
	exitUsage     = 2 // bad command line
	exitUndecided = 3 // could not decide: I/O, server failed or timed out, malformed lockfile, sandbox unavailable
)

// exitError carries an explicit exit code chosen by a subcommand.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// verdict marks err as a security verdict (exit 1).
func verdict(err error) error { return &exitError{code: exitVerdict, err: err} }

// usageErr is a command-line mistake (exit 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// usageHint is usageErr with the next step, on a line of its own.
func usageHint(next, format string, args ...any) error {
	return &exitError{code: exitUsage, err: hint.Errorf(next, format, args...)}
}

// silent is an error whose message was already written (e.g. a verify report);
// only its exit code matters.
type silent struct{ code int }

func (s silent) Error() string { return fmt.Sprintf("exit %d", s.code) }

// exitCode is the one place that maps errors to exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var s silent
	if errors.As(err, &s) {
		return s.code
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if code, ok := libraryExitCode(err); ok {
		return code
	}
	return exitUndecided // fail closed: anything unclassified is "could not decide"
}

// outcomeExit maps a report's verdict to the exit code.
func outcomeExit(o verify.Outcome) int {
	switch o {
	case verify.Fail:
		return exitVerdict
	case verify.Undecided:
		return exitUndecided
	}
	return exitOK
}

// report writes err to stderr (unless already reported) and returns the exit code.
func report(stderr io.Writer, err error) int {
	code := exitCode(err)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return code
	}
	var s silent
	if !errors.As(err, &s) {
		printErr(stderr, err)
	}
	return code
}

// printErr writes err for a person: "mcpsum: MESSAGE", then each of its
// hints on a line of its own, "mcpsum: hint: NEXT STEP" (internal/hint).
func printErr(w io.Writer, err error) {
	fmt.Fprintf(w, "mcpsum: %s\n", hint.Lines(err, "mcpsum: "))
}

// libraryExitCode maps the typed errors of the libraries, in this order
// (the first that err wraps decides).
func libraryExitCode(err error) (int, bool) {
	var failed *locker.FailedError
	var helper *attestproto.Error
	switch {
	case errors.As(err, new(*importer.DetectError)):
		return exitUsage, true // the config's client: name it with --client
	case errors.As(err, new(*fleet.RefusedError)):
		return exitVerdict, true // fleet sync refused a release; nothing was installed
	case errors.As(err, new(*fleet.UsageError)):
		return exitUsage, true
	case errors.As(err, &failed):
		return exitCode(failed.Cause), true // each failure was shown; the first decides
	case errors.As(err, new(*importer.RefusedConfigError)):
		return exitVerdict, true // a project config's real file leaves the project
	case errors.As(err, new(*lockfile.IntegrityError)):
		return exitVerdict, true // I3: the lockfile does not match its digests
	case errors.As(err, new(*sandbox.PolicyError)):
		return exitUndecided, true // the server was not started
	case sumdb.IsSecurity(err):
		return exitVerdict, true // the transparency log disagrees, or lies
	case errors.As(err, new(*lockfile.FormatError)):
		return exitUndecided, true // malformed: nothing could be checked
	case errors.As(err, new(*lockfile.LimitError)):
		return exitUndecided, true // an entry the lockfile could not hold and be read back
	case errors.As(err, new(*locker.UsageError)):
		return exitUsage, true // the entry named is not there, or cannot be
	case errors.As(err, new(*locker.NoLockfileError)):
		return exitUndecided, true
	case errors.As(err, new(*locker.ShadowError)):
		return exitVerdict, true // --strict refused shadowing between servers
	case errors.As(err, &helper):
		return helper.Exit, true // the signing helper's verdict, or why it gave none
	}
	return 0, false
}
