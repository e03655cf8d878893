package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) proxyCommand() *ffcli.Command {
	fs := a.flagSet("proxy")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "locked server to run (required)")
	requireSig := fs.Bool("require-signature", false, "refuse to start unless the lockfile's Sigstore bundle verifies")
	_, _, _ = lockfile, name, requireSig
	return &ffcli.Command{
		Name:       "proxy",
		ShortUsage: "mcpsum proxy [--lockfile F] --name N",
		ShortHelp:  "serve the locked surface to an MCP client and forward calls to the server",
		LongHelp: strings.TrimSpace(`
proxy speaks MCP on its stdin/stdout. It answers the client's handshake and
list requests from the lock, starts exactly the locked command with only the
locked environment names, checks the live surface against the lock before any
call goes through, and quarantines the server on definitional drift.

Client configuration:
  {"command": "mcpsum", "args": ["proxy", "--lockfile", "/abs/mcp.lock", "--name", "time"]}`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum proxy")
		},
	}
}
