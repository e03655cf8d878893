package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// filesystemServer is the installed entry point of the pinned npm peer.
func filesystemServer(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	entry := filepath.Join(filepath.Dir(file), "..", "..", "e2e", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	entry, _ = filepath.Abs(entry)
	if _, err := os.Stat(entry); err != nil {
		if os.IsPermission(err) && os.Getenv(unprivChildEnv) != "" {
			t.Skipf("%s is not readable by uid %d here (%v); the root run covers this test", entry, os.Getuid(), err)
		}
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatalf("missing %s (run npm ci in e2e/): %v", entry, err)
		}
		t.Skipf("missing %s (run npm ci in e2e/)", entry)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return entry
}

// TestFilesystemServer runs the real @modelcontextprotocol/server-filesystem
// (its installed entry point) under a sandbox that allows one folder. The
// server's own allowlist is the folder above, so every refusal below comes
// from the sandbox, not from the server.
func TestFilesystemServer(t *testing.T) {
	requireSandbox(t)
	entry := filesystemServer(t)
	root := t.TempDir()
	allowed := filepath.Join(root, "allowed")
	mustWrite(t, filepath.Join(allowed, "a.md"), "allowed note\n")
	secret := filepath.Join(root, "secret.txt")
	mustWrite(t, secret, "TOP SECRET\n")

	l, err := Prepare(Config{Name: "filesystem", Read: []string{allowed}},
		[]string{"node", entry, root}, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.ExtraFiles, cmd.SysProcAttr = l.Env, l.ExtraFiles, l.SysProcAttr
	cmd.SysProcAttr.Setpgid = true
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		timer := time.AfterFunc(10*time.Second, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		cmd.Wait()
		timer.Stop()
	}()
	watchdog := time.AfterFunc(90*time.Second, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer watchdog.Stop()
	if err := l.Ready(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stdout)
	id := 0
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(msg, '\n')); err != nil {
			t.Fatalf("%s: %v; stderr: %s", method, err, stderr.String())
		}
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: %v; stderr: %s", method, err, stderr.String())
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification or a request from the server
			}
			if resp.Error != nil {
				t.Fatalf("%s: error %s", method, resp.Error)
			}
			return resp.Result
		}
	}
	init := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpsum-sandbox-test", "version": "0"}})
	if !strings.Contains(string(init), "serverInfo") {
		t.Fatalf("initialize: %s", init)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	text := func(res json.RawMessage) (string, bool) {
		var r struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		json.Unmarshal(res, &r)
		var b strings.Builder
		for _, c := range r.Content {
			b.WriteString(c.Text)
		}
		return b.String(), r.IsError
	}
	tool := func(name, path string) (string, bool) {
		return text(call("tools/call", map[string]any{"name": name, "arguments": map[string]any{"path": path}}))
	}
	if got, isErr := tool("list_directory", allowed); isErr || !strings.Contains(got, "a.md") {
		t.Errorf("list_directory %s: %q (error %v)", allowed, got, isErr)
	}
	if got, isErr := tool("read_text_file", filepath.Join(allowed, "a.md")); isErr || !strings.Contains(got, "allowed note") {
		t.Errorf("read_text_file in the allowed folder: %q (error %v)", got, isErr)
	}
	for _, p := range []string{secret, root} {
		name := "read_text_file"
		if p == root {
			name = "list_directory"
		}
		got, isErr := tool(name, p)
		if !isErr || strings.Contains(got, "TOP SECRET") || strings.Contains(got, "secret.txt") {
			t.Errorf("%s %s outside the sandbox: %q (error %v)", name, p, got, isErr)
		} else {
			t.Logf("%s %s refused: %s", name, p, firstLine(got))
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return fmt.Sprintf("%.200s", s)
}
