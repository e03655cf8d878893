package cli

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use, not at
// start-up: compiling every expression of every package would cost each
// mcpsum command (even version) before main runs (cmd/mcpsum's
// TestInitIsCheap). Declare one as a pointer to a literal (var re =
// &lazyRegexp{expr: `...`}): the compiler lays that out as data, so the
// package runs no initialiser, and a process that never uses the package
// never touches its code (docs/performance.md, the proxy's peak RSS).
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// get returns the expression, compiling it on the first call.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
