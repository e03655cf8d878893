package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/process"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/pkgspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// warnUnpinned warns about an npx/bunx/uvx package without an exact version
// and gives the pinned spelling. The version is never guessed: without
// Resolve the warning names the package manager's command that prints it;
// with it, that command runs and the warning says so.
func (p *planner) warnUnpinned(e clientconfig.Entry) {
	u := pkgspec.FindUnpinned(e.Argv)
	if u == nil {
		return
	}
	p.say("warn", "%s: %s is not pinned to a version: %s fetches the newest matching release at every start, so what runs can change under the lock.",
		q(e.Name), q(u.Spec), q(e.Argv[0]))
	version, how := "", ""
	if p.o.Resolve {
		v, err := lookupVersion(p.ctx, u)
		if err != nil {
			how = fmt.Sprintf(" (%s failed: %v)", qs(u.Lookup), err)
		} else {
			version, how = v, fmt.Sprintf(" (%s answered %s just now)", qs(u.Lookup), v)
		}
	}
	if version == "" {
		p.say("", "       pin it: write %s in the client config, with VERSION from: %s%s", q(u.Pinned("VERSION")), qs(u.Lookup), how)
		return
	}
	p.say("", "       pin it: write %s in the client config%s, i.e. run %s", q(u.Pinned(version)), how, qs(u.PinnedArgv(e.Argv, version)))
}

var pipVersion = &lazyRegexp{expr: `^\S+ \(([^)\s]+)\)`}

// lookupVersion runs the package manager's own lookup command.
func lookupVersion(ctx context.Context, u *pkgspec.Unpinned) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	args := u.Lookup
	if u.Ecosystem == "npm" {
		args = append(append([]string{}, args...), "--json")
	}
	process.Settle() // no child before the guard is up
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
	if err != nil {
		return "", err
	}
	var v string
	if u.Ecosystem == "npm" {
		var list []string
		switch {
		case json.Unmarshal(out, &v) == nil:
		case json.Unmarshal(out, &list) == nil && len(list) > 0:
			v = list[len(list)-1] // a range: npm lists the matching versions, newest last
		default:
			return "", fmt.Errorf("unexpected answer %s", termtext.Quoted(string(out), 80))
		}
	} else {
		m := pipVersion.get().FindSubmatch(out)
		if m == nil {
			return "", fmt.Errorf("unexpected answer %s", termtext.Quoted(string(out), 80))
		}
		v = string(m[1])
	}
	if v == "" || strings.ContainsAny(v, " \t\n\"'") {
		return "", fmt.Errorf("unexpected version %s", termtext.Quoted(v, 80))
	}
	return v, nil
}
