//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// In a terminal, import --write lists a project config's commands and asks;
// only "y" starts them.
func TestImportTrustPromptInATerminal(t *testing.T) {
	t.Parallel()
	h := newHostileProject(t)
	marker := filepath.Join(h.home, "ran")
	h.write(t, ".mcp.json", `{"mcpServers": {"memory": {"command": "sh", "args": ["-c", "touch `+marker+`; exec `+bin.goMemory+`"]}}}`)
	for _, answer := range []string{"n", "y"} {
		master, slave := openPty(t)
		if _, err := master.WriteString(answer + "\n"); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin.mcpsum, "import", "--client", "claude-code", "--write")
		cmd.Dir, cmd.Env, cmd.Stdin = h.proj, append(os.Environ(), h.env...), slave
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		_, ran := os.Stat(marker)
		if !strings.Contains(stderr.String(), "import will start these commands of the project config .mcp.json") ||
			!strings.Contains(stderr.String(), "memory (.mcp.json): sh -c") || !strings.Contains(stderr.String(), "start them? [y/N]") {
			t.Errorf("answer %s: no prompt listing the command:\n%s", answer, stderr.String())
		}
		switch answer {
		case "n":
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || ran == nil || !strings.Contains(stderr.String(), "not started (you did not answer yes)") {
				t.Fatalf("answer n: %v, ran %v\n%s%s", err, ran == nil, stdout.String(), stderr.String())
			}
		case "y":
			if err != nil || ran != nil || !strings.Contains(stdout.String(), "wrote .mcp.json") {
				t.Fatalf("answer y: %v, marker %v\n%s%s", err, ran, stdout.String(), stderr.String())
			}
		}
	}
}
