package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// remoteTarget checks the flags of `lock --url URL [--header NAME=ENVVAR]...`
// and returns the entry's target.
func remoteTarget(url string, headers, envs, args []string) (*lockfile.Server, error) {
	switch {
	case url == "":
		return nil, usageErr("--header applies to a remote server: give its --url")
	case len(args) > 0:
		return nil, usageErr("give either --url (a remote server) or a command after -- (a local one), not both")
	case len(envs) > 0:
		return nil, usageErr("--env applies to a local server's command; a remote server gets its credentials with --header NAME=ENVVAR")
	}
	if _, err := netrule.ParseServerURL(url); err != nil {
		return nil, usageErr("--url %s: %v", quoteArg(url), err)
	}
	target := &lockfile.Server{URL: url, Headers: map[string]string{}}
	for _, h := range headers {
		name, env, ok := strings.Cut(h, "=")
		if !ok || !lockfile.ValidEnvName(env) {
			return nil, usageErr("--header %s: want NAME=ENVVAR, the header's name and the environment variable that holds its value (the value itself is never given on the command line nor stored)", quoteArg(h))
		}
		if err := netrule.HeaderName(name); err != nil {
			return nil, usageErr("--header %s: %v", quoteArg(h), err)
		}
		for other := range target.Headers {
			if strings.EqualFold(other, name) {
				return nil, usageErr("--header %s: header %s is given twice", quoteArg(h), name)
			}
		}
		target.Headers[name] = env
	}
	return target, nil
}

// replacedTarget says what a new lock replaced: "command A with B", "URL A
// with B", or, across kinds, "command A with URL B".
func replacedTarget(old, now *lockfile.Server) string {
	describe := func(e *lockfile.Server) (string, string) {
		if e.Remote() {
			return "URL", quoteArg(e.URL)
		}
		return "command", quoteArgs(e.Command)
	}
	ok, ov := describe(old)
	nk, nv := describe(now)
	if ok == nk {
		return ok + " " + ov + " with " + nv
	}
	return ok + " " + ov + " with " + nk + " " + nv
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
