package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unprivUID is the unprivileged user the root run re-runs the tests as.
const unprivUID = 1000

// unprivChildEnv marks the unprivileged re-run.
const unprivChildEnv = "SBX_UNPRIV_CHILD"

// integrationTests run again as an unprivileged user.
var integrationTests = []string{"TestEscapes", "TestPrepareRefusals", "TestSandboxBasics", "TestSetupFailure",
	"TestSignalForwarding", "TestCloseEndsSandbox", "TestParentDeath", "TestStatus", "TestFilesystemServer"}

// TestUnprivileged re-runs the sandbox integration tests as uid 1000 when the
// suite runs as root (CI), from a copy of this test binary that uid 1000 can
// execute, with its own HOME and TMPDIR.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running unprivileged already: the integration tests above are the unprivileged run")
	}
	requireSandbox(t)
	base, err := os.MkdirTemp(origTmp, "sbx-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer removeAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	bin := filepath.Join(base, "bin", "sandbox.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	home := filepath.Join(work, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, unprivUID, unprivUID); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^("+strings.Join(integrationTests, "|")+")$", "-test.count=1", "-test.v", "-test.timeout=10m")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + work,
		"MCPSUM_E2E_REQUIRE=" + os.Getenv("MCPSUM_E2E_REQUIRE"), unprivChildEnv + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivUID, Gid: unprivUID}, Setpgid: true}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", unprivUID, out)
	if err != nil {
		t.Fatalf("integration tests as uid %d: %v", unprivUID, err)
	}
	if strings.Contains(string(out), "sandbox unavailable on this machine") && os.Getenv("MCPSUM_E2E_REQUIRE") != "1" {
		t.Skipf("the sandbox is available to root but not to uid %d here (see the log)", unprivUID)
	}
	for _, name := range integrationTests {
		if strings.Contains(string(out), "--- PASS: "+name+" ") {
			continue
		}
		if name == "TestFilesystemServer" && strings.Contains(string(out), "--- SKIP: "+name+" ") {
			t.Logf("%s skipped as uid %d (see its message above)", name, unprivUID)
			continue
		}
		t.Errorf("%s did not pass as uid %d", name, unprivUID)
	}
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
