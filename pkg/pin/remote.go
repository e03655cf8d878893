package pin

import (
	"fmt"
	"net/http"
	"os"
	"sort"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// Connect opens a session's transport to a locked entry: the process of a
// local entry (Start), or the Streamable HTTP endpoint of a remote one with
// its headers filled from the environment. cleanup runs after the
// transport has stopped.
func Connect(name string, entry *lockfile.Server, opts Options) (mcpwire.Transport, func(), error) {
	if !entry.Remote() {
		p, cleanup, err := Start(name, entry, opts)
		if err != nil {
			return nil, nil, err
		}
		return p, cleanup, nil
	}
	h, err := dialRemote(name, entry, opts)
	if err != nil {
		return nil, nil, err
	}
	return h, func() {}, nil
}

func dialRemote(name string, entry *lockfile.Server, opts Options) (*mcpwire.HTTP, error) {
	hdr, err := RemoteHeaders(entry)
	if err != nil {
		return nil, err // observe names the server
	}
	if opts.bearer != "" {
		hdr.Set("Authorization", "Bearer "+opts.bearer)
	}
	spec := mcpwire.HTTPSpec{URL: entry.URL, Header: hdr, MaxMessage: opts.MaxLine}
	if opts.Note != nil {
		spec.Note = func(msg string) { opts.Note(name, msg) }
	}
	return mcpwire.DialHTTP(spec)
}

// RemoteHeaders builds the headers of a remote entry from the environment:
// each locked header name gets the value of the variable the lock names.
// A variable that is unset or empty, or holds a line break, is an error
// naming the variable, never its value.
func RemoteHeaders(entry *lockfile.Server) (http.Header, error) {
	names := make([]string, 0, len(entry.Headers))
	for n := range entry.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	h := http.Header{}
	for _, n := range names {
		env := entry.Headers[n]
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return nil, fmt.Errorf("header %s takes its value from $%s, which is not set: export %s (its value is sent as the header, never stored) and run again", n, env, env)
		}
		if err := netrule.HeaderValue(v); err != nil {
			return nil, fmt.Errorf("header %s: the value of $%s %v; set it to the header's value only", n, env, err)
		}
		h.Set(n, v)
	}
	return h, nil
}
