//go:build unix

package mcpwire

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// A server that needs longer to start than one answer may take (a cold npx
// download) is locked within the start-up allowance, in its real era: the
// go-sdk everything server, started 1.5 s late, with 300 ms per answer.
// Without the allowance the probe takes it for a slow legacy server.
func TestStartAllowanceSeparateFromAnswerTimeout(t *testing.T) {
	argv := []string{"sh", "-c", `sleep 1.5; exec "$0"`, peer(t, "gosdk-everything")}
	ctx := ctxTimeout(t, 60*time.Second)

	st := newStarter(argv...)
	c, h, err := ProbeWithOptions(ctx, st.start, &ClientOptions{Timeout: 300 * time.Millisecond, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("with a 20 s start allowance: %v", err)
	}
	if h.Era != mcpspec.EraModern {
		t.Errorf("era %s (%s), want modern", h.Era, h.Note)
	}
	if _, err := ListAll(ctx, c, h); err != nil {
		t.Errorf("list after a slow start: %v", err)
	}
	c.Close(stopGrace)
	st.assertNoLeftovers(t)

	st = newStarter(argv...)
	c, h, err = ProbeWithOptions(ctx, st.start, &ClientOptions{Timeout: 300 * time.Millisecond})
	if err == nil {
		c.Close(stopGrace)
		if h.Era == mcpspec.EraModern {
			t.Fatalf("without a start allowance a server 1.5 s late still answered within 300 ms: the test proves nothing")
		}
	}
	st.assertNoLeftovers(t)
}

// A server that never writes a line fails after the start-up allowance (not
// after it plus full answer timeouts), and the error says so and shows its
// last stderr lines, escaped.
func TestNeverSpokeShowsStderr(t *testing.T) {
	st := newStarter("sh", "-c", `printf 'npm ERR! code ETIMEDOUT\n\033[31mregistry unreachable\n' >&2; exec sleep 60`)
	start := time.Now()
	_, _, err := ProbeWithOptions(ctxTimeout(t, 30*time.Second), st.start, &ClientOptions{Timeout: 200 * time.Millisecond, StartTimeout: time.Second})
	took := time.Since(start)
	st.assertNoLeftovers(t)
	var to *TimeoutError
	if !errors.As(err, &to) {
		t.Fatalf("err %v, want a *TimeoutError", err)
	}
	msg := err.Error()
	for _, want := range []string{"npm ERR! code ETIMEDOUT", `\u001b[31mregistry unreachable`, "written nothing on stdout"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\x1b") {
		t.Errorf("raw ESC in the error: %q", msg)
	}
	if took > 5*time.Second {
		t.Errorf("took %s with a 1 s start allowance and 200 ms answers", took)
	}
}
