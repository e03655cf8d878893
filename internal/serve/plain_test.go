package serve

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// A POST whose answer is the first message for it gets that answer as one
// plain JSON body (the client accepts both: serve refuses one that does
// not list both), written whole with its length: no event stream to frame
// and end. A call that brings progress before its answer still gets an
// event stream, progress first, and the answer last; a new session's
// initialize gets its Mcp-Session-Id either way.
func TestPlainJSONAnswer(t *testing.T) {
	t.Parallel()
	f := startServe(t, map[string]*lockfile.Server{"s": lockServer(t, "-versions=2025-11-25")})
	status, h, body := f.rawPost(t, "s", legacyInit, nil)
	sid := h.Get("Mcp-Session-Id")
	if status != 200 || h.Get("Content-Type") != "application/json" || sid == "" || !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Fatalf("initialize: %d %v %q", status, h, body)
	}
	sh := http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {"2025-11-25"}}
	if st, _, b := f.rawPost(t, "s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sh); st != http.StatusAccepted {
		t.Fatalf("initialized: %d %q", st, b)
	}
	status, h, body = f.rawPost(t, "s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, sh)
	if status != 200 || h.Get("Content-Type") != "application/json" || h.Get("Content-Length") != strconv.Itoa(len(body)) ||
		!strings.HasPrefix(body, `{"jsonrpc":"2.0","id":2,"result":`) || !strings.Contains(body, `"text":"hi"`) {
		t.Fatalf("a small call: %d %v %q", status, h, body)
	}
	status, h, body = f.rawPost(t, "s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood","arguments":{"count":3},"_meta":{"progressToken":"p"}}}`, sh)
	events := strings.Split(strings.TrimSpace(body), "\n\n")
	if status != 200 || h.Get("Content-Type") != "text/event-stream" || len(events) != 4 ||
		!strings.Contains(events[0], `"method":"notifications/progress"`) || !strings.Contains(events[3], `"id":3,"result":`) {
		t.Fatalf("a call with progress: %d %v %d events %q", status, h, len(events), body)
	}
}
