package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Prepare validates cfg for the server command argv (with environment env) and
// returns the Launch that runs it confined. It fails closed: a policy it cannot
// enforce here is an error (*PolicyError, *UnavailableError).
func Prepare(cfg Config, argv, env []string) (*Launch, error) {
	return prepare(cfg, argv, env, false)
}

func prepare(cfg Config, argv, env []string, probe bool) (*Launch, error) {
	if err := refuseLauncher(argv); err != nil {
		return nil, err
	}
	if cfg.NoNetwork && len(cfg.NetworkAllow) > 0 {
		return nil, &PolicyError{Field: "network.allow", Reason: "no network was asked for, yet hosts are listed"}
	}
	rules, err := parseAllow(cfg.NetworkAllow)
	if err != nil {
		return nil, err
	}
	proxied := len(rules.rules) > 0
	if proxied && cfg.AuditLog == "" {
		return nil, errors.New("sandbox: a network allowlist needs an audit log for the egress proxy (Config.AuditLog)")
	}
	if m := checkMachine(); m.err != nil {
		return nil, m.err
	}
	home, _ := os.UserHomeDir()
	dir := cfg.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	exe, err := lookPath(argv[0], env, dir)
	if err != nil {
		return nil, err
	}
	runDir, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	sweepStale(runDir)
	launchDir, err := os.MkdirTemp(runDir, "sbx-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: create a private folder in %s: %w", runDir, err)
	}
	l := &launch{dir: launchDir, ready: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			l.close()
		}
	}()
	tmp := filepath.Join(launchDir, "tmp")
	stage := filepath.Join(launchDir, "root")
	for _, d := range []string{tmp, stage} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	penv := pathEnv{Home: home, Tmp: tmp, RunDir: runDir}
	paths, warnings, err := validatePaths(cfg, penv, append(protectList(cfg.Protected, home, selfPath(), runDir), sealList(cfg.Sealed)...))
	if err != nil {
		return nil, err
	}
	avoid := []string{home, runDir, os.TempDir()}
	var extra []string
	if root, ok := scriptRoot(argv, dir, avoid); ok {
		extra = append(extra, root)
	}
	plan := planView(paths, exe, extra, tmp, avoid)

	serverEnv := setEnv(env, "TMPDIR", tmp)
	spec := initSpec{Exe: exe, Argv: argv, Dir: dir, Tmp: tmp, Stage: stage, Mounts: plan.mounts, Links: plan.links, Probe: probe}
	if proxied {
		egressDir := filepath.Join(launchDir, "egress")
		if len(egressDir) > 90 { // sun_path holds 108 bytes
			return nil, hint.Errorf("set XDG_RUNTIME_DIR or TMPDIR to a shorter folder",
				"sandbox: the runtime folder %s is too long a path for the egress proxy's unix socket", runDir)
		}
		if err := os.Mkdir(egressDir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if l.audit, err = openAudit(cfg.AuditLog); err != nil {
			return nil, err
		}
		if l.egress, err = startEgress(filepath.Join(egressDir, "egress.sock"), rules, l.audit, cfg.Name); err != nil {
			return nil, err
		}
		spec.Egress = egressDir
		proxy := "http://127.0.0.1:" + strconv.Itoa(proxyPort)
		serverEnv = setEnv(serverEnv,
			"HTTPS_PROXY", proxy, "https_proxy", proxy, "HTTP_PROXY", proxy, "http_proxy", proxy,
			"ALL_PROXY", proxy, "all_proxy", proxy, "NO_PROXY", "", "no_proxy", "", "NODE_USE_ENV_PROXY", "1")
	}
	spec.Env = serverEnv
	if err := l.connect(&spec); err != nil {
		return nil, err
	}
	ok = true
	return &Launch{
		Argv:        []string{"/proc/self/exe", initArg},
		Env:         []string{"MCPSUM_SANDBOX=" + cfg.Name},
		ExtraFiles:  []*os.File{l.child},
		SysProcAttr: sysProcAttr(),
		Ready:       l.wait,
		Close:       l.close,
		Warnings:    warnings,
		TmpDir:      tmp,
	}, nil
}

