package launch

import (
	"fmt"
	"path/filepath"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/statefile"

	"github.com/mcpsum/mcpsum/internal/sandbox"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// StateDir is mcpsum's state directory (internal/statefile.Dir):
// $XDG_STATE_HOME/mcpsum, or ~/.local/state/mcpsum. It holds the egress audit
// log and the taint state; no sandbox write path may cover it.
func StateDir() (string, error) { return statefile.Dir() }

// AuditLog is the egress audit log: one JSON line per connection a sandboxed
// server made or was refused.
func AuditLog() (string, error) {
	d, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "egress.jsonl"), nil
}

// sandboxed turns spec into a start of the sandbox's pid 1 that runs the
// locked command confined as the policy says (I5). Anything the sandbox cannot
// enforce is an error: the server does not start.
func sandboxed(name string, sb *lockfile.Sandbox, spec process.Spec, opts Options) (process.Spec, func() error, func(), error) {
	state, err := StateDir()
	if err != nil {
		return spec, nil, nil, err
	}
	if err := statefile.MkdirPrivate(state); err != nil {
		return spec, nil, nil, fmt.Errorf("create the state directory: %w", err)
	}
	audit := filepath.Join(state, "egress.jsonl")
	cfg := sandbox.Config{
		Read:         sb.Filesystem.Read,
		Write:        sb.Filesystem.Write,
		NetworkAllow: sb.Network.Allow,
		NoNetwork:    len(sb.Network.Allow) == 0,
		Protected:    append(protectedPaths(opts.Lockfile), state, audit),
		Sealed:       []string{state},
		AuditLog:     audit,
		Name:         name,
		Dir:          spec.Dir,
	}
	l, err := sandbox.Prepare(cfg, spec.Argv, spec.Env)
	if err != nil {
		return spec, nil, nil, err
	}
	spec.Argv, spec.Env, spec.ExtraFiles, spec.SysProcAttr = l.Argv, l.Env, l.ExtraFiles, l.SysProcAttr
	return spec, l.Ready, func() { l.Close() }, nil
}
