package serve

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// What a call brings besides its answer, through serve, for both client
// eras in front of both server eras: the server's questions to the client
// (a legacy server's elicitation/create on the session's streams, a
// 2026-07-28 server's input_required, bridged across eras by the core),
// progress notifications on the call's own stream, a long result streamed
// through (its id comes last: the router routes it by the core's word),
// and cancellation (a legacy notifications/cancelled, a 2026-07-28 client
// closing its POST).
func TestTraffic(t *testing.T) {
	t.Parallel()
	f := startServe(t, map[string]*lockfile.Server{
		"modern": lockServer(t),
		"legacy": lockServer(t, "-versions=2025-11-25,2025-06-18"),
	})
	for _, server := range []string{"modern", "legacy"} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(era+"-client/"+server+"-server", func(t *testing.T) {
				var progress atomic.Int64
				opts := &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
					},
					ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
				}
				cs := f.goClient(t, server, era, opts, nil)
				got, _, err := callText(t, cs, "ask", map[string]any{"kind": "elicitation"})
				if err != nil || !strings.Contains(got, `"name":"ada"`) {
					t.Fatalf("the server's question: %q %v\nlog:\n%s", got, err, f.log)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"count": 20}, Meta: mcp.Meta{"progressToken": "p-" + era}})
				cancel()
				if err != nil || res.IsError {
					t.Fatalf("flood: %v %v", res, err)
				}
				waitFor(t, "20 progress notifications", func() bool { return progress.Load() == 20 })
				// Longer than the proxy core's 256 KiB read window (past
				// which it streams a result in pieces) and than the 1 MiB
				// its writer queues behind a streamed line.
				const bigSize = 1<<20 + 256<<10
				big, _, err := callText(t, cs, "big", map[string]any{"bytes": bigSize})
				if err != nil || len(big) != bigSize || !strings.HasPrefix(big, "abcdef") {
					t.Fatalf("a %d-byte result: %d bytes, %v", bigSize, len(big), err)
				}
				// Cancel a slow call until the server saw one cancelled (a
				// cancellation may come before the call reached it).
				before, _, _ := callText(t, cs, "cancelled", nil)
				for try := 0; ; try++ {
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan error, 1)
					go func() {
						_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
						done <- err
					}()
					time.Sleep(time.Duration(50*(try+1)) * time.Millisecond)
					cancel()
					<-done
					if after, _, _ := callText(t, cs, "cancelled", nil); after != before {
						break
					}
					if try == 50 {
						t.Fatalf("the server never saw a slow call cancelled\nlog:\n%s", f.log)
					}
				}
			})
		}
	}
}
