package e2e

//lint:file-ignore SA1019 the proxy relays the legacy era's logging, deprecated in 2026-07-28; the test must use it

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// server-everything (TypeScript SDK) over Streamable HTTP restarts while
// the proxy's session with it is open: the restarted server answers the
// old session id with HTTP 400, not 404. The proxy renews the session on
// that too (a ping of the session confirms it is gone), checks the new
// session's surface as after a 404, and the client's next call goes
// through; the server's own messages outside a call (its simulated log
// messages, on the GET stream) reach the client from the new session.
// Before, every call failed with the 400 while lists still answered from
// the lock, and no GET stream was opened for any later session.
func TestProxyRemoteRestartRenews(t *testing.T) {
	t.Parallel()
	script := npmServer(t, "server-everything")
	port := listenPort(t)
	env := []string{"PORT=" + strconv.Itoa(port)}
	stop := serveHTTP(t, port, env, "node", script, "streamableHttp")
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "everything", "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port))

	logs := make(chan string, 64)
	cmd := proxyCmd(dir, "everything")
	var stderr testbin.SyncBuffer
	cmd.Stderr = &stderr
	cs := goClient(t, cmd, "legacy", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logs <- fmt.Sprint(req.Params.Data) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if got, err := toolText(ctx, cs, "get-sum", map[string]any{"a": 2, "b": 3}); err != nil || got != "The sum of 2 and 3 is 5." {
		t.Fatalf("before the restart: %q %v", got, err)
	}

	stop()
	serveHTTP(t, port, env, "node", script, "streamableHttp")
	if got, err := toolText(ctx, cs, "get-sum", map[string]any{"a": 4, "b": 5}); err != nil || got != "The sum of 4 and 5 is 9." {
		t.Fatalf("after the server restarted: %q %v\nproxy stderr:\n%s", got, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "session expired") || !strings.Contains(stderr.String(), "checking its surface again") {
		t.Errorf("the proxy did not say it renewed the session and checked it:\n%s", stderr.String())
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for len(logs) > 0 {
		<-logs
	}
	if _, err := toolText(ctx, cs, "toggle-simulated-logging", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	for got, deadline := 0, time.After(20*time.Second); got < 2; got++ {
		select {
		case <-logs:
		case <-deadline:
			t.Fatalf("%d log messages from the restarted server within 20 s (it sends one every 5 s on the new session's GET stream)\nproxy stderr:\n%s", got, stderr.String())
		}
	}
}
