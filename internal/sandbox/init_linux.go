package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// initArg is the hidden first argument of the sandbox's pid 1.
const initArg = "__sbx-init"

// proxyPort is where the forwarder listens inside the sandbox (127.0.0.1).
const proxyPort = 3128

// ctlFD is the control socket: the spec comes in, the setup outcome goes out,
// and its end-of-file tells pid 1 that mcpsum is gone or closed the launch.
const ctlFD = 3

// ctlMsg is one line pid 1 sends to Prepare's reader.
type ctlMsg struct {
	State       string `json:"state"` // "started", "ok" or "error"
	Reason      string `json:"reason,omitempty"`
	Fix         string `json:"fix,omitempty"`
	Unavailable bool   `json:"unavailable,omitempty"`
}

// Helper runs the sandbox's hidden stage when args (os.Args[1:]) ask for it.
// cmd/mcpsum/main.go calls it before anything else and exits with code when
// handled is true.
func Helper(args []string) (handled bool, code int) {
	if len(args) == 0 || args[0] != initArg {
		return false, 0
	}
	return true, runInit()
}

func runInit() int {
	ctl := os.NewFile(ctlFD, "mcpsum-sandbox-control")
	var st unix.Stat_t
	if ctl == nil || unix.Fstat(ctlFD, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		fmt.Fprintln(os.Stderr, "mcpsum: "+initArg+" is an internal stage of the sandbox, not a command")
		return 2
	}
	unix.CloseOnExec(ctlFD)
	// Not dumpable: the server (same uid) may not open /proc/1/fd, /proc/1/mem
	// or /proc/1/root, which lead out of the view (the egress folder).
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	send := func(m ctlMsg) {
		b := []byte(`{"state":"` + m.State + `"}`) // no reflection on the fast path
		if m.State == "error" {
			b, _ = json.Marshal(m)
		}
		_, _ = ctl.Write(append(b, '\n'))
	}
	fail := func(err error) int {
		m := ctlMsg{State: "error", Reason: err.Error()}
		var ue *UnavailableError
		if errors.As(err, &ue) {
			m.Reason, m.Fix, m.Unavailable = ue.Reason, ue.Fix, true
		}
		send(m)
		fmt.Fprintf(os.Stderr, "mcpsum sandbox: %v\n", err)
		return 125
	}
	send(ctlMsg{State: "started"})
	br := bufio.NewReader(ctl)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return fail(fmt.Errorf("read the sandbox spec: %w", err))
	}
	var spec initSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		return fail(fmt.Errorf("decode the sandbox spec: %w", err))
	}
	if os.Getpid() != 1 {
		return fail(errors.New("not pid 1 of a new pid namespace"))
	}
	abi, err := landlockABI()
	if err != nil || abi < minLandlockABI {
		return fail(landlockError(abi, err))
	}
	if err := loopbackUp(); err != nil {
		return fail(setupError(&stageError{"bring up loopback", err}))
	}
	if err := unix.Sethostname([]byte("sandbox")); err != nil {
		return fail(setupError(&stageError{"set the host name", err}))
	}
	egressFD, err := buildView(&spec)
	if err != nil {
		return fail(setupError(err))
	}
	if spec.Dir == "" || unix.Chdir(spec.Dir) != nil {
		if err := unix.Chdir(spec.Tmp); err != nil {
			return fail(fmt.Errorf("enter ${TMP}: %w", err))
		}
	}
	var ports []uint16
	if egressFD >= 0 {
		if err := startForwarder(egressFD); err != nil {
			return fail(err)
		}
		ports = []uint16{proxyPort}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2)
	cut := make(chan struct{})
	go func() { // lifeline: mcpsum closed the launch or died
		for {
			if _, err := br.ReadByte(); err != nil {
				close(cut)
				return
			}
		}
	}()
	type started struct {
		pid int
		err error
	}
	res := make(chan started, 1)
	rules := landlockRules(&spec)
	go func() {
		// This thread becomes the jail and is never unlocked: the runtime
		// ends it with this goroutine, and never clones it for other work.
		runtime.LockOSThread()
		if err := confineThread(abi, rules, ports); err != nil {
			res <- started{err: err}
			return
		}
		if spec.Probe {
			res <- started{}
			return
		}
		pid, err := syscall.ForkExec(spec.Exe, spec.Argv, &syscall.ProcAttr{
			Env: spec.Env, Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Setsid: true},
		})
		if err != nil {
			err = fmt.Errorf("cannot start %q inside the sandbox: %w", spec.Exe, err)
		}
		res <- started{pid, err}
	}()
	r := <-res
	if r.err != nil {
		return fail(r.err)
	}
	send(ctlMsg{State: "ok"})
	if spec.Probe {
		return 0
	}
	if null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		_ = unix.Dup3(null, 0, 0) // pid 1 keeps nothing of the MCP pipes
		_ = unix.Dup3(null, 1, 0)
		unix.Close(null)
	}
	return reap(r.pid, sigs, cut)
}

// reap waits for every process of the sandbox, forwards signals to the
// server's process group and returns the server's exit status (128+signal when
// killed). When pid 1 returns, the kernel kills whatever is left.
func reap(server int, sigs <-chan os.Signal, cut <-chan struct{}) int {
	done := make(chan int, 1)
	go func() {
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				done <- 125
				return
			}
			if pid != server {
				continue
			}
			switch {
			case ws.Exited():
				done <- ws.ExitStatus()
			case ws.Signaled():
				done <- 128 + int(ws.Signal())
			default:
				continue
			}
			return
		}
	}()
	for {
		select {
		case code := <-done:
			return code
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if unix.Kill(-server, sig) != nil {
				_ = unix.Kill(server, sig)
			}
		case <-cut:
			return 128 + int(unix.SIGKILL)
		}
	}
}

// loopbackUp sets IFF_UP on lo in the new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// startForwarder bridges 127.0.0.1:3128 in the sandbox to the egress proxy's
// unix socket outside it, reached through the folder descriptor kept across
// pivot_root.
func startForwarder(dirFD int) error {
	ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", proxyPort))
	if err != nil {
		return fmt.Errorf("start the egress forwarder: %w", err)
	}
	sock := fmt.Sprintf("/proc/self/fd/%d/egress.sock", dirFD)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("unix", sock)
				if err != nil {
					fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\nmcpsum sandbox: the egress proxy is gone\n")
					return
				}
				defer u.Close()
				splice(c, c, u)
			}()
		}
	}()
	return nil
}
