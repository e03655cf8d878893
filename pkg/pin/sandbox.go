package pin

import (
	"fmt"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// sandboxed wraps spec in the entry's sandbox. Until pkg/sandbox is wired in,
// a server with a sandbox policy does not start (fail closed).
func sandboxed(name string, sb *lockfile.Sandbox, spec mcpwire.Spec, opts Options) (mcpwire.Spec, func(), error) {
	_ = protectedPaths(opts.Lockfile)
	return spec, nil, fmt.Errorf("server %q has a sandbox policy, but this build of mcpsum cannot enforce sandboxes yet; the server was not started", name)
}
