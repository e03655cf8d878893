package process

// Reading /proc/PID/stat (Linux), the one parser of it in mcpsum: process
// supervision here (group liveness, a subreaper's children, the environment
// block) and session liveness in internal/policy. The command name (field 2) may
// hold spaces and parentheses, so the fields are counted from the last ')'.

import (
	"errors"
	"strconv"
	"strings"
)

// Stat holds the fields of a stat line, numbered as in proc(5): Field(3) is
// the state, Field(4) the parent pid, Field(5) the process group.
type Stat struct{ after []string }

// ErrMalformedStat is returned for a line without the command's closing ')'.
var ErrMalformedStat = errors.New("malformed /proc stat line")

// ParseStat splits a stat line.
func ParseStat(line string) (Stat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return Stat{}, ErrMalformedStat
	}
	return Stat{strings.Fields(line[i+1:])}, nil
}

// ReadStat reads and splits /proc/PID/stat; pid is a number or "self".
func ReadStat(pid string) (Stat, error) {
	b, err := readProcFile("/proc/" + pid + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(string(b))
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
		return 0, ErrMalformedStat
	}
	return strconv.ParseUint(f, 10, 64)
}
