package main

import (
	"bytes"
	"strings"
	"testing"
)

// A person running the helper gets plain text, not a line of mcpsum's
// protocol; mcpsum's own calls (sign, verify) are left to the protocol.
func TestForHumans(t *testing.T) {
	for _, c := range []struct {
		args     []string
		code     int
		toStdout bool
	}{
		{nil, 2, false},
		{[]string{"-h"}, 0, true},
		{[]string{"--help"}, 0, true},
		{[]string{"bogus"}, 2, false},
		{[]string{"version"}, 0, true},
	} {
		var out, errb bytes.Buffer
		code, ok := forHumans(c.args, &out, &errb)
		got := out.String()
		if !c.toStdout {
			got = errb.String()
		}
		if !ok || code != c.code || strings.Contains(got, `"protocol"`) || got == "" {
			t.Errorf("%q: handled %v, exit %d, stdout %q, stderr %q", c.args, ok, code, out.String(), errb.String())
		}
		if c.args == nil && !strings.Contains(got, "mcpsum sign") {
			t.Errorf("no arguments: the text does not name the commands that run the helper:\n%s", got)
		}
	}
	for _, cmd := range []string{"sign", "verify"} {
		if _, ok := forHumans([]string{cmd, "--protocol", "1"}, &bytes.Buffer{}, &bytes.Buffer{}); ok {
			t.Errorf("%s was not left to the protocol", cmd)
		}
	}
}
