//go:build unix

package mcpwire

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

func TestStdioLongLines(t *testing.T) {
	// The real pipe path: a line far over 64 KiB and one over a small max.
	s, err := startStdio(process.Spec{Argv: []string{"sh", "-c", `head -c 300000 /dev/zero | tr '\0' a; echo; echo ok`}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for {
		l, err := s.ReadMessage()
		if err != nil {
			break
		}
		lines = append(lines, string(l))
	}
	if err := s.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, s.Process())
	if len(lines) != 2 || len(lines[0]) != 300000 || lines[1] != "ok" {
		t.Fatalf("got %d lines", len(lines))
	}
	p, err := process.Start(process.Spec{Argv: []string{"sh", "-c", `head -c 3000 /dev/zero | tr '\0' a; echo`}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	s = NewStdio(p, 1000)
	if _, err := s.ReadMessage(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v", err)
	}
	p.Stop(time.Second)
	assertGroupGone(t, p)
}
