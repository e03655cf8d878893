package fleet

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The ways a client's policy can name mcpsum (EmitOptions.Mode).
const (
	// ModeArgv admits the exact command `MCPSUM proxy --lockfile ORG --name N`.
	ModeArgv = "argv"
	// ModeURL admits mcpsum serve's endpoint SERVE/servers/N/mcp.
	ModeURL = "url"
)

// EmitOptions say how the policies name mcpsum.
type EmitOptions struct {
	Lockfile string // the org lock, as every machine has it (absolute)
	Mcpsum   string // mcpsum's absolute path on every machine (argv mode)
	Mode     string // ModeArgv or ModeURL
	ServeURL string // mcpsum serve's base URL, https://HOST[:PORT] (url mode)
}

// Entry is one server of the org lock as a client must start it.
type Entry struct {
	Name string
	Argv []string // argv mode
	URL  string   // url mode
}

// id is the entry as a client's allowlist matches it.
func (e Entry) id() string {
	if e.URL != "" {
		return "url " + e.URL
	}
	b, _ := json.Marshal(e.Argv)
	return "argv " + string(b)
}

// Entries are the org lock's servers, in name order, as the clients must
// run them: through mcpsum proxy with the org lock, or at mcpsum serve.
func Entries(f *lockfile.File, o EmitOptions) ([]Entry, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if len(f.Servers) == 0 {
		return nil, fmt.Errorf("%s holds no servers: a policy that admits none is not what fleet emit writes", quote(o.Lockfile))
	}
	base, _ := serveBase(o.ServeURL)
	var out []Entry
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		e := Entry{Name: n}
		if o.Mode == ModeURL {
			e.URL = base + "/servers/" + n + "/mcp"
		} else {
			e.Argv = []string{o.Mcpsum, "proxy", "--lockfile", o.Lockfile, "--name", n}
		}
		out = append(out, e)
	}
	return out, nil
}

// Check reports a mistake in o (a *UsageError): an unknown mode, a path
// that is not absolute or holds '$' (argv mode), a missing or malformed
// serve URL (url mode).
func (o EmitOptions) Check() error {
	switch o.Mode {
	case ModeArgv:
		for _, p := range []struct{ flag, path string }{{"--mcpsum", o.Mcpsum}, {"--lockfile", o.Lockfile}} {
			if !filepath.IsAbs(p.path) {
				return usage("%s %s: the clients need an absolute path", p.flag, quote(p.path))
			}
			if strings.Contains(p.path, "$") {
				return usage("%s %s holds '$', which the clients expand as an environment variable before matching; use a path without it", p.flag, quote(p.path))
			}
		}
	case ModeURL:
		_, err := serveBase(o.ServeURL)
		return err
	default:
		return usage("--mode %s: want argv or url", quote(o.Mode))
	}
	return nil
}

// LocalCheck reports a path of an argv policy that a user other than root
// (or the caller) could change on this machine: the mcpsum binary (or, when
// it is not there, its folder) and the org lock. The policy admits the
// command by these paths alone, so whoever could replace the binary or edit
// the lock could run any server under it. A url policy names no local path.
func (o EmitOptions) LocalCheck() error { return o.localCheck(true) }

// localCheck is LocalCheck, of the org lock only with lock (status reports
// a lock others may change once, as a problem of the lock).
func (o EmitOptions) localCheck(lock bool) error {
	if o.Mode != ModeArgv {
		return nil
	}
	for _, p := range []struct{ what, path string }{{"the mcpsum binary", o.Mcpsum}, {"the org lock", o.Lockfile}} {
		if p.path == o.Lockfile && !lock {
			continue
		}
		if err := securePath(p.path); err != nil {
			return fmt.Errorf("the policy admits %s by its path, but %w: another user could run any server under the policy", p.what, err)
		}
	}
	return nil
}

// serveBase checks mcpsum serve's URL: https (or http to this machine),
// a host and nothing after it but an optional "/".
func serveBase(raw string) (string, error) {
	if raw == "" {
		return "", usage("--mode url needs --serve-url https://HOST[:PORT], where mcpsum serve answers (docs/fleet.md)")
	}
	u, err := netrule.ParseServerURL(raw)
	if err != nil {
		return "", usage("--serve-url %s: %v", quote(raw), err)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || strings.ContainsAny(raw, "*$") {
		return "", usage("--serve-url %s: want only https://HOST[:PORT]; mcpsum serve answers each server at /servers/NAME/mcp", quote(raw))
	}
	return u.Scheme + "://" + u.Host, nil
}
