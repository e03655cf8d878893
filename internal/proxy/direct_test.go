package proxy

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
)

// directDown is a downstream whose client lines reach the core through
// take (proxy.Direct), as serve's HTTP handlers hand theirs; Messages
// carries only the client's end.
type directDown struct {
	in   *io.PipeReader
	out  *io.PipeWriter
	take chan func([]byte) error
}

func (d *directDown) Messages() io.Reader                 { return d.in }
func (d *directDown) Out() io.Writer                      { return d.out }
func (d *directDown) Direct(take func(line []byte) error) { d.take <- take }

// A Direct downstream's lines are handled on the caller's goroutine, as
// lines read from Messages are: answered in turn; a line over the limit is
// refused without being handled (the caller writes it into Messages, where
// the core ends the session for it as for any line too long); once
// Messages ended, take refuses every later line.
func TestDirectDownstream(t *testing.T) {
	t.Parallel()
	e := lockServer(t, legacyOnly)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := &directDown{in: inR, out: outW, take: make(chan func([]byte) error, 1)}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), d, Options{Name: "t", Lockfile: "mcp.lock", Entry: e, Pin: launch.Options{Timeout: 10 * time.Second, MaxLine: 4096}, Grace: time.Second})
		outW.Close()
	}()
	take := <-d.take
	got := make(chan string, 64)
	go func() {
		lines := mcpwire.NewLineReader(outR, 0)
		for {
			l, err := lines.Next()
			if err != nil {
				close(got)
				return
			}
			got <- string(l)
		}
	}()
	next := func() string {
		select {
		case l := <-got:
			return l
		case <-time.After(30 * time.Second):
			t.Fatal("no line from the core within 30 s")
		}
		return ""
	}
	if err := take([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"d","version":"1"}}}`)); err != nil {
		t.Fatal(err)
	}
	if l := next(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Fatalf("initialize: %s", l)
	}
	take([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	long := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 5000) + `"}}}`
	var tooLong *mcpwire.LineTooLongError
	if err := take([]byte(long)); !errors.As(err, &tooLong) {
		t.Fatalf("a line over the limit: %v, want a *LineTooLongError", err)
	}
	if err := take([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`)); err != nil {
		t.Fatal(err)
	}
	if l := next(); !strings.Contains(l, `"id":3,"result":`) || !strings.Contains(l, "after") {
		t.Fatalf("the call after the refused line: %s", l)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if err := take([]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)); !errors.Is(err, ErrInputEnded) {
		t.Fatalf("a line after the client's end: %v, want ErrInputEnded", err)
	}
}
