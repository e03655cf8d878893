package sandbox

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireSandbox skips when this machine cannot run a sandbox, unless CI asks
// for every integration test (MCPSUM_E2E_REQUIRE=1).
func requireSandbox(t testing.TB) {
	t.Helper()
	if m := checkMachine(); m.err != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatalf("sandbox unavailable on this machine: %v", m.err)
		}
		t.Skipf("sandbox unavailable on this machine: %v", m.err)
	}
}

// run starts a Launch the way internal/mcpwire does (own process group), feeds
// stdin, and returns stdout once the sandbox has exited.
func run(t testing.TB, l *Launch, stdin string) (stdout []byte, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.ExtraFiles, cmd.SysProcAttr = l.Env, l.ExtraFiles, l.SysProcAttr
	cmd.SysProcAttr.Setpgid = true
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	timer := time.AfterFunc(60*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer timer.Stop()
	err = cmd.Wait()
	if rerr := l.Ready(); rerr != nil {
		return out.Bytes(), errb.String(), rerr
	}
	return out.Bytes(), errb.String(), err
}

// TestEscapes runs this test binary inside a sandbox and tries to get out.
func TestEscapes(t *testing.T) {
	requireSandbox(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := filepath.Join(home, ".ssh", "id_rsa")
	mustWrite(t, secret, "SECRET KEY")
	readFile := filepath.Join(home, "notes", "a.md")
	mustWrite(t, readFile, "allowed note\n")
	writeDir := filepath.Join(home, "work")
	os.MkdirAll(writeDir, 0o755)
	outside := t.TempDir()
	state := t.TempDir()
	audit := filepath.Join(state, "audit.jsonl")

	allowed := echoServer(t)
	unlisted := echoServer(t)
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello from loopback"))
	}))
	tlsSrv.Listener.Close()
	tlsSrv.Listener, _ = net.Listen("tcp4", "127.0.0.1:0")
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	caFile := filepath.Join(home, "notes", "ca.pem")
	mustWrite(t, caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})))
	tlsAddr := strings.TrimPrefix(tlsSrv.URL, "https://")
	fakeResolver(t, map[string]string{"localhost": "127.0.0.1", "metadata.test": "169.254.169.254"})
	_, unlistedPort, _ := net.SplitHostPort(unlisted)

	cfg := Config{
		Read:  []string{"~/notes"},
		Write: []string{"~/work", "${TMP}/scratch"},
		// localhost is listed by name on a port whose 127.0.0.1 is not listed: refused.
		NetworkAllow: []string{allowed, tlsAddr, "localhost:" + unlistedPort, "metadata.test:80"},
		AuditLog:     audit, Name: "escape", Protected: []string{filepath.Join(state, "mcp.lock"), state},
	}
	pc := probeConfig{Secret: secret, ReadFile: readFile, ReadDir: filepath.Dir(readFile), WriteDir: writeDir,
		Outside: outside, Home: home, DirectAddr: allowed, Allowed: allowed, Unlisted: unlisted,
		LocalhostName: "localhost:" + unlistedPort, MetadataName: "metadata.test:80",
		TLSURL: tlsSrv.URL + "/", CAFile: caFile}
	pcJSON, _ := json.Marshal(pc)
	self, _ := os.Executable()
	l, err := Prepare(cfg, []string{self, probeArg}, []string{"PATH=/usr/bin:/bin", "HOME=" + home, "SBX_PROBE=" + string(pcJSON)})
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := run(t, l, "")
	if err != nil {
		l.Close()
		t.Fatalf("sandboxed probe: %v\nstderr:\n%s", err, stderr)
	}
	tmp := l.TmpDir
	if err := l.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("${TMP} %s still exists after Close (%v)", tmp, err)
	}
	var res map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("probe output %q: %v\nstderr:\n%s", out, err, stderr)
	}
	mustOK := []string{"read_allowed", "write_allowed", "tmpdir_write", "caps", "session", "pid_ns", "hostname",
		"connect_allowed", "https_allowed", "netlink_route", "inet_socket", "devnull_write"}
	mustFail := map[string]string{ // check -> a substring of the expected error
		"read_secret": "no such file", "stat_secret": "no such file", "list_home": "",
		"write_outside": "no such file", "write_readpath": "read-only", "write_root": "read-only",
		"truncate_ro": "read-only", "open_trunc_ro": "read-only", "chmod_ro": "read-only",
		"etc_shadow": "no such file", "unix_socket": "operation not permitted", "ptrace": "operation not permitted",
		"unshare_user": "operation not permitted", "mount": "operation not permitted",
		"io_uring": "function not implemented", "tcp_direct": "",
		"proc1_fd": "permission denied", "proc1_root": "permission denied", "proc1_environ": "permission denied",
		"proc1_mem":    "permission denied",
		"vsock_socket": "address family not supported", "packet_socket": "address family not supported",
		"netlink_audit": "address family not supported",
		"devnull_chmod": "read-only", "devnull_chown": "read-only", "devzero_utime": "read-only",
		"connect_unlisted": "403", "connect_localhost_name": "403", "connect_metadata_name": "403", "plain_http": "405",
	}
	for _, k := range mustOK {
		if res[k] != "ok" {
			t.Errorf("%s: want ok, got %q", k, res[k])
		}
	}
	for k, sub := range mustFail {
		if v, ok := res[k]; !ok || v == "ok" || !strings.Contains(v, sub) {
			t.Errorf("%s: want an error containing %q, got %q", k, sub, v)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "evil.txt")); err == nil {
		t.Error("the sandbox wrote outside its write paths")
	}
	if b, _ := os.ReadFile(readFile); string(b) != "allowed note\n" {
		t.Errorf("read-only file changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(writeDir, "out.txt")); string(b) != "x" {
		t.Errorf("write path not written: %q", b)
	}
	checkAudit(t, audit, allowed, unlisted, tlsAddr)
}

func checkAudit(t *testing.T, audit, allowed, unlisted, tlsAddr string) {
	t.Helper()
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var recs []auditRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r auditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if r.Server != "escape" || r.Kind != "egress" || r.Time == "" {
			t.Errorf("audit line %q lacks server/kind/time", line)
		}
		recs = append(recs, r)
	}
	find := func(decision, host string, port string, reason string) *auditRecord {
		for i, r := range recs {
			if r.Decision == decision && r.Host == host && fmt.Sprint(r.Port) == port && strings.Contains(r.Reason, reason) {
				return &recs[i]
			}
		}
		t.Errorf("no audit line %s %s:%s (%q) in:\n%s", decision, host, port, reason, b)
		return nil
	}
	ah, ap, _ := net.SplitHostPort(allowed)
	if r := find("allow", ah, ap, ""); r != nil && (r.BytesUp != 5 || r.BytesDown != 5 || r.IP != ah) {
		t.Errorf("allowed tunnel: %+v, want 5 bytes each way to %s", *r, ah)
	}
	uh, up, _ := net.SplitHostPort(unlisted)
	find("deny", uh, up, "not in allowlist")
	find("deny", "localhost", up, "non-public [127.0.0.1]")
	find("deny", "metadata.test", "80", "non-public [169.254.169.254]")
	find("deny", ah, ap, "only CONNECT")
	th, tp, _ := net.SplitHostPort(tlsAddr)
	if r := find("allow", th, tp, ""); r != nil && (r.BytesUp == 0 || r.BytesDown == 0) {
		t.Errorf("TLS tunnel counted no bytes: %+v", *r)
	}
}
