package lockfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
)

// The advice names the file and server the way a POSIX shell reads them
// literally: a server name from a cloned lockfile must not become a command
// substitution when the user pastes the suggested line.
func TestAdviceShellQuotesServerName(t *testing.T) {
	const name = `a"$(touch pwned)"`
	for _, err := range []error{
		&IntegrityError{File: "my locks/mcp.lock", Server: name, Kind: "surface", Locked: "sha256:0", Computed: "sha256:1"},
		&FormatError{File: "my locks/mcp.lock", Server: name, Err: errors.New("bad")},
	} {
		msg := hint.Lines(err, "")
		if !strings.Contains(msg, `--lockfile 'my locks/mcp.lock' --name 'a"$(touch pwned)"' -- COMMAND`) {
			t.Errorf("advice does not single-quote the file and name: %s", msg)
		}
	}
	e := &IntegrityError{File: "mcp.lock", Server: "x\x1b[2Jy", Kind: "surface"}
	if msg := hint.Lines(e, ""); !strings.Contains(msg, `--name $'x\u001b[2Jy'`) {
		t.Errorf("a control character is not escaped in the advice: %q", msg)
	}
}
