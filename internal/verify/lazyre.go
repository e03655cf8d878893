package verify

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use, not at start-up: compiling every
// expression of every package would cost each mcpsum command (even
// version) before main runs (cmd/mcpsum's TestInitIsCheap).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
