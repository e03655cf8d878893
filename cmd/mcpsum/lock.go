package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/verify"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func (a *app) lockCommand() *ffcli.Command {
	fs := a.flagSet("lock")
	lockfilePath := lockfileFlag(fs)
	name := cli.NameVar(fs, "name", "server entry to add, replace or re-lock")
	var envs stringList
	fs.Var(&envs, "env", "name of an environment variable passed to the server (repeatable, or a comma-separated list; values are never stored)")
	url := fs.String("url", "", "URL of a remote (Streamable HTTP) server to lock instead of a command")
	var headers stringList
	fs.Var(&headers, "header", "with --url: NAME=ENVVAR, a header sent to the server with its value from the environment variable ENVVAR (repeatable; values are never stored)")
	var oc oauthFlags
	oc.register(fs)
	timeout := fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started (era probe, handshake, each list page)")
	start := startTimeoutFlag(fs)
	accept := cli.NameVar(fs, "accept", "with no command: re-lock only when every change of each entry is of this kind (descriptive: only case, punctuation, reordering or deleted words), printing the changes; otherwise exit 1 and write nothing")
	strict := fs.Bool("strict", false, "refuse to write (exit 1) when an entry shadows another server's tools: the same or a look-alike name, or text naming them")
	remove := cli.NameVar(fs, "remove", "remove the server entry N from the lockfile (its command, surface and policy)")
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "mcpsum lock [--lockfile F] --name N [--env VAR]... [--timeout-secs S] [--start-timeout-secs S] [--strict] -- COMMAND [ARG]...\n  or   mcpsum lock [--lockfile F] --name N --url URL [--header NAME=ENVVAR]... [--oauth-client-id ID [--oauth-client-secret-env VAR]] [--oauth-client-metadata-url URL] [--strict]\n  or   mcpsum lock [--lockfile F] [--name N] [--accept descriptive] [--strict]\n  or   mcpsum lock [--lockfile F] --remove N",
		ShortHelp:  "run servers and pin their command and surface in mcp.lock",
		LongHelp: strings.TrimSpace(`
With a command after --, lock runs it, detects its protocol era, lists its
tools, prompts, resources and templates, and adds or replaces the entry N.
Without a command, lock re-locks the existing entries (or just N) with their
locked command and environment names, in their locked era first, several in
parallel. A server's policy is kept; taint labels of tools that no longer exist
are dropped and printed. When some servers fail, the others are still
re-locked and written, the failed ones keep their old entry, and lock exits
non-zero naming them. A failed lock of a new entry leaves mcp.lock
untouched. --remove N deletes the entry N.

With --url, lock pins a remote server that speaks Streamable HTTP: the exact
URL (https, or http to this machine only), the header names given with
--header and the variables their values come from (never the values), its
era and its surface. mcpsum connects only to that URL's origin: redirects
elsewhere are refused, and a host name must resolve to public addresses.
A server that answers 401 with OAuth metadata gets a sign-in (the URL is
printed and handed to $BROWSER); the entry pins the authorization server,
the resource and the scopes the token is for. --oauth-client-id (with
--oauth-client-secret-env for a confidential client) signs in as a client
registered with the authorization server beforehand; --oauth-client-metadata-url
names a Client ID Metadata Document, used where the authorization server
supports them. Without either mcpsum registers itself (RFC 7591).

The server sees only the variables named with --env, plus PATH, HOME and
TMPDIR. mcpsum declares one fixed set of client capabilities (roots,
sampling, elicitation) while locking, verifying and proxying, so the surface
pinned is the one the proxy's server session sees (some servers add tools
for clients that declare them).

A server that times out (--start-timeout-secs until its first line, then
--timeout-secs for each answer) or fails to start is reported with its last
stderr lines.

After writing, lock warns about what a reviewer could miss, shadowing included:
a tool or prompt of the entry with the same or a look-alike name as another
server's, or text of one server naming another's tool (each pair once). With
--strict shadowing is an error (exit 1) and nothing is written.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if *remove != "" {
				if len(args) > 0 || *name != "" || len(envs) > 0 || *accept != "" || *url != "" || len(headers) > 0 {
					return usageHint(fmt.Sprintf("mcpsum lock --lockfile %s --remove %s", quoteArg(*lockfilePath), quoteArg(*remove)), "--remove takes only the entry's name")
				}
				return a.removeEntry(*lockfilePath, *remove)
			}
			if err := checkTimeouts(*timeout, *start); err != nil {
				return err
			}
			a.strictShadow, a.accept = *strict, *accept
			if *accept != "" && !slices.Contains(locker.AcceptKinds, *accept) {
				return usageErr("--accept %s: the one kind lock can accept on its own is descriptive (only case, punctuation, reordering or deleted words)", quoteArg(*accept))
			}
			opts := launch.Options{Lockfile: *lockfilePath, Timeout: time.Duration(*timeout) * time.Second,
				StartTimeout: time.Duration(*start) * time.Second, Note: a.noter("lock"), Authorize: a.authorizer("lock"), Step: a.step,
				ClientMetadataURL: *oc.metadataURL}
			if err := oc.check(*url); err != nil {
				return err
			}
			if *url != "" || len(headers) > 0 {
				if *accept != "" {
					return usageHint("mcpsum lock --accept "+quoteArg(*accept)+" --name NAME", "--accept re-locks existing entries; it takes no --url")
				}
				target, err := remoteTarget(*url, headers, envs, args)
				if err != nil {
					return err
				}
				target.OAuth = oc.pin()
				return locker.LockNew(ctx, *lockfilePath, *name, target, opts, a.writeOptions(), a.lockHooks())
			}
			if len(args) == 0 {
				if len(envs) > 0 {
					return usageHint("give the server command after --: mcpsum lock --name N --env VAR -- COMMAND [ARG]...", "--env applies to a new entry")
				}
				return locker.Relock(ctx, *lockfilePath, *name, opts, a.writeOptions(), a.lockHooks())
			}
			if *accept != "" {
				return usageHint("mcpsum lock --accept "+quoteArg(*accept)+" --name NAME", "--accept re-locks existing entries; it takes no command")
			}
			return a.lockCommandEntry(ctx, *lockfilePath, *name, envs, args, opts)
		},
	}
}

// lockCommandEntry adds or replaces one entry with an explicit command.
func (a *app) lockCommandEntry(ctx context.Context, path, name string, envs, command []string, opts launch.Options) error {
	target, unset, err := locker.CommandTarget(command, envs, os.LookupEnv)
	for _, e := range unset {
		fmt.Fprintf(a.stderr, "lock: note: %s is not set here; the server will start without it\n", e)
	}
	if err != nil {
		return err
	}
	return locker.LockNew(ctx, path, name, target, opts, a.writeOptions(), a.lockHooks())
}

// lockHooks are how locker.LockNew and Relock reach the user.
func (a *app) lockHooks() locker.Hooks {
	h := locker.Hooks{Progress: a.lockProgress, Wrote: a.wrote,
		CheckLog: func(ctx context.Context, seen *lockfile.File, e map[string]*lockfile.Server) error {
			return a.checkLog(ctx, "lock", seen, e)
		},
		Note:      func(msg string) { fmt.Fprintf(a.stderr, "lock: %s\n", msg) },
		Accepting: a.accept != "",
	}
	// Every re-lock prints what it takes in; lock --accept also refuses a
	// change not of that kind.
	h.Review = func(path string, f *lockfile.File, entries map[string]*lockfile.Server) error {
		if err := verify.Accept(a.stdout, isTerminal(a.stdout), path, a.accept, f, entries); err != nil {
			return verdict(err)
		}
		return nil
	}
	return h
}

// wrote prints what a merge into the lockfile at path noted, that it was
// written, and the warnings of the new entries.
func (a *app) wrote(path string, entries map[string]*lockfile.Server, w *locker.Written) {
	a.printWritten(path, w)
	a.printLockWarnings(path, entries, w.Shadows)
}

// printWritten prints what a merge into the lockfile at path noted, and
// that it was written.
func (a *app) printWritten(path string, w *locker.Written) {
	for _, n := range w.Notes {
		fmt.Fprintf(a.stderr, "lock: %s\n", n)
	}
	fmt.Fprintf(a.stderr, "lock: wrote %s\n", path)
}

func (a *app) writeOptions() locker.Options {
	return locker.Options{Generator: "mcpsum " + moduleVersion(), Strict: a.strictShadow}
}

// printLockWarnings prints, after a lock, what show would flag in the new
// entries (locker.Warnings) and the shadowing between them and the lock's
// other servers. The lock is written anyway (unless --strict refused the
// shadowing): these are for the reviewer.
func (a *app) printLockWarnings(path string, entries map[string]*lockfile.Server, shadows []review.Shadow) {
	for _, w := range locker.Warnings(path, entries) {
		fmt.Fprintf(a.stderr, "lock: warning: %s\n", w)
	}
	for _, s := range shadows {
		fmt.Fprintf(a.stderr, "lock: warning: shadowing: %s\n", s)
	}
}

// removeEntry is lock --remove.
func (a *app) removeEntry(path, name string) error {
	if err := locker.Remove(path, name, "mcpsum "+moduleVersion()); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "lock: removed %s from %s\n", quoteArg(name), path)
	return nil
}

// defaultTimeoutSecs and defaultStartTimeoutSecs: each answer, and the
// start-up allowance (until the server's first line on stdout; a cold npx
// download took up to ~60 s on CI runners).
const (
	defaultTimeoutSecs      = 30
	defaultStartTimeoutSecs = 60
)

func startTimeoutFlag(fs *flag.FlagSet) *int {
	return fs.Int("start-timeout-secs", defaultStartTimeoutSecs, "seconds a server may take from its start to its first answer (a first npx run downloads the package)")
}

func checkTimeouts(timeout, start int) error {
	if timeout <= 0 {
		return usageErr("--timeout-secs must be positive, got %d", timeout)
	}
	if start <= 0 {
		return usageErr("--start-timeout-secs must be positive, got %d", start)
	}
	return nil
}

// noter returns a launch.Options.Note that prints "cmd: note: server: msg".
func (a *app) noter(cmd string) func(server, msg string) {
	var mu sync.Mutex
	return func(server, msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(a.stderr, "%s: note: %s: %s\n", cmd, server, msg)
	}
}
