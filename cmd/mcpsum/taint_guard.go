package main

import (
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// taintGuard builds the proxy hooks of an entry with a taint policy
// (internal/taintguard); the guard's remarks go to stderr.
func (a *app) taintGuard(name string, entry *lockfile.Server, timeout time.Duration) (proxy.Hooks, func(), error) {
	return taintguard.New(name, entry, timeout, func(msg string) {
		fmt.Fprintf(a.stderr, "mcpsum proxy %s: %s\n", quoteArg(name), msg)
	})
}
