package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// viewMount binds a host path (Src) at Dst in the sandbox's filesystem view.
type viewMount struct {
	Src   string `json:"src"`
	Dst   string `json:"dst"`
	Write bool   `json:"write,omitempty"`
	Dev   bool   `json:"dev,omitempty"` // a device node: keeps device access
}

// viewLink is a symlink created in the view.
type viewLink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// initSpec is everything pid 1 of the sandbox needs; Prepare sends it over the
// control socket.
type initSpec struct {
	Exe    string      `json:"exe"`  // the server binary (realpath; same path in the view)
	Argv   []string    `json:"argv"` // the server's argv, as locked
	Env    []string    `json:"env"`  // the server's environment
	Dir    string      `json:"dir"`  // working directory, when visible in the view
	Tmp    string      `json:"tmp"`  // ${TMP}
	Stage  string      `json:"stage"`
	Mounts []viewMount `json:"mounts"`
	Links  []viewLink  `json:"links,omitempty"`
	Egress string      `json:"egress,omitempty"` // host folder holding egress.sock; "" = no network
	Probe  bool        `json:"probe,omitempty"`  // set everything up, start nothing
}

// Runtime base: what every server may read (notes/sandbox.md §4.2).
var (
	baseDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
	baseEtc  = []string{
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ssl", "/etc/pki", "/etc/ca-certificates",
		"/etc/ca-certificates.conf", "/etc/crypto-policies", "/etc/alternatives", "/etc/resolv.conf",
		"/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/localtime", "/etc/timezone",
		"/etc/passwd", "/etc/group", "/etc/mime.types",
	}
	devRW    = []string{"/dev/null", "/dev/zero", "/dev/full"}
	devRO    = []string{"/dev/random", "/dev/urandom"}
	devLinks = []viewLink{{"/dev/fd", "/proc/self/fd"}, {"/dev/stdin", "/proc/self/fd/0"},
		{"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"}}
)

// viewPlan collects the mounts and links of a view.
type viewPlan struct {
	mounts []viewMount
	links  []viewLink
}

// addHost adds a host path at the same place, mirroring a symlink as a symlink
// (and binding its target) so that readlink(2) still works (e.g. /etc/localtime).
func (v *viewPlan) addHost(p string, write bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		real, err2 := filepath.EvalSymlinks(p)
		if err != nil || err2 != nil {
			return
		}
		v.links = append(v.links, viewLink{p, target})
		v.mounts = append(v.mounts, viewMount{Src: real, Dst: real, Write: write})
		return
	}
	v.mounts = append(v.mounts, viewMount{Src: p, Dst: p, Write: write})
}

// planView lists the runtime base, the command's own files and the policy
// paths, dropping mounts that an ancestor mount already provides alike.
func planView(paths []policyPath, exe string, extraRO []string, tmp string, avoid []string) viewPlan {
	var v viewPlan
	for _, d := range baseDirs {
		v.addHost(d, false)
	}
	for _, f := range baseEtc {
		v.addHost(f, false)
	}
	for _, d := range devRW {
		v.mounts = append(v.mounts, viewMount{Src: d, Dst: d, Write: true, Dev: true})
	}
	for _, d := range devRO {
		v.mounts = append(v.mounts, viewMount{Src: d, Dst: d, Dev: true})
	}
	v.links = append(v.links, devLinks...)
	if !v.covers(exe) {
		root := installRoot(exe, avoid)
		v.mounts = append(v.mounts, viewMount{Src: root, Dst: root})
	}
	for _, p := range extraRO {
		v.mounts = append(v.mounts, viewMount{Src: p, Dst: p})
	}
	v.mounts = append(v.mounts, viewMount{Src: tmp, Dst: tmp, Write: true})
	for _, p := range paths {
		v.mounts = append(v.mounts, viewMount{Src: p.Real, Dst: p.Real, Write: p.Write})
		if p.Literal != p.Real {
			v.links = append(v.links, viewLink{p.Literal, p.Real})
		}
	}
	v.mounts = pruneMounts(v.mounts)
	return v
}

// covers reports whether some planned mount already shows p.
func (v *viewPlan) covers(p string) bool {
	for _, m := range v.mounts {
		if within(p, m.Dst) {
			return true
		}
	}
	return false
}

