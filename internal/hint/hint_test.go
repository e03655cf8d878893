package hint

import (
	"errors"
	"fmt"
	"testing"
)

// The sentence and the hints stay apart: Error() is the message alone,
// however deep the hint is wrapped, and Lines puts each hint on its own line.
func TestHintsStayOutOfTheSentence(t *testing.T) {
	inner := Wrap(errors.New("server exited"), "install it: npm ci")
	err := fmt.Errorf("lock %q: %w", "mem", inner)
	if got := err.Error(); got != `lock "mem": server exited` {
		t.Errorf("Error() = %q, want the message without hints", got)
	}
	joined := errors.Join(err, New("second", "run it again", "install it: npm ci"))
	if got := Of(joined); len(got) != 2 || got[0] != "install it: npm ci" || got[1] != "run it again" {
		t.Errorf("Of = %q, want each hint once, in order", got)
	}
	want := "lock \"mem\": server exited\nmcpsum: hint: install it: npm ci"
	if got := Lines(err, "mcpsum: "); got != want {
		t.Errorf("Lines =\n%s\nwant\n%s", got, want)
	}
	if Wrap(nil, "x") != nil || Wrap(inner) != inner || Wrap(inner, "") != inner {
		t.Error("Wrap of nil, or with no hints, must return its error as it is")
	}
	if Of(errors.New("plain")) != nil {
		t.Error("a plain error has no hints")
	}
}
