//go:build unix

package launch

import (
	"os/exec"
	"syscall"
)

// detach puts an installer in a process group of its own: a Ctrl-C meant
// for mcpsum does not reach it, and it outlives mcpsum (no parent-death
// signal), so it is never stopped mid-write.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