// pruneMounts sorts by destination (parents first), merges duplicates (write
// wins) and drops mounts whose nearest ancestor mount gives the same access.
func pruneMounts(in []viewMount) []viewMount {
	sort.SliceStable(in, func(i, j int) bool { return in[i].Dst < in[j].Dst })
	var out []viewMount
	for _, m := range in {
		if n := len(out); n > 0 && out[n-1].Dst == m.Dst {
			out[n-1].Write = out[n-1].Write || m.Write
			out[n-1].Dev = out[n-1].Dev || m.Dev
			continue
		}
		var parent *viewMount
		for i := len(out) - 1; i >= 0; i-- {
			if within(m.Dst, out[i].Dst) {
				parent = &out[i]
				break
			}
		}
		if parent != nil && parent.Write == m.Write && !m.Dev && !parent.Dev {
			continue
		}
		out = append(out, m)
	}
	return out
}

// buildView runs in pid 1 (new mount namespace, with capabilities): it clones
// every source tree while the host tree is still visible, mounts a tmpfs root
// at s.Stage, attaches the clones (read-only unless write), mounts /proc,
// pivots into it and makes the root read-only. It returns an O_PATH descriptor
// of the egress folder (or -1), through which the forwarder reaches the proxy.
func buildView(s *initSpec) (egressFD int, err error) {
	egressFD = -1
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return -1, &stageError{"make mounts private", err}
	}
	fds := make([]int, len(s.Mounts))
	defer func() {
		for _, fd := range fds {
			if fd > 0 {
				unix.Close(fd)
			}
		}
	}()
	for i, m := range s.Mounts {
		fd, err := unix.OpenTree(unix.AT_FDCWD, m.Src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return -1, &stageError{"clone " + m.Src, err}
		}
		fds[i] = fd
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID}
		if !m.Dev {
			attr.Attr_set |= unix.MOUNT_ATTR_NODEV
		}
		// Device nodes are always read-only mounts: opening them for writing
		// still works (a read-only mount does not stop writes to a device),
		// while chmod, chown and utime of the host's node fail with EROFS,
		// also for a server running as root (issue 12.4).
		if !m.Write || m.Dev {
			attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
		}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return -1, &stageError{"set mount flags of " + m.Src, err}
		}
	}
	if s.Egress != "" {
		egressFD, err = unix.Open(s.Egress, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &stageError{"open the egress folder", err}
		}
	}
	root := s.Stage
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=2m,nr_inodes=8192"); err != nil {
		return -1, &stageError{"mount the tmpfs root", err}
	}
	for i, m := range s.Mounts {
		dst := filepath.Join(root, m.Dst)
		if err := makeMountpoint(dst, m.Src); err != nil {
			return -1, &stageError{"create mountpoint " + m.Dst, err}
		}
		if err := unix.MoveMount(fds[i], "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return -1, &stageError{"attach " + m.Src, err}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o555); err != nil {
		return -1, &stageError{"create /proc", err}
	}
	if err := unix.Mount("proc", filepath.Join(root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return -1, &stageError{"mount /proc", err}
	}
	if err := unix.Chdir(root); err != nil {
		return -1, &stageError{"enter the new root", err}
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return -1, &stageError{"pivot_root", err}
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return -1, &stageError{"detach the old root", err}
	}
	if err := unix.Chdir("/"); err != nil {
		return -1, &stageError{"chdir /", err}
	}
	// Symlinks are made after pivot_root, so that absolute targets resolve in
	// the view and nothing can be created on the host.
	for _, l := range s.Links {
		if _, err := os.Lstat(l.Path); err == nil {
			continue // the host's own entry shows through a bind
		}
		if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
			continue // inside a read-only bind
		}
		_ = os.Symlink(l.Target, l.Path)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return -1, &stageError{"make the root read-only", err}
	}
	return egressFD, nil
}

// makeMountpoint creates an empty folder or file at dst, like src, unless
// something is there already (inside another bind).
func makeMountpoint(dst, src string) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return os.MkdirAll(dst, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// landlockRules derives the Landlock rules from the view: each mount as it is
// mounted, plus the sandbox's own /proc (read only).
func landlockRules(s *initSpec) []llRule {
	rules := []llRule{{path: "/proc", access: llProc}}
	for _, m := range s.Mounts {
		switch {
		case m.Dev && m.Write:
			rules = append(rules, llRule{m.Dst, llDevRW})
		case m.Dev:
			rules = append(rules, llRule{m.Dst, unix.LANDLOCK_ACCESS_FS_READ_FILE})
		case m.Write:
			rules = append(rules, llRule{m.Dst, 0})
		default:
			rules = append(rules, llRule{m.Dst, llRead})
		}
	}
	return rules
}

// stageError is a failed setup step inside the sandbox.
type stageError struct {
	step string
	err  error
}

func (e *stageError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

// isPermission reports EPERM/EACCES: the namespace exists but has no
// capabilities (AppArmor's userns restriction, a container's policy).
func isPermission(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES)
}
