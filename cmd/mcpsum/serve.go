package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/serve"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func (a *app) serveCommand() *ffcli.Command {
	fs := a.flagSet("serve")
	lockfilePath := lockfileFlag(fs)
	addr := fs.String("addr", "", "HOST:PORT to listen on (default 127.0.0.1:8808); an address beyond loopback needs --tls-cert and --tls-key")
	socket := fs.String("socket", "", "listen on this Unix socket instead of --addr")
	tokenFile := fs.String("token-file", "", "file holding the bearer token callers present, created (mode 0600) when missing (default: serve-token in the state folder)")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM): required to listen beyond loopback")
	key := fs.String("tls-key", "", "the TLS certificate's private key (PEM)")
	state := fs.String("state", "", "where taint state, spent approvals and grants live: the state folder (default), or postgres://... shared by replicas")
	var hosts stringList
	fs.Var(&hosts, "allow-host", "a name the Host and Origin of a request may carry besides loopback ones and the TLS certificate's (a load balancer's name; repeatable)")
	replicaURL := fs.String("replica-url", "", "with --state postgres://: the URL the other replicas reach this one at (default: where it listens)")
	replicaID := fs.String("replica-id", "", "with --state postgres://: this replica's id, 8 hex digits, which its session ids begin with, for a balancer that keeps each session on its replica (default: a random one at each start)")
	timeout := fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server's surface check once it has started")
	start := startTimeoutFlag(fs)
	approval := fs.Int("approval-timeout-secs", 600, "seconds an approval question of the taint policy stays open before the call is refused")
	idle := fs.Int("idle-timeout-secs", int(serve.DefaultIdle/time.Second), "seconds a session may go without a request before it ends and its server stops")
	return &ffcli.Command{
		Name:       "serve",
		ShortUsage: "mcpsum serve [--lockfile F] [--addr HOST:PORT | --socket PATH] [--token-file F] [--tls-cert C --tls-key K] [--allow-host NAME]... [--state postgres://... [--replica-url URL] [--replica-id ID]]",
		ShortHelp:  "serve every locked server over Streamable HTTP, each behind the proxy",
		LongHelp: strings.TrimSpace(`
serve gives each server of the lockfile a URL, /servers/NAME/mcp, for MCP
clients and policies that take only a URL. Every request goes through the
same proxy as 'mcpsum proxy': the locked surface served, the live one checked,
drift quarantined (-32002), calls and results byte for byte, taint policy and
approvals (elicitation, or input_required for 2026-07-28 clients).

Legacy clients get Streamable HTTP sessions (Mcp-Session-Id, SSE, the GET
stream, DELETE), each with its own server process (or its own session with a
remote server), ended after --idle-timeout-secs without a request; 2026-07-28
clients send stateless requests, served by one server process per client
identity. A client's identity is the token and, when it sends one, its
Mcpsum-Session header: the taint state of all the servers it uses.

Callers present 'Authorization: Bearer TOKEN', the token in --token-file
(created when missing). serve listens on loopback (or a Unix socket) unless
given TLS; Host and Origin must name this server. Several replicas behind a
load balancer share state with --state postgres://...; see docs/serve.md.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("serve takes no arguments (got %s)", quoteArg(args[0]))
			}
			if err := checkTimeouts(*timeout, *start); err != nil {
				return err
			}
			var ue *serve.UsageError
			if *approval <= 0 || *idle <= 0 {
				return usageErr("--approval-timeout-secs and --idle-timeout-secs must be positive")
			}
			if *replicaURL != "" && *state == "" {
				return usageErr("--replica-url is for replicas sharing --state postgres://...")
			}
			if *replicaID != "" {
				if *state == "" {
					return usageErr("--replica-id is for replicas sharing --state postgres://...")
				}
				if err := serve.CheckReplicaID(*replicaID); errors.As(err, &ue) {
					return usageErr("%s", ue.Msg)
				}
			}
			if err := serve.CheckState(*state); errors.As(err, &ue) {
				return usageErr("%s", ue.Msg)
			}
			for _, h := range hosts {
				if err := serve.CheckAllowHost(h); errors.As(err, &ue) {
					return usageErr("%s", ue.Msg)
				}
			}
			if *addr == "" && *socket == "" {
				*addr = "127.0.0.1:8808"
			}
			f, err := lockfile.Load(*lockfilePath)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return &locker.NoLockfileError{Path: *lockfilePath}
				}
				return err
			}
			if *tokenFile == "" {
				dir, err := statefile.Dir()
				if err != nil {
					return err
				}
				if err := statefile.MkdirPrivate(dir); err != nil {
					return err
				}
				*tokenFile = filepath.Join(dir, "serve-token")
			}
			token, created, err := serve.LoadToken(*tokenFile)
			if err != nil {
				return err
			}
			if created {
				fmt.Fprintf(a.stderr, "mcpsum serve: made a new token in %s\n", *tokenFile)
			}
			l, err := serve.Listen(serve.ListenOptions{Addr: *addr, Socket: *socket, CertFile: *cert, KeyFile: *key})
			if errors.As(err, &ue) {
				return usageErr("%s", ue.Msg)
			} else if err != nil {
				return err
			}
			defer l.Close()
			l.Access.Hosts = append(l.Access.Hosts, hosts...)
			st, err := serve.OpenState(ctx, *state, func(msg string) { fmt.Fprintf(a.stderr, "mcpsum serve: %s\n", msg) })
			if errors.As(err, &ue) {
				return usageErr("%s", ue.Msg)
			} else if err != nil {
				return err
			}
			defer st.Close()
			if *replicaURL == "" {
				*replicaURL = l.URL
				if *socket != "" {
					*replicaURL = "unix:" + *socket
				}
			}
			srv, err := serve.New(ctx, serve.Config{
				Lockfile: *lockfilePath, File: f, Token: token, Access: l.Access, State: st.Shared, Replicas: st.Replicas(*replicaURL, *replicaID),
				Pin: launch.Options{Lockfile: *lockfilePath, Timeout: time.Duration(*timeout) * time.Second,
					StartTimeout: time.Duration(*start) * time.Second},
				Approval: time.Duration(*approval) * time.Second, Idle: time.Duration(*idle) * time.Second,
				Stderr: a.stderr,
			})
			if err != nil {
				return err
			}
			a.serveHint(l, srv.Names(), *tokenFile, *socket)
			return serve.Run(ctx, srv, l)
		},
	}
}

// serveHint says where each server is and how to point a client at it.
func (a *app) serveHint(l *serve.Listener, names []string, tokenFile, socket string) {
	w := a.stderr
	base := l.URL
	if socket != "" {
		base = "http://localhost"
		fmt.Fprintf(w, "mcpsum serve: listening on the Unix socket %s\n", socket)
	}
	for _, n := range names {
		fmt.Fprintf(w, "mcpsum serve: %s at %s%s\n", quoteArg(n), base, serve.Path(n))
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "To use one from a client, give it the URL and the header 'Authorization: Bearer TOKEN', TOKEN being the contents of %s (docs/serve.md: Claude Code, Gemini CLI, managed settings).\n", quoteArg(tokenFile))
	if socket != "" {
		fmt.Fprintf(w, "Clients reach it through the socket, e.g. curl --unix-socket %s %s%s\n", quoteArg(socket), base, serve.Path(names[0]))
		return
	}
	fmt.Fprintf(w, `To try one, list its tools with the MCP Inspector:
  npx @modelcontextprotocol/inspector --cli %s%s --transport http --header "Authorization: Bearer $(cat %s)" --method tools/list
`, base, serve.Path(names[0]), quoteArg(tokenFile))
}
