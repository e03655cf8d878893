package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
)

// everythingServer is the installed real server-everything (a legacy
// server with 2025-11-25 tasks that ask for input).
func everythingServer(t *testing.T) []string {
	_, file, _, _ := runtime.Caller(0)
	entry, _ := filepath.Abs(filepath.Join(filepath.Dir(file), "..", "..", "e2e", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	_, statErr := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatalf("server-everything needs node and %s (npm ci in e2e/): %v %v", entry, statErr, nodeErr)
		}
		t.Skipf("server-everything needs node and %s (npm ci in e2e/)", entry)
	}
	return []string{"node", entry}
}

// proxyGrabber is a Hooks that lets every call through and keeps the
// proxy it runs in, so a test can look at its bookkeeping.
type proxyGrabber struct {
	mu sync.Mutex
	p  *Proxy
}

func (g *proxyGrabber) BeforeCall(_ CallInfo, _ []byte, s Session, decide func(Verdict)) {
	g.mu.Lock()
	g.p = s.(*hookCall).p
	g.mu.Unlock()
	decide(Verdict{})
}

func (g *proxyGrabber) BeforeResult(CallInfo, ResultInfo) *CallError { return nil }

func (g *proxyGrabber) taskInputs() int {
	g.mu.Lock()
	p := g.p
	g.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tasks.Inputs()
}

// The proxy's tasks/result of a legacy task that asked a 2026-07-28 client
// for input (taskinput.go) is dropped once the client has seen the task
// end; it was kept for the whole session.
func TestTaskInputDroppedWhenTaskEnds(t *testing.T) {
	// node starting server-everything takes seconds on a loaded machine
	// (more than startProxy's 10 s answer bound): it gets the start-up
	// allowance mcpsum gives a server by default (60 s).
	pin := launch.Options{Timeout: 30 * time.Second, StartTimeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := launch.Lock(ctx, "e", everythingServer(t), nil, "", nil, pin)
	if err != nil {
		t.Fatal(err)
	}
	g := &proxyGrabber{}
	s := startProxy(t, e, func(o *Options) { o.Hooks = g; o.Pin = pin })
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	_, m := s.request("tools/call", `{"name":"simulate-research-query","arguments":{"topic":"python","ambiguous":true},`+meta+`}`)
	var r struct{ TaskID string }
	if json.Unmarshal(m.Result, &r) != nil || r.TaskID == "" {
		t.Fatalf("no task: %s %+v", m.Result, m.Error)
	}
	get := func() map[string]json.RawMessage {
		t.Helper()
		_, m := s.request("tasks/get", `{"taskId":"`+r.TaskID+`",`+meta+`}`)
		if m.Error != nil {
			t.Fatalf("tasks/get: %+v", m.Error)
		}
		return members(t, m.Result)
	}
	wait := func(status string) map[string]json.RawMessage {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
			if g := get(); string(g["status"]) == `"`+status+`"` {
				return g
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("the task never became %s", status)
		return nil
	}
	reqs := members(t, wait("input_required")["inputRequests"])
	if len(reqs) != 1 || g.taskInputs() != 1 {
		t.Fatalf("%d input requests, %d task inputs kept", len(reqs), g.taskInputs())
	}
	var key string
	for k := range reqs {
		key = k
	}
	_, m = s.request("tasks/update", fmt.Sprintf(`{"taskId":"%s","inputResponses":{"%s":{"action":"accept","content":{"interpretation":"snake"}}},%s}`, r.TaskID, key, meta))
	if m.Error != nil {
		t.Fatalf("tasks/update: %+v", m.Error)
	}
	if done := wait("completed"); !strings.Contains(string(done["result"]), "snake") {
		t.Errorf("the completed task: %s", done["result"])
	}
	if n := g.taskInputs(); n != 0 {
		t.Errorf("%d task inputs kept after the task ended", n)
	}
}
