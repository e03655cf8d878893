package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// machineCheck is what Prepare learns once per process about the kernel.
type machineCheck struct {
	abi     int
	userns  bool
	seccomp bool
	err     error // the first reason a sandbox cannot start here (*UnavailableError)
	reasons []string
}

var (
	machineOnce  sync.Once
	machineState machineCheck
)

func checkMachine() machineCheck {
	machineOnce.Do(func() { machineState = inspectMachine() })
	return machineState
}

func inspectMachine() machineCheck {
	var m machineCheck
	fail := func(e *UnavailableError) {
		if m.err == nil {
			m.err = e
		}
		m.reasons = append(m.reasons, e.Error())
	}
	if auditArch == 0 {
		fail(&UnavailableError{Reason: "mcpsum has no seccomp filter for " + runtime.GOARCH, Fix: "run mcpsum on amd64 or arm64"})
	}
	abi, err := landlockABI()
	m.abi = abi
	if err != nil || abi < minLandlockABI {
		fail(landlockError(abi, err))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail"); err == nil && strings.Contains(string(b), "errno") {
		m.seccomp = true
	} else {
		fail(&UnavailableError{Reason: "this kernel has no seccomp filters (CONFIG_SECCOMP_FILTER)", Fix: "use a kernel built with seccomp filter support (every major distribution's is)"})
	}
	if e := usernsProblem(); e != nil {
		fail(e)
	} else {
		m.userns = true
	}
	return m
}

// landlockError explains a missing or too old Landlock.
func landlockError(abi int, err error) *UnavailableError {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return &UnavailableError{Reason: "this kernel has no Landlock (CONFIG_SECURITY_LANDLOCK)", Fix: "use Linux >= 6.2 built with Landlock (Ubuntu, Debian, Fedora and Arch kernels are)"}
	case errors.Is(err, unix.EOPNOTSUPP):
		return &UnavailableError{Reason: "Landlock is built into this kernel but not enabled at boot", Fix: `add "landlock" to the lsm= kernel parameter (e.g. lsm=landlock,lockdown,yama,integrity,apparmor,bpf) and reboot`}
	case err != nil:
		return &UnavailableError{Reason: fmt.Sprintf("cannot query Landlock: %v", err), Fix: "use Linux >= 6.2 with Landlock enabled"}
	default:
		return &UnavailableError{Reason: fmt.Sprintf("Landlock ABI %d is too old (mcpsum needs ABI %d, Linux >= 6.2, to stop truncation of read-only files)", abi, minLandlockABI), Fix: "upgrade the kernel to Linux 6.2 or later"}
	}
}

func readSysctl(name string) (string, bool) {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// usernsProblem checks, without starting anything, whether this process may
// create a user namespace that keeps its capabilities.
func usernsProblem() *UnavailableError {
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return &UnavailableError{Reason: "this kernel has no user namespaces (CONFIG_USER_NS)", Fix: "use a kernel built with user namespaces"}
	}
	return usernsSysctls(os.Geteuid(), readSysctl, apparmorLabel(), selfPath())
}

// usernsSysctls applies the sysctls that disable or restrict user namespaces.
// label is this process's AppArmor label ("" when unknown).
func usernsSysctls(euid int, sysctl func(string) (string, bool), label, exe string) *UnavailableError {
	if v, ok := sysctl("user/max_user_namespaces"); ok && v == "0" {
		return &UnavailableError{Reason: "user namespaces are disabled (user.max_user_namespaces=0)",
			Fix: "sudo sysctl -w user.max_user_namespaces=15000 (and keep it in /etc/sysctl.d/)"}
	}
	if euid == 0 {
		return nil
	}
	if v, ok := sysctl("kernel/unprivileged_userns_clone"); ok && v == "0" {
		return &UnavailableError{Reason: "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)",
			Fix: "sudo sysctl -w kernel.unprivileged_userns_clone=1 (and keep it in /etc/sysctl.d/)"}
	}
	// Under Ubuntu's restriction an unconfined process gets a namespace
	// without capabilities; a profile granting "userns," shows its own label.
	if v, ok := sysctl("kernel/apparmor_restrict_unprivileged_userns"); ok && v == "1" && (label == "" || label == "unconfined") {
		return &UnavailableError{Reason: "AppArmor restricts unprivileged user namespaces on this system (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu >= 23.10) and no AppArmor profile grants them to mcpsum",
			Fix: apparmorFix(exe)}
	}
	return nil
}

// apparmorLabel is this process's AppArmor confinement ("" when unknown).
func apparmorLabel() string {
	for _, p := range []string{"/proc/self/attr/apparmor/current", "/proc/self/attr/current"} {
		if b, err := os.ReadFile(p); err == nil {
			return strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
		}
	}
	return ""
}

// apparmorFix is the one-time step for Ubuntu >= 23.10 (README, "Sandbox").
func apparmorFix(exe string) string {
	return "as root, create /etc/apparmor.d/mcpsum containing\n" +
		"  abi <abi/4.0>,\n" +
		"  include <tunables/global>\n" +
		"  profile mcpsum " + exe + " flags=(unconfined) {\n" +
		"    userns,\n" +
		"    include if exists <local/mcpsum>\n" +
		"  }\n" +
		"then run: sudo apparmor_parser -r /etc/apparmor.d/mcpsum\n" +
		"(the path must be mcpsum's real path; prefer a root-owned install such as /usr/local/bin/mcpsum)"
}

// setupError turns a failed setup step in pid 1 into the error the user sees:
// a namespace without capabilities is the AppArmor (or container) case.
func setupError(err error) error {
	var se *stageError
	if !errors.As(err, &se) || !isPermission(se.err) {
		return err
	}
	switch se.step {
	case "bring up loopback", "set the host name", "make mounts private", "mount the tmpfs root":
	case "mount /proc":
		return &UnavailableError{Reason: fmt.Sprintf("the sandbox cannot mount its own /proc (%v); a container masking /proc does this", err),
			Fix: "run mcpsum outside the container, or in one that does not mask /proc"}
	default:
		return err
	}
	if _, ok := readSysctl("kernel/apparmor_restrict_unprivileged_userns"); ok {
		return &UnavailableError{Reason: fmt.Sprintf("the sandbox's user namespace has no capabilities (%v): AppArmor restricts unprivileged user namespaces (Ubuntu >= 23.10)", err),
			Fix: apparmorFix(selfPath())}
	}
	return &UnavailableError{Reason: fmt.Sprintf("the sandbox's user namespace has no capabilities (%v)", err),
		Fix: "run mcpsum where unprivileged user namespaces may mount and configure their own network (not inside a container whose seccomp or LSM policy forbids it)"}
}

func selfPath() string {
	exe, err := os.Executable()
	if err != nil {
		return "/usr/local/bin/mcpsum"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		return real
	}
	return exe
}
