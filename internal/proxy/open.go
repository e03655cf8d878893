package proxy

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// RemoteFromLock readies a remote Entry (a local one needs nothing): Remote
// asks, when the proxy starts the server, for the locked URL with the
// headers' values and the token a lock kept (launch.RemoteSpec, with Pin),
// so a variable that is unset or a spent sign-in fails the client's
// handshake with its reason, not a proxy that exited before it; Reauth
// refreshes that token and StepUp signs in again for the scope a server
// asks.
func (o *Options) RemoteFromLock() {
	if !o.Entry.Remote() {
		return
	}
	name, entry, pin := o.Name, o.Entry, o.Pin
	o.Remote = func(ctx context.Context) (mcphttp.Spec, error) { return launch.RemoteSpec(ctx, name, entry, pin) }
	o.Reauth = func(ctx context.Context, refused, challenge string) (string, error) {
		return launch.RefreshBearer(ctx, name, entry, pin, refused, challenge)
	}
	o.StepUp = func(challenge string) error { return launch.StepUp(name, entry, pin, challenge) }
}

// WriteTerminalHint is what the proxy says when someone started it in a
// terminal, where it would wait silently for JSON-RPC: what it waits for,
// and a command that tries it (entry name of the lockfile at path).
func WriteTerminalHint(w io.Writer, path, name string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	const hello = `'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"try","version":"1"}}}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'`
	fmt.Fprintf(w, `mcpsum proxy: serving %s from %s: waiting for an MCP client on stdin (JSON-RPC, one message per line; Ctrl-D or Ctrl-C ends it).
An MCP client starts this command itself ('mcpsum import -h' says how to put it in a client's config).
To try it by hand, list the locked tools through it from a shell:
  printf '%%s\n' %s | mcpsum proxy --lockfile %s --name %s
`, termtext.ShellArg(name), termtext.ShellArg(abs), hello, termtext.ShellArg(abs), termtext.ShellArg(name))
}
