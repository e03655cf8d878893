package sandbox

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Helper programs: this test binary re-executed inside a sandbox (probeArg),
// or as a short-lived parent of a sandbox (parentArg).
const (
	probeArg  = "__sbx-test-probe"
	parentArg = "__sbx-test-parent"
)

// probeConfig tells the probe program what to try (env SBX_PROBE).
type probeConfig struct {
	Secret, ReadFile, ReadDir, WriteDir, Outside, Home string
	DirectAddr                                         string // a host loopback server, dialled directly
	Allowed, Unlisted, LocalhostName, MetadataName     string // CONNECT targets through HTTPS_PROXY
	TLSURL, CAFile                                     string
}

// runTestProgram runs a helper program when this binary was started as one.
func runTestProgram(name string) (code int, ok bool) {
	switch name {
	case probeArg:
		return runProbeProgram(), true
	case parentArg:
		return runParentProgram(), true
	}
	return 0, false
}

// runProbeProgram runs inside the sandbox and prints one JSON object: check
// name -> "ok" or the error it met.
func runProbeProgram() int {
	var cfg probeConfig
	if err := json.Unmarshal([]byte(os.Getenv("SBX_PROBE")), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 2
	}
	res := map[string]string{}
	check := func(name string, f func() error) {
		if err := f(); err != nil {
			res[name] = err.Error()
		} else {
			res[name] = "ok"
		}
	}
	write := func(p string) func() error { return func() error { return os.WriteFile(p, []byte("x"), 0o644) } }
	read := func(p string) func() error { return func() error { _, err := os.ReadFile(p); return err } }

	check("read_allowed", read(cfg.ReadFile))
	check("write_allowed", write(filepath.Join(cfg.WriteDir, "out.txt")))
	check("tmpdir_write", write(filepath.Join(os.Getenv("TMPDIR"), "t.txt")))
	check("read_secret", read(cfg.Secret))
	check("stat_secret", func() error { _, err := os.Stat(cfg.Secret); return err })
	check("list_home", func() error { _, err := os.ReadDir(cfg.Home); return err })
	check("write_outside", write(filepath.Join(cfg.Outside, "evil.txt")))
	check("write_readpath", write(filepath.Join(cfg.ReadDir, "evil.txt")))
	check("write_root", write("/evil.txt"))
	check("truncate_ro", func() error { return os.Truncate(cfg.ReadFile, 0) })
	check("open_trunc_ro", func() error {
		f, err := os.OpenFile(cfg.ReadFile, os.O_WRONLY|os.O_TRUNC, 0)
		if err == nil {
			f.Close()
		}
		return err
	})
	check("chmod_ro", func() error { return os.Chmod(cfg.ReadFile, 0o600) })
	check("etc_shadow", read("/etc/shadow"))
	check("unix_socket", func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
	for name, fam := range map[string][3]int{
		"vsock_socket":  {unix.AF_VSOCK, unix.SOCK_STREAM, 0},
		"packet_socket": {unix.AF_PACKET, unix.SOCK_DGRAM, 0},
		"netlink_audit": {unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT},
		"netlink_route": {unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE},
		"inet_socket":   {unix.AF_INET, unix.SOCK_STREAM, 0},
	} {
		check(name, func() error {
			fd, err := unix.Socket(fam[0], fam[1], fam[2])
			if err == nil {
				unix.Close(fd)
			}
			return err
		})
	}
	check("devnull_write", write("/dev/null"))
	check("devnull_chmod", func() error { return os.Chmod("/dev/null", 0o666) }) // the same mode: harmless if it got through
	check("devnull_chown", func() error { return os.Chown("/dev/null", os.Getuid(), os.Getgid()) })
	check("devzero_utime", func() error { return os.Chtimes("/dev/zero", time.Unix(0, 0), time.Unix(0, 0)) })
	check("ptrace", func() error { return unix.PtraceAttach(os.Getppid()) })
	check("unshare_user", func() error { return unix.Unshare(unix.CLONE_NEWUSER) })
	check("mount", func() error { return unix.Mount("none", os.Getenv("TMPDIR"), "tmpfs", 0, "") })
	check("io_uring", func() error {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	})
	check("proc1_fd", func() error { // pid 1's descriptors (the egress folder) must not be followed
		ents, err := os.ReadDir("/proc/1/fd")
		if err != nil {
			return err
		}
		var errs []string
		for _, e := range ents {
			p := "/proc/1/fd/" + e.Name()
			if target, err := os.Readlink(p); err == nil {
				return fmt.Errorf("readlink %s = %s", p, target)
			}
			if _, err := os.Stat(p + "/"); err == nil {
				return fmt.Errorf("followed %s", p)
			} else {
				errs = append(errs, err.Error())
			}
		}
		return errors.New(strings.Join(errs, "; "))
	})
	check("proc1_root", func() error { _, err := os.ReadDir("/proc/1/root/"); return err })
	check("proc1_environ", read("/proc/1/environ"))
	check("proc1_mem", func() error {
		f, err := os.Open("/proc/1/mem")
		if err == nil {
			f.Close()
		}
		return err
	})
	check("tcp_direct", func() error {
		c, err := net.DialTimeout("tcp", cfg.DirectAddr, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	})
	check("caps", checkCaps)
	check("session", func() error {
		if sid, _ := unix.Getsid(0); sid != os.Getpid() {
			return fmt.Errorf("sid %d, pid %d", sid, os.Getpid())
		}
		return nil
	})
	check("pid_ns", func() error {
		if os.Getppid() != 1 {
			return fmt.Errorf("parent pid %d", os.Getppid())
		}
		return nil
	})
	check("hostname", func() error {
		if h, _ := os.Hostname(); h != "sandbox" {
			return fmt.Errorf("hostname %q", h)
		}
		return nil
	})
	if os.Getenv("HTTPS_PROXY") != "" {
		check("connect_allowed", func() error { return connectEcho(cfg.Allowed) })
		check("connect_unlisted", func() error { return connectEcho(cfg.Unlisted) })
		check("connect_localhost_name", func() error { return connectEcho(cfg.LocalhostName) })
		check("connect_metadata_name", func() error { return connectEcho(cfg.MetadataName) })
		check("https_allowed", func() error { return httpsGet(cfg.TLSURL, cfg.CAFile) })
		check("plain_http", func() error { return plainGet("http://" + cfg.Allowed + "/") })
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

func checkCaps() error {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	want := map[string]string{"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if w, ok := want[k]; ok {
			if strings.TrimSpace(v) != w {
				return fmt.Errorf("%s is %s", k, strings.TrimSpace(v))
			}
			delete(want, k)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("missing %v", want)
	}
	return nil
}

// connectEcho opens a CONNECT tunnel through $HTTPS_PROXY and checks the echo.
func connectEcho(target string) error {
	proxy := strings.TrimPrefix(os.Getenv("HTTPS_PROXY"), "http://")
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			break
		}
	}
	if !strings.Contains(status, " 200 ") {
		return errors.New("proxy answered " + strings.TrimSpace(status))
	}
	fmt.Fprintf(c, "ping\n")
	got, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if got != "ping\n" {
		return fmt.Errorf("echo %q", got)
	}
	return nil
}

func proxyClient(ca string) (*http.Client, error) {
	pu, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}, nil
}

func httpsGet(u, ca string) error {
	c, err := proxyClient(ca)
	if err != nil {
		return err
	}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "hello from loopback" {
		return fmt.Errorf("body %q", body)
	}
	return nil
}

func plainGet(u string) error {
	c, err := proxyClient("")
	if err != nil {
		return err
	}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// runParentProgram starts a sandboxed shell with background children, prints
// pid 1's host pid once it is running, then waits to be killed.
func runParentProgram() int {
	l, err := Prepare(Config{Name: "parent"}, []string{"sh", "-c", "sleep 300 & exec sleep 301"}, []string{"PATH=/usr/bin:/bin"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.ExtraFiles, cmd.SysProcAttr = l.Env, l.ExtraFiles, l.SysProcAttr
	cmd.SysProcAttr.Setpgid = true
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := l.Ready(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(cmd.Process.Pid)
	select {}
}
