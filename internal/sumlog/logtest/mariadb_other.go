//go:build !linux

package logtest

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal: a
// test process that dies before its cleanup leaves the server running.
func dieWithParent(*exec.Cmd) {}
