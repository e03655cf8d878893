package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/process"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
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
	clientID := fs.String("oauth-client-id", "", "with --url: sign in as this client, registered with the authorization server beforehand (pinned in the entry)")
	secretEnv := fs.String("oauth-client-secret-env", "", "with --oauth-client-id: the environment variable holding that client's secret (the name is pinned, never the value)")
	metadataURL := fs.String("oauth-client-metadata-url", "", "the URL of a Client ID Metadata Document to sign in with where the authorization server supports them (else dynamic registration)")
	timeout := fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started (era probe, handshake, each list page)")
	start := startTimeoutFlag(fs)
	accept := cli.NameVar(fs, "accept", "with no command: re-lock only when every change of each entry is of this kind (descriptive: only case, punctuation, reordering or deleted words), printing the changes; otherwise exit 1 and write nothing")
	strict := fs.Bool("strict", false, "refuse to write (exit 1) when an entry shadows another server's tools: the same or a look-alike name, or text naming them")
	era := fs.String("era", "auto", "the protocol era of a new entry: auto (detect: 2026-07-28 when the server offers it, else legacy), legacy (initialize) or 2026-07-28 (server/discover), spoken with no fallback")
	remove := cli.NameVar(fs, "remove", "remove the server entry N from the lockfile (its command, surface and policy)")
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "mcpsum lock [--lockfile F] --name N [--era auto|legacy|2026-07-28] [--env VAR]... [--timeout-secs S] [--start-timeout-secs S] [--strict] -- COMMAND [ARG]...\n  or   mcpsum lock [--lockfile F] --name N [--era E] --url URL [--header NAME=ENVVAR]... [--oauth-client-id ID [--oauth-client-secret-env VAR]] [--oauth-client-metadata-url URL] [--strict]\n  or   mcpsum lock [--lockfile F] [--name N] [--accept descriptive] [--strict]\n  or   mcpsum lock [--lockfile F] --remove N",
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

--era chooses the protocol era of a new entry. auto (the default) asks
server/discover first and locks 2026-07-28 when the server offers it, else
legacy. --era legacy (or 2026-07-28) speaks only that era, and a server
that does not answer in it fails the lock. An entry keeps the era it was
locked in: lock refuses --era for an entry locked in another era and names
the two commands that move it (remove it, lock it again). The proxy and
serve speak to a server only in its locked era: lock a server that speaks
both with --era legacy when its tools ask legacy clients (sampling,
elicitation) from inside a call, which a 2026-07-28 session does not allow.

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
			if *remove == "" {
				if err := checkTimeouts(*timeout, *start); err != nil {
					return err
				}
			}
			opts := launch.Options{Lockfile: *lockfilePath, Timeout: time.Duration(*timeout) * time.Second,
				StartTimeout: time.Duration(*start) * time.Second, Note: a.noter("lock"), Authorize: a.authorizer("lock"), Step: a.step}
			req := locker.Request{Path: *lockfilePath, Name: *name, Command: args, Env: envs, URL: *url, Headers: headers,
				Accept: *accept, Remove: *remove, Era: *era, OAuth: locker.OAuthClient{ID: *clientID, SecretEnv: *secretEnv, MetadataURL: *metadataURL}}
			return locker.Lock(ctx, req, opts, a.writeOptions(*strict), a.lockHooks(*accept))
		},
	}
}

// lockHooks are how locker.LockNew and Relock reach the user (accept:
// lock --accept's kind, or "").
func (a *app) lockHooks(accept string) locker.Hooks {
	h := locker.Hooks{Progress: a.lockProgress,
		Wrote: func(path string, entries map[string]*lockfile.Server, w *locker.Written) {
			locker.WriteWritten(a.stderr, path, entries, w, w.Shadows)
		},
		CheckLog:  a.logChecker("lock"),
		Note:      func(msg string) { fmt.Fprintf(a.stderr, "lock: %s\n", msg) },
		Accepting: accept != "",
	}
	// Every re-lock prints what it takes in; lock --accept also refuses a
	// change not of that kind.
	h.Review = func(path string, f *lockfile.File, entries map[string]*lockfile.Server) error {
		// In whole lines of ~64 KiB: a long diff made one write per line.
		out := &cli.Lines{W: a.stdout}
		err := verify.Accept(out, isTerminal(a.stdout), path, accept, f, entries)
		if ferr := out.Flush(); ferr != nil {
			return ferr
		}
		if err != nil {
			return verdict(err)
		}
		return nil
	}
	return h
}

// writeOptions are a lock's (strict: --strict refuses shadowing).
func (a *app) writeOptions(strict bool) locker.Options {
	return locker.Options{Generator: "mcpsum " + moduleVersion(), Strict: strict}
}

// defaultTimeoutSecs and defaultStartTimeoutSecs: each answer, and the
// start-up allowance (until the server's first line on stdout; a cold npx
// download took up to ~60 s on CI runners).
const (
	defaultTimeoutSecs      = 30
	defaultStartTimeoutSecs = 60
)

func startTimeoutFlag(fs *flag.FlagSet) *int {
	return fs.Int("start-timeout-secs", defaultStartTimeoutSecs, "seconds a server may take from its start to its first answer (a first npx run downloads the package); --timeout-secs when that is longer")
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

// authorizer shows an OAuth authorization URL: printed on stderr, and
// handed to $BROWSER when it is set, as the one argument of that program
// (never through a shell).
func (a *app) authorizer(cmd string) func(server, authURL string) error {
	return func(server, authURL string) error {
		fmt.Fprintf(a.stderr, "%s: %s asks you to sign in; open this URL in your browser:\n  %s\n", cmd, server, quoteArg(authURL))
		if b := os.Getenv("BROWSER"); b != "" {
			process.Settle() // no child before the guard is up
			c := exec.Command(b, authURL)
			c.Stdout, c.Stderr = a.stderr, a.stderr
			if err := c.Start(); err != nil {
				fmt.Fprintf(a.stderr, "%s: note: could not start $BROWSER (%v); open the URL yourself\n", cmd, err)
				return nil
			}
			go c.Wait()
		}
		return nil
	}
}
