package launch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// EraFlags are the values of `mcpsum lock --era` (and import's): auto, the
// detection LOCKFILE.md's "Protocol era" describes, or one era to speak.
var EraFlags = []string{"auto", "legacy", mcpspec.Modern}

// ParseEra reads an --era value: "" for auto (detect), else the era of a
// lock entry (lockfile.EraLegacy, lockfile.EraModern).
func ParseEra(flag string) (string, error) {
	switch flag {
	case "", "auto":
		return "", nil
	case "legacy":
		return lockfile.EraLegacy, nil
	case mcpspec.Modern:
		return lockfile.EraModern, nil
	}
	return "", fmt.Errorf("--era %s: want one of %s (auto detects the era the server speaks, newest first)", termtext.ShellArg(flag), strings.Join(EraFlags, ", "))
}

// EraFlag is the --era value that asks for era ("auto" for "").
func EraFlag(era string) string {
	switch era {
	case lockfile.EraLegacy:
		return "legacy"
	case lockfile.EraModern:
		return mcpspec.Modern
	}
	return "auto"
}

// EraWords says what speaking era means on the wire, for messages.
func EraWords(era string) string {
	if era == lockfile.EraModern {
		return "2026-07-28 (server/discover, no initialize)"
	}
	return "legacy (initialize, up to 2025-11-25)"
}

// LockCommand is the mcpsum lock command line that locks target as entry
// name of the lockfile at lockPath ("" leaves --lockfile out), in the era
// the --era value flag names ("" or "auto" leaves --era out): the command
// with its --env names, or a remote server's --url, --header NAME=ENVVAR
// and the OAuth client it signs in as (never a value).
func LockCommand(lockPath, name string, target *lockfile.Server, flag string) string {
	args := []string{"mcpsum", "lock"}
	if lockPath != "" {
		args = append(args, "--lockfile", lockPath)
	}
	if flag != "" && flag != "auto" {
		args = append(args, "--era", flag)
	}
	args = append(args, "--name", name)
	if target.Remote() {
		args = append(args, "--url", target.URL)
		names := make([]string, 0, len(target.Headers))
		for n := range target.Headers {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			args = append(args, "--header", n+"="+target.Headers[n])
		}
		if o := target.OAuth; o != nil && o.ClientID != "" {
			args = append(args, "--oauth-client-id", o.ClientID)
			if o.ClientSecretEnv != "" {
				args = append(args, "--oauth-client-secret-env", o.ClientSecretEnv)
			}
		}
		return termtext.ShellArgs(args)
	}
	for _, n := range target.EnvPassthrough {
		args = append(args, "--env", n)
	}
	return termtext.ShellArgs(append(append(args, "--"), target.Command...))
}

// EraRefusedError is a server that did not answer in the one era lock was
// asked to speak (--era): what it answered, and no fallback.
type EraRefusedError struct {
	Server, Era string
	Err         error  // what it answered (or why it did not)
	Next        string // the lock command that detects its era instead
}

func (e *EraRefusedError) Error() string {
	how := "initialize"
	if e.Era == lockfile.EraModern {
		how = "server/discover"
	}
	return fmt.Sprintf("server %q: --era %s locks it only in the %s era, with no fallback, and %s failed: %v",
		e.Server, EraFlag(e.Era), EraWords(e.Era), how, e.Err)
}

func (e *EraRefusedError) Unwrap() error { return e.Err }

// Hints are the next step: lock it in the era it speaks, detected.
func (e *EraRefusedError) Hints() []string {
	return []string{"to lock it in the era it speaks (detected, newest first): " + e.Next}
}

// eraRefused is err, a failed handshake in opts.Era, as an *EraRefusedError
// (with Explain's hints for a start-up failure).
func eraRefused(name string, entry *lockfile.Server, opts Options, err error) error {
	var ee *mcpwire.EraError
	if errors.As(err, &ee) {
		// Its words are a re-lock's (the era it was locked in, gone);
		// here the era was asked for.
		switch {
		case ee.ModernOnly:
			err = errors.New("it answered initialize with -32022 (unsupported protocol version): it speaks only 2026-07-28")
		case ee.LacksModern:
			err = fmt.Errorf("it answered server/discover listing only %s: it does not speak 2026-07-28", termtext.List(ee.Supported, 20, 60))
		}
	}
	next := LockCommand(opts.Lockfile, name, entry, "")
	return &EraRefusedError{Server: name, Era: opts.Era, Err: Explain(name, entry, opts, err), Next: next}
}
