package main

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// remoteTarget checks the flags of `lock --url URL [--header NAME=ENVVAR]...`
// and returns the entry's target (locker.RemoteTarget).
func remoteTarget(url string, headers, envs, args []string) (*lockfile.Server, error) {
	switch {
	case url == "":
		return nil, usageHint("give its --url", "--header applies to a remote server")
	case len(args) > 0:
		return nil, usageErr("give either --url (a remote server) or a command after -- (a local one), not both")
	case len(envs) > 0:
		return nil, usageHint("a remote server gets its credentials with --header NAME=ENVVAR", "--env applies to a local server's command")
	}
	return locker.RemoteTarget(url, headers)
}

// authorizer shows an OAuth authorization URL: printed on stderr, and
// handed to $BROWSER when it is set, as the one argument of that program
// (never through a shell).
func (a *app) authorizer(cmd string) func(server, authURL string) error {
	return func(server, authURL string) error {
		fmt.Fprintf(a.stderr, "%s: %s asks you to sign in; open this URL in your browser:\n  %s\n", cmd, server, quoteArg(authURL))
		if b := os.Getenv("BROWSER"); b != "" {
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
