package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/internal/taintguard"
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
			process.Ready() // while the lock is read: the server starts sooner
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
		return locker.NotLocked(f, path, name, fmt.Sprintf("lock it first with 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...'", quoteArg(path), quoteArg(name)))
	}
	po := proxy.Options{Name: name, Lockfile: path, Entry: entry, Pin: opts, Stderr: a.stderr}
	po.RemoteFromLock()
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		proxy.WriteTerminalHint(a.stderr, path, name)
	}
	// The proxy hooks of an entry with a taint policy; their remarks go to stderr.
	hooks, closeHooks, err := taintguard.New(name, entry, approval, func(msg string) {
		fmt.Fprintf(a.stderr, "mcpsum proxy %s: %s\n", quoteArg(name), msg)
	})
	if err != nil {
		return &exitError{code: exitUndecided, err: err}
	}
	defer closeHooks()
	// A client that dies closes our stdout: get EPIPE from the write instead
	// of being killed by SIGPIPE, so the server's process group is still
	// ended. In force before the server starts (process.Before), set up
	// while the proxy readies itself.
	installPipe, stopPipe := cli.NotifyPipe()
	process.Before(installPipe)
	defer stopPipe()

	po.Hooks = hooks
	err = proxy.Run(ctx, a.stdin, a.rawStdout, po)
	var q *proxy.QuarantineError
	if errors.As(err, &q) {
		return verdict(err)
	}
	return err
}
