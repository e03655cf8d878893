package main

import (
	"fmt"
	"io"
	"sort"
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

// describeTarget names what an entry runs or reaches, for messages.
func describeTarget(e *lockfile.Server) string {
	if e.Remote() {
		return "URL " + quoteArg(e.URL)
	}
	return "command " + quoteArgs(e.Command)
}

// printRemote prints the lines of `show` that say where a remote server is.
func printRemote(w io.Writer, s *showServer) {
	fmt.Fprintf(w, "  remote        %s (Streamable HTTP; mcpsum connects only to this origin)\n", quoteArg(s.URL))
	if len(s.Headers) == 0 {
		fmt.Fprintf(w, "  headers       none\n")
		return
	}
	names := make([]string, 0, len(s.Headers))
	for n := range s.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n + " from $" + s.Headers[n]
	}
	fmt.Fprintf(w, "  headers       %s (values are never stored)\n", strings.Join(names, ", "))
}
