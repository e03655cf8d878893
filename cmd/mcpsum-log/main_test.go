package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// mcpsum-log says its version as mcpsum does; a mistyped command gets
// "did you mean" on a line of its own.
func TestVersionAndDidYouMean(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), []string{arg}, &stdout, &stderr); code != 0 ||
			!regexp.MustCompile(`^mcpsum-log \S+ \(go1\.\S+, \w+/\w+\)\n$`).MatchString(stdout.String()) {
			t.Errorf("mcpsum-log %s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"serv"}, &stdout, &stderr); code != 2 ||
		!strings.HasPrefix(stderr.String(), "mcpsum-log: unknown command \"serv\"\nmcpsum-log: hint: did you mean 'mcpsum-log serve'?\n") {
		t.Errorf("mcpsum-log serv: exit %d\n%s", code, stderr.String())
	}
}
