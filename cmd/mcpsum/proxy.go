package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func (a *app) proxyCommand() *ffcli.Command {
	fs := a.flagSet("proxy")
	lockfilePath := lockfileFlag(fs)
	name := cli.NameVar(fs, "name", "locked server to run (required)")
	requireSig := fs.Bool("require-signature", false, "refuse to start unless the lockfile's Sigstore bundle verifies (set MCPSUM_REQUIRE_SIGNATURE=true on a workstation)")
	sig := registerSigFlags(fs, "signature", "the lockfile's Sigstore bundle for --require-signature (default: <lockfile>.sigstore.json)")
	timeout := fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of the server's surface check once it has started, and, once the client has closed its input, for the answers to its requests")
	start := startTimeoutFlag(fs)
	approval := fs.Int("approval-timeout-secs", 600, "seconds an approval question of the taint policy stays open before the call is refused")
	return &ffcli.Command{
		Name:       "proxy",
		ShortUsage: "mcpsum proxy [--lockfile F] --name N [--timeout-secs S] [--start-timeout-secs S] [--approval-timeout-secs S]\n  or   mcpsum proxy [--lockfile F] --name N --require-signature (--key PUB | --certificate-identity I --certificate-oidc-issuer O) [--trusted-root R]",
		ShortHelp:  "serve the locked surface to an MCP client and forward calls to the server",
		LongHelp: strings.TrimSpace(`
proxy speaks MCP on its stdin/stdout. It answers the client's handshake and
list requests from the lock, starts exactly the locked command with only the
locked environment names, checks the live surface against the lock before any
call goes through, and quarantines the server on definitional drift: every
later request then gets error -32002 whose data says {"mcpsum":"quarantined"},
which item changed, and to run 'mcpsum verify'. Informational drift is logged
to stderr and allowed. Calls and their results pass byte for byte (only ids
are rewritten); a call to a tool or prompt that is not locked is refused.

A remote entry (url) is reached over Streamable HTTP at the locked URL only,
with the locked headers' values from the environment and, for an entry
that signs in, the OAuth token kept by 'mcpsum lock' (refreshed when it
expired; without one the proxy stops and says to run 'mcpsum lock').

Clients of either protocol era work in front of servers of either era.
stdout carries only JSON-RPC; diagnostics and the server's stderr (escaped)
go to stderr. Exit 0 when the client leaves, 1 after a quarantine, 3 when the
server could not be started, checked, or died.

An entry with policy.taint is guarded: a source's result taints the client
session (the process that started the proxy, or MCPSUM_SESSION) in
$XDG_STATE_HOME/mcpsum before it is forwarded, and a sink call in a tainted
session needs the user's approval through the client (elicitation, or an
input_required result for 2026-07-28 clients; --approval-timeout-secs bounds
the wait) or is refused with an explanation. See 'mcpsum taint -h'.

With --require-signature the proxy starts nothing unless the lockfile's
Sigstore bundle (mcp.lock.sigstore.json) verifies for the given key or
identity and the lockfile's digests match: put MCPSUM_REQUIRE_SIGNATURE=true
and MCPSUM_KEY (or MCPSUM_CERTIFICATE_IDENTITY and
MCPSUM_CERTIFICATE_OIDC_ISSUER) in a workstation's environment to insist on
reviewed, signed locks for every server.

Client configuration:
  {"command": "mcpsum", "args": ["proxy", "--lockfile", "/abs/mcp.lock", "--name", "time"]}`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("proxy takes no arguments: the server's command comes from the lock only (got %s)", quoteArg(args[0]))
			}
			if *name == "" {
				return usageErr("proxy needs --name (the entry in %s to run)", quoteArg(*lockfilePath))
			}
			if err := checkTimeouts(*timeout, *start); err != nil {
				return err
			}
			if *approval <= 0 {
				return usageErr("--approval-timeout-secs must be positive, got %d", *approval)
			}
			opts := launch.Options{Lockfile: *lockfilePath,
				Timeout: time.Duration(*timeout) * time.Second, StartTimeout: time.Duration(*start) * time.Second}
			if *requireSig {
				// One read of the lockfile: the bytes whose signature and
				// digests verify are the bytes whose entry runs.
				r, f, err := sig.check(ctx, *lockfilePath)
				if err != nil {
					return fmt.Errorf("--require-signature: refusing to start %s: %w", quoteArg(*name), err)
				}
				fmt.Fprintf(a.stderr, "mcpsum proxy: %s is signed by %s\n", *lockfilePath, describeSigner(r))
				return a.runProxy(ctx, f, *lockfilePath, *name, opts, time.Duration(*approval)*time.Second)
			} else if *sig.bundle != "" || sig.any() {
				return usageErr("--signature, --key and the certificate flags of proxy need --require-signature")
			}
			f, err := lockfile.Load(*lockfilePath)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return &locker.NoLockfileError{Path: *lockfilePath, Name: *name}
				}
				return err
			}
			return a.runProxy(ctx, f, *lockfilePath, *name, opts, time.Duration(*approval)*time.Second)
		},
	}
}

