package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mcpsum's own Landlock calls (not go-landlock: its best-effort mode can turn
// into no restriction at all, and its all-threads enforcement is not needed:
// the rules are applied to one locked thread that then forks the server).

type llRulesetAttr struct{ fs, net, scoped uint64 }

type llNetPortAttr struct{ allowed, port uint64 }

const llRuleNetPort = 2

// minLandlockABI is the lowest ABI mcpsum accepts: ABI 3 is the first that can
// refuse truncate(2) of read-only files.
const minLandlockABI = 3

const (
	llRead     = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFileMask = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llDevRW = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llProc  = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
)

// landlockABI asks the kernel which Landlock ABI it implements.
func landlockABI() (int, error) {
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// llHandledFS is every filesystem right the ABI knows.
func llHandledFS(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 9 {
		r |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return r
}

// llRule grants access beneath one path of the view.
type llRule struct {
	path   string
	access uint64 // 0 means "everything handled except device ioctls"
}

// landlockRestrict enforces the rules on the calling thread.
func landlockRestrict(abi int, rules []llRule, connectPorts []uint16) error {
	handled := llHandledFS(abi)
	attr := llRulesetAttr{fs: handled}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		attr.net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // not BIND: the server may listen on its own loopback
		size += unsafe.Sizeof(attr.net)
	}
	if abi >= 6 {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size += unsafe.Sizeof(attr.scoped)
	}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	rfd := int(r)
	defer unix.Close(rfd)
	for _, rule := range rules {
		access := rule.access
		if access == 0 {
			access = handled &^ unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		}
		pfd, err := unix.Open(rule.path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("landlock rule %s: %w", rule.path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			unix.Close(pfd)
			return fmt.Errorf("landlock rule %s: %w", rule.path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= llFileMask
		}
		pb := unix.LandlockPathBeneathAttr{Allowed_access: access & handled, Parent_fd: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		unix.Close(pfd)
		if errno != 0 {
			return fmt.Errorf("landlock rule %s: %w", rule.path, errno)
		}
	}
	if abi >= 4 {
		for _, port := range connectPorts {
			np := llNetPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
			_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), llRuleNetPort, uintptr(unsafe.Pointer(&np)), 0, 0, 0)
			if errno != 0 {
				return fmt.Errorf("landlock port rule %d: %w", port, errno)
			}
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// Secure bits (include/uapi/linux/securebits.h).
const (
	secNoRoot                 = 1 << 0
	secNoRootLocked           = 1 << 1
	secNoSetuidFixup          = 1 << 2
	secNoSetuidFixupLocked    = 1 << 3
	secKeepCapsLocked         = 1 << 5
	secNoCapAmbientRaise      = 1 << 6
	secNoCapAmbientRaiseLockd = 1 << 7
)

// confineThread turns the calling (locked) thread into the server's jail: no
// capabilities and no way back to them, no_new_privs, Landlock checked by a
// canary, then the seccomp filter. Everything forked from it inherits this.
func confineThread(abi int, rules []llRule, connectPorts []uint16) error {
	bits := secNoRoot | secNoRootLocked | secNoSetuidFixup | secNoSetuidFixupLocked | secKeepCapsLocked |
		secNoCapAmbientRaise | secNoCapAmbientRaiseLockd
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("set securebits: %w", err)
	}
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil || data[0] != (unix.CapUserData{}) || data[1] != (unix.CapUserData{}) {
		return fmt.Errorf("capabilities still present after dropping them (%v)", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := landlockRestrict(abi, rules, connectPorts); err != nil {
		return err
	}
	// Canary: the view's root has no rule, so listing it must be refused.
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		return errors.New("landlock canary: reading / is still allowed after restricting; refusing to start the server")
	}
	if !errors.Is(err, unix.EACCES) {
		return fmt.Errorf("landlock canary: reading / failed with %v instead of EACCES; refusing to start the server", err)
	}
	return installSeccomp()
}
