package fleet

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// Install writes policy (the client's, from Emit) where the client reads
// it on env's platform, atomically, 0644, its folder created 0755. A file
// already there is replaced only when it holds nothing but what mcpsum
// writes (the client's keys); one with other settings is left alone and
// the error names them, so nothing of an organisation's own policy is
// lost. A policy o describes that names a path another user could change
// on this machine (LocalCheck) is not installed. It returns the path written.
func (c *Client) Install(policy []byte, o EmitOptions, env Env) (string, error) {
	p := c.Path(env)
	if p == "" {
		return "", usage("%s reads its managed settings from a configuration profile (macOS) or the registry (Windows), not a file on %s: deploy the keys 'mcpsum fleet emit --client %s%s' prints with your MDM (docs/fleet.md)", c.Title, env.GOOS, c.Name, modeArgs(c))
	}
	if err := o.LocalCheck(); err != nil {
		return "", err
	}
	dir := filepath.Dir(p)
	if err := installDir(dir); err != nil {
		return "", err
	}
	if err := secureFile(p); err == nil {
		old, err := safeio.ReadRegular(p, c.Title+" policy", 4<<20)
		if err != nil {
			return "", err
		}
		if others := c.otherKeys(old); len(others) > 0 {
			return "", fmt.Errorf("%s holds settings mcpsum does not write (%s): merge the policy 'mcpsum fleet emit --client %s%s' prints into it yourself, or move those settings", quote(p), strings.Join(others, ", "), c.Name, modeArgs(c))
		}
	} else if !missing(err) {
		return "", err
	}
	if err := statefile.WriteAtomic(p, policy, statefile.WriteOptions{Perm: 0o644, Exact: true, Sync: true}); err != nil {
		return "", fmt.Errorf("writing %s: %w", quote(p), err)
	}
	return p, nil
}

// modeArgs are the flags a hint's emit command needs for c: --mode url for
// a client that takes nothing else.
func modeArgs(c *Client) string {
	if !c.Supports(ModeArgv) {
		return " --mode url --serve-url URL"
	}
	return ""
}

// otherKeys lists the top-level members (tables) of an existing policy
// file that are not the client's; an unreadable file counts as other.
func (c *Client) otherKeys(data []byte) []string {
	var keys []string
	if c.toml {
		var doc map[string]any
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return []string{"content that is not valid TOML"}
		}
		keys = slices.Sorted(maps.Keys(doc))
	} else {
		m, err := object(data, c.keys, false)
		if err != nil {
			return []string{"content that is not a JSON object"}
		}
		keys = slices.Sorted(maps.Keys(m))
	}
	var out []string
	for _, k := range keys {
		if !slices.Contains(c.keys, k) {
			out = append(out, k)
		}
	}
	return out
}

// installedPolicy reads the client's policy file; nil when there is none.
func (c *Client) installedPolicy(env Env) ([]byte, string, error) {
	p := c.Path(env)
	if p == "" {
		return nil, "", nil
	}
	data, err := safeio.ReadRegular(p, c.Title+" policy", 4<<20)
	if missing(err) {
		return nil, p, nil
	}
	if err == nil {
		// The file, the folder it really is in and the links on the way:
		// a policy someone other than root could change holds nothing.
		if serr := securePath(p); serr != nil {
			return data, p, fmt.Errorf("%w: another user could change the policy", serr)
		}
	}
	return data, p, err
}
