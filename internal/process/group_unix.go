//go:build unix

package process

import "syscall"

// procAttr copies the caller's attributes and puts the child in a new process
// group: Setpgid, or the caller's Setsid (a new session is a new group too;
// setpgid would fail after it).
func procAttr(in *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if in != nil {
		*a = *in
	}
	if !a.Setsid {
		a.Setpgid, a.Pgid = true, 0
	}
	setPdeathsig(a)
	return a
}

// signalGroup signals the child's whole process group.
func (p *Process) signalGroup(sig syscall.Signal) {
	if err := syscall.Kill(-p.pgid, sig); err != nil {
		p.cmd.Process.Signal(sig) // group gone or not ours: at least the child
	}
}
