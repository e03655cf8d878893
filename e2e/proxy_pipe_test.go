package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A client that dies closes the proxy's stdout: the proxy's next answer
// fails with EPIPE instead of killing it with SIGPIPE, so it still ends its
// server and exits on its own. Its SIGPIPE handler is set up on a goroutine
// of its own while the flags and the lock are read (process.Before), and
// must be in force before the server starts.
func TestProxySurvivesClosedStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	writeExe(t, filepath.Join(dir, "srv.sh"), fmt.Sprintf("#!/bin/sh\necho $$ > %s\nexec %s -versions 2025-11-25\n", pidFile, bin.gosrv))
	mustLock(t, dir, nil, "--name", "s", "--", "./srv.sh")
	cmd := proxyCmd(dir, "s")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %s: %v", line, err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	answer, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.Contains(answer, `"result"`) {
		t.Fatalf("initialize: %q %v\n%s", answer, err, stderr.String())
	}
	r.Close() // the client is gone: its end of the proxy's stdout is closed
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	stdin.Close()
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("the proxy was killed by %v writing to the closed stdout (%v)\n%s", ws.Signal(), err, stderr.String())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Fatalf("the server (pid %d) outlived the proxy: kill 0 = %v", pid, err)
	}
}
