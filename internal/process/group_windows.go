package process

import "syscall"

// Windows has no process groups to signal: mcpsum ends the child only (no
// SIGTERM step; both steps kill it). Grandchildren are not tracked.

func procAttr(in *syscall.SysProcAttr) *syscall.SysProcAttr { return in }

func (p *Process) signalGroup(syscall.Signal) { p.cmd.Process.Kill() }

// GroupAlive is false: there is no group to probe.
func GroupAlive(int) bool { return false }
