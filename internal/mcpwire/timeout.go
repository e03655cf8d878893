package mcpwire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

// TimeoutError reports a call that got no answer in time, with the server's
// last stderr lines. It matches errors.Is(err, context.DeadlineExceeded).
type TimeoutError struct {
	Method string
	After  time.Duration // how long the call waited
	// Silent is set when the server had not written a single line on stdout
	// since it was started; StartTimeout is the start-up allowance it had.
	Silent       bool
	StartTimeout time.Duration
	Stderr       []string // escaped stderr tail (see process.Process.StderrTail)
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: no answer within %s", e.Method, e.After)
	if e.Silent {
		b.WriteString("; the server has written nothing on stdout since it started")
		if e.StartTimeout > 0 {
			fmt.Fprintf(&b, " (start-up allowance %s)", e.StartTimeout)
		}
	}
	if len(e.Stderr) == 0 {
		b.WriteString("; it wrote nothing to stderr")
		return b.String()
	}
	b.WriteString("; its last stderr lines:")
	process.WriteStderrTail(&b, e.Stderr)
	return b.String()
}

// Is makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// callTimeout is how long a call made now may wait: Timeout, or longer
// while the server has not spoken yet and the start-up allowance lasts.
func (c *Client) callTimeout() time.Duration {
	if c.opts.StartTimeout <= 0 || c.spoke.Load() {
		return c.opts.Timeout
	}
	return max(c.opts.Timeout, c.opts.StartTimeout-time.Since(c.created))
}
