package locker

import (
	"maps"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// CommandTarget is the target of a new entry that runs command with the
// environment variables envs passed through (sorted, each once). unset
// names those of envs this process does not have: the server will start
// without them (on an error, those met before the bad name).
func CommandTarget(command, envs []string, lookup func(string) (string, bool)) (target *lockfile.Server, unset []string, err error) {
	for _, e := range envs {
		if !lockfile.ValidEnvName(e) {
			return nil, unset, usageErr("--env %s: give the name of an environment variable, not its value", termtext.ShellArg(e))
		}
		if _, ok := lookup(e); !ok {
			unset = append(unset, e)
		}
	}
	envs = slices.Clone(envs)
	slices.Sort(envs)
	return &lockfile.Server{Command: command, EnvPassthrough: slices.Compact(envs)}, unset, nil
}

// RemoteTarget is the target of a new entry for the remote server at url,
// sent the headers given as NAME=ENVVAR (the header's name, and the
// environment variable that holds its value).
func RemoteTarget(url string, headers []string) (*lockfile.Server, error) {
	if _, err := netrule.ParseServerURL(url); err != nil {
		return nil, usageErr("--url %s: %v", termtext.ShellArg(url), err)
	}
	target := &lockfile.Server{URL: url, Headers: map[string]string{}}
	for _, h := range headers {
		name, env, ok := strings.Cut(h, "=")
		if !ok || !lockfile.ValidEnvName(env) {
			return nil, usageErr("--header %s: want NAME=ENVVAR, the header's name and the environment variable that holds its value (the value itself is never given on the command line nor stored)", termtext.ShellArg(h))
		}
		if err := netrule.HeaderName(name); err != nil {
			return nil, usageErr("--header %s: %v", termtext.ShellArg(h), err)
		}
		if _, twice := netrule.HeaderTwin(maps.Keys(target.Headers), name); twice {
			return nil, usageErr("--header %s: header %s is given twice", termtext.ShellArg(h), name)
		}
		target.Headers[name] = env
	}
	return target, nil
}
