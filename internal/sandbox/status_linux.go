package sandbox

import (
	"bytes"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/process"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Status reports the confinement a sandboxed server gets on this machine. When
// the kernel checks pass it starts a real sandbox (no server) to prove it.
func Status() Report {
	m := inspectMachine()
	r := Report{OS: runtime.GOOS, Arch: runtime.GOARCH, Backend: "none", LandlockABI: m.abi,
		UserNS: m.userns, Seccomp: m.seccomp, Reasons: m.reasons}
	if m.err != nil {
		return r
	}
	start := time.Now()
	if err := probe(); err != nil {
		r.Probe = "failed: " + err.Error()
		r.Reasons = append(r.Reasons, "a test sandbox did not start: "+err.Error())
		return r
	}
	r.Available = true
	r.Backend = "namespaces+landlock+seccomp"
	r.Probe = fmt.Sprintf("ok (a test sandbox started in %d ms)", time.Since(start).Milliseconds())
	r.Reasons = append(r.Reasons,
		"namespaces: user, mount, network, pid, ipc, uts, cgroup; filesystem view of the runtime base and policy paths",
		fmt.Sprintf("landlock ABI %d enforced (canary checked); capabilities dropped; no_new_privs; seccomp filter (%d syscalls blocked, unix sockets refused)",
			m.abi, len(deniedSyscalls)+len(enosysSyscalls)))
	return r
}

// probe starts pid 1 with an empty policy in probe mode: everything is set up
// and confined, nothing is executed.
func probe() error {
	l, err := prepare(Config{Name: "probe"}, []string{selfPath()}, nil, true)
	if err != nil {
		return err
	}
	defer l.Close()
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env = l.Env
	cmd.ExtraFiles = l.ExtraFiles
	cmd.SysProcAttr = l.SysProcAttr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	process.Settle() // no child before the guard is up
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	werr := cmd.Wait()
	timer.Stop()
	if rerr := l.Ready(); rerr != nil {
		tail := strings.TrimSpace(stderr.String())
		if strings.Contains(tail, initArg) {
			rerr = fmt.Errorf("%w (this binary does not run sandbox.Helper first in main)", rerr)
		}
		return rerr
	}
	if werr != nil {
		return fmt.Errorf("test sandbox: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}