// sysProcAttr starts pid 1 in new namespaces, as the same uid and gid, with
// the capabilities it needs inside them (mounts, loopback, dropping the rest).
func sysProcAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
			unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP},
		Pdeathsig:                  syscall.SIGKILL,
	}
}

// launch is the parent's side of one sandbox.
type launch struct {
	dir    string
	audit  *auditLog
	egress *egressProxy
	parent *os.File // our end of the control socket
	child  *os.File // pid 1's end, fd 3 there

	mu       sync.Mutex
	ready    chan struct{}
	readyErr error
	closed   bool
}

// connect makes the control socket and queues the spec on it for pid 1.
func (l *launch) connect(spec *initSpec) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: control socket: %w", err)
	}
	// Non-blocking, so that the runtime poller owns it and Close interrupts
	// the pending read (a blocking file would only close after that read).
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return fmt.Errorf("sandbox: control socket: %w", err)
	}
	l.parent = os.NewFile(uintptr(fds[0]), "sandbox-control")
	l.child = os.NewFile(uintptr(fds[1]), "sandbox-control-child")
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if len(b) > 128<<10 {
		return &PolicyError{Field: "filesystem", Reason: "the sandbox policy is too large (over 128 KiB)"}
	}
	if _, err := l.parent.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("sandbox: send the policy: %w", err)
	}
	go l.read()
	return nil
}

// read follows pid 1's reports: "started" (we drop our copy of its end, so
// that its exit shows as end-of-file), then "ok" or "error".
func (l *launch) read() {
	br := bufio.NewReader(l.parent)
	first := true
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			l.settle(errors.New("sandbox: pid 1 exited during setup (see the server's stderr)"))
			return
		}
		if first {
			first = false
			l.mu.Lock()
			if l.child != nil {
				l.child.Close()
				l.child = nil
			}
			l.mu.Unlock()
		}
		var m ctlMsg
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.State {
		case "ok":
			l.settle(nil)
		case "error":
			if m.Unavailable {
				l.settle(&UnavailableError{Reason: m.Reason, Fix: m.Fix})
			} else {
				l.settle(errors.New("sandbox: " + m.Reason))
			}
		}
	}
}

func (l *launch) settle(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.ready:
	default:
		l.readyErr = err
		close(l.ready)
	}
}

// readyTimeout bounds Ready when pid 1 never reports (e.g. it was never
// started); a working setup takes milliseconds.
const readyTimeout = time.Minute

func (l *launch) wait() error {
	select {
	case <-l.ready:
	case <-time.After(readyTimeout):
		return errors.New("sandbox: pid 1 did not report its setup within a minute (was the Launch started?)")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.readyErr
}

func (l *launch) close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	for _, f := range []*os.File{l.parent, l.child} {
		if f != nil {
			f.Close() // pid 1 sees end-of-file and ends the sandbox
		}
	}
	l.child = nil
	l.mu.Unlock()
	l.settle(errors.New("sandbox: launch closed"))
	var errs []error
	if l.egress != nil {
		errs = append(errs, l.egress.Close())
	}
	errs = append(errs, l.audit.Close(), removeAll(l.dir))
	return errors.Join(errs...)
}

// runtimeDir is a private folder for the sandboxes of this user:
// $XDG_RUNTIME_DIR/mcpsum, else $TMPDIR/mcpsum-UID.
func runtimeDir() (string, error) {
	uid := os.Geteuid()
	dir := filepath.Join(os.TempDir(), "mcpsum-"+strconv.Itoa(uid))
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		if fi, err := os.Stat(x); err == nil && fi.IsDir() {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				dir = filepath.Join(x, "mcpsum")
			}
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("sandbox: create runtime folder %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: runtime folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm()&0o077 != 0 {
		return "", hint.Errorf("remove it and try again", "sandbox: runtime folder %s is not a private folder owned by you (mode 0700)", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: runtime folder: %w", err)
	}
	return real, nil
}

// sweepStale removes launch folders left by mcpsum processes that died
// without closing them (their pid is in the name).
func sweepStale(runDir string) {
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "sbx-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			_ = removeAll(filepath.Join(runDir, e.Name()))
		}
	}
}
