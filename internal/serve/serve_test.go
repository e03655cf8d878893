package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// go-sdk's client over HTTP through serve, in both eras, to a locked stdio
// server (proxytest, dual-era): the locked list, a call, a prompt and a
// resource, each through the proxy core.
func TestBothEras(t *testing.T) {
	t.Parallel()
	f := startServe(t, map[string]*lockfile.Server{"t": lockServer(t)})
	want := map[string][2]int{"legacy": {1, 0}, "modern": {0, 1}} // a session, or a pooled core
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			cs := f.goClient(t, "t", era, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Fatalf("tools/list: %v %v\nlog:\n%s", tools, err, f.log)
			}
			got, isErr, err := callText(t, cs, "echo", map[string]any{"text": "hi " + era})
			if err != nil || isErr || got != "hi "+era {
				t.Fatalf("echo: %q %v %v\nlog:\n%s", got, isErr, err, f.log)
			}
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "ada"}})
			if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "hello ada" {
				t.Fatalf("prompts/get: %v %v", p, err)
			}
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://item/7"})
			if err != nil || len(r.Contents) != 1 || !strings.Contains(r.Contents[0].Text, "test://item/7") {
				t.Fatalf("resources/read: %v %v", r, err)
			}
			if _, _, err := callText(t, cs, "nope", nil); err == nil || !strings.Contains(err.Error(), "not in the lock") {
				t.Fatalf("a tool that is not locked: %v", err)
			}
			if s, c := f.srv.counts(); [2]int{s, c} != want[era] {
				t.Errorf("%s client: %d sessions and %d 2026-07-28 cores, want %v", era, s, c, want[era])
			}
			cs.Close()
			if era == "legacy" {
				waitFor(t, "the session's end after DELETE", func() bool { s, _ := f.srv.counts(); return s == 0 })
			}
		})
	}
}

// waitFor polls cond until it holds (fails after 30 s).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A server whose surface drifted since it was locked is quarantined for
// every client, in both eras: each call gets -32002 and nothing runs.
func TestQuarantine(t *testing.T) {
	t.Parallel()
	e := lockServer(t, "-desc", "locked description")
	drifted := *e
	drifted.Command = serverCmd(t, "-desc", "changed description")
	f := startServe(t, map[string]*lockfile.Server{"t": &drifted})
	for _, era := range []string{"legacy", "modern"} {
		cs := f.goClient(t, "t", era, nil, nil)
		_, _, err := callText(t, cs, "echo", map[string]any{"text": "x"})
		if err == nil || !strings.Contains(err.Error(), "-32002") && !strings.Contains(err.Error(), "quarantined") {
			t.Fatalf("%s client, a drifted server: %v\nlog:\n%s", era, err, f.log)
		}
	}
	if !strings.Contains(f.log.String(), "QUARANTINED") {
		t.Errorf("the log does not say the server was quarantined:\n%s", f.log)
	}
}
