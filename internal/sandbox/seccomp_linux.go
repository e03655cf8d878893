//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccomp_data offsets (include/uapi/linux/seccomp.h). Arguments are read as
// their low 32 bits, which is all the kernel uses for int and unsigned int
// arguments, so high bits cannot smuggle a value past a check (little endian).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retNoSys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retNoAF  = unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)
)

// newNamespaceFlags are the clone flags that create namespaces.
const newNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// deniedSyscalls fail with EPERM: tracing other processes, namespaces and
// mounts, kernel keyrings, BPF, perf, userfaultfd, file handles, modules.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_OPEN_BY_HANDLE_AT,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
}

// enosysSyscalls fail with ENOSYS so that libraries fall back: clone3 (whose
// flags live in memory a filter cannot read; libc falls back to clone) and
// io_uring (whose operations bypass this filter).
var enosysSyscalls = []uint32{
	unix.SYS_CLONE3, unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
}

// seccompProgram is mcpsum's own filter: a default-allow blocklist that checks
// the architecture first, so no foreign-ABI syscall (i386 int $0x80, x32) can
// reach the default action.
func seccompProgram() []bpf.Instruction {
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		bpf.RetConstant{Val: retNoSys},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if x32Bit != 0 {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: retNoSys})
	}
	for _, nr := range deniedSyscalls {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, bpf.RetConstant{Val: retEPERM})
	}
	for _, nr := range enosysSyscalls {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, bpf.RetConstant{Val: retNoSys})
	}
	// socket: an allow-list of address families (issue 12.3: AF_VSOCK and
	// every family the sandbox does not need are refused). AF_INET and
	// AF_INET6 (not MPTCP) for loopback and the egress forwarder; AF_NETLINK
	// with NETLINK_ROUTE only (getifaddrs, libuv's interface list; it sees the
	// sandbox's own network namespace). AF_UNIX: EPERM (a new unix socket could
	// reach a host socket through a bound folder); any other family:
	// EAFNOSUPPORT, so libraries fall back as on a kernel without it.
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 15},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_NETLINK, SkipTrue: 5},
		bpf.RetConstant{Val: retNoAF},
		bpf.LoadAbsolute{Off: offArg2, Size: 4}, // AF_INET, AF_INET6
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_MPTCP, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
		bpf.LoadAbsolute{Off: offArg2, Size: 4}, // AF_NETLINK
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.NETLINK_ROUTE, SkipFalse: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retNoAF},
	)
	// socketpair: AF_UNIX only (a connected pair, nothing outside reachable).
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKETPAIR, SkipFalse: 4},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retNoAF},
	)
	// clone with any CLONE_NEW* flag: EPERM.
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 4},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: newNamespaceFlags, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	)
	// ioctl TIOCSTI / TIOCLINUX (typing into a terminal): EPERM.
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IOCTL, SkipFalse: 6},
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	)
	return append(p, bpf.RetConstant{Val: retAllow})
}

// installSeccomp loads the filter on the calling thread only (no TSYNC): the
// caller forks the server from this locked thread. no_new_privs must be set.
func installSeccomp() error {
	if auditArch == 0 {
		return fmt.Errorf("no seccomp filter for this architecture")
	}
	raw, err := bpf.Assemble(seccompProgram())
	if err != nil {
		return fmt.Errorf("assemble seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER): %w", errno)
	}
	return nil
}
