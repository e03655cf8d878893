// Package procstat reads a Linux /proc/PID/stat line, the one parser of it
// that mcpsum's process supervision (pkg/mcpwire) and session liveness
// (pkg/policy) share. The command name (field 2) may hold spaces and
// parentheses, so the fields are counted from the last ')'.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package procstat

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Stat holds the fields of a stat line, numbered as in proc(5): Field(3) is
// the state, Field(4) the parent pid, Field(5) the process group.
type Stat struct{ after []string }

// ErrMalformed is returned for a line without the command's closing ')'.
var ErrMalformed = errors.New("malformed /proc stat line")

// Parse splits a stat line.
func Parse(line string) (Stat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return Stat{}, ErrMalformed
	}
	return Stat{strings.Fields(line[i+1:])}, nil
}

// Read reads and splits /proc/PID/stat; pid is a number or "self".
func Read(pid string) (Stat, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return Parse(string(b))
}

// Field returns field n (n >= 3), "" when the line is shorter.
func (s Stat) Field(n int) string {
	if n < 3 || n-3 >= len(s.after) {
		return ""
	}
	return s.after[n-3]
}

// Uint returns field n as an unsigned number.
func (s Stat) Uint(n int) (uint64, error) {
	f := s.Field(n)
	if f == "" {
		return 0, ErrMalformed
	}
	return strconv.ParseUint(f, 10, 64)
}
