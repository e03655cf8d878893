package process

import (
	"os"
	"strconv"
	"testing"
)

// A command name with spaces and parentheses does not shift the fields.
func TestParseHostileCommandName(t *testing.T) {
	s, err := ParseStat("123 (a) b) c) S 1 77 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4242 20")
	if err != nil {
		t.Fatal(err)
	}
	if s.Field(3) != "S" || s.Field(5) != "77" {
		t.Fatalf("state %q, pgrp %q", s.Field(3), s.Field(5))
	}
	if v, err := s.Uint(22); err != nil || v != 4242 {
		t.Fatalf("starttime %d %v", v, err)
	}
	if _, err := s.Uint(60); err == nil {
		t.Fatal("a missing field read as a number")
	}
	if _, err := ParseStat("123 no paren S 1"); err == nil {
		t.Fatal("a line without ')' parsed")
	}
}

// The running test's own line names its parent.
func TestReadSelf(t *testing.T) {
	s, err := ReadStat("self")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	if s.Field(4) != strconv.Itoa(os.Getppid()) {
		t.Fatalf("ppid %q, want %d", s.Field(4), os.Getppid())
	}
}
