package logtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd's process when the thread that
// starts it ends (with the test process, or its goroutine's locked thread).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