// runProxy runs entry name of f, the lockfile read from path.
func (a *app) runProxy(ctx context.Context, f *lockfile.File, path, name string, opts launch.Options, approval time.Duration) error {
	entry := f.Servers[name]
	if entry == nil {
		return usageHint(fmt.Sprintf("lock it first with 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...'", quoteArg(path), quoteArg(name)),
			"no server %s in %s (locked: %s)", quoteArg(name), quoteArg(path), strings.Join(locker.Names(f), ", "))
	}
	var remote func(context.Context) (mcphttp.Spec, error)
	var reauth func(context.Context, string, string) (string, error)
	var stepUp func(string) error
	if entry.Remote() {
		opts.Lockfile = path
		// Asked once the proxy starts the server: a variable that is unset
		// or a spent sign-in then fails the client's handshake with its
		// reason, not a proxy that exited before it ("Connection closed").
		remote = func(ctx context.Context) (mcphttp.Spec, error) {
			return launch.RemoteSpec(ctx, name, entry, opts)
		}
		reauth = func(ctx context.Context, refused, challenge string) (string, error) {
			return launch.RefreshBearer(ctx, name, entry, opts, refused, challenge)
		}
		stepUp = func(challenge string) error { return launch.StepUp(name, entry, opts, challenge) }
	}
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		proxyTerminalHint(a.stderr, path, name)
	}
	hooks, closeHooks, err := a.taintGuard(name, entry, approval)
	if err != nil {
		return &exitError{code: exitUndecided, err: err}
	}
	defer closeHooks()
	// A client that dies closes our stdout: get EPIPE from the write instead
	// of being killed by SIGPIPE, so the server's process group is still ended.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	err = proxy.Run(ctx, a.stdin, a.rawStdout, proxy.Options{
		Name:     name,
		Lockfile: path,
		Entry:    entry,
		Pin:      opts,
		Stderr:   a.stderr,
		Hooks:    hooks,
		Remote:   remote,
		Reauth:   reauth,
		StepUp:   stepUp,
	})
	var q *proxy.QuarantineError
	if errors.As(err, &q) {
		return verdict(err)
	}
	return err
}

// proxyTerminalHint: someone started the proxy in a terminal, where it would
// wait silently for JSON-RPC. Say so, and give a command that tries it.
func proxyTerminalHint(w io.Writer, path, name string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	const hello = `'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"try","version":"1"}}}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'`
	fmt.Fprintf(w, `mcpsum proxy: serving %s from %s: waiting for an MCP client on stdin (JSON-RPC, one message per line; Ctrl-D or Ctrl-C ends it).
An MCP client starts this command itself ('mcpsum import -h' says how to put it in a client's config).
To try it by hand, list the locked tools through it from a shell:
  printf '%%s\n' %s | mcpsum proxy --lockfile %s --name %s
`, quoteArg(name), quoteArg(abs), hello, quoteArg(abs), quoteArg(name))
}
