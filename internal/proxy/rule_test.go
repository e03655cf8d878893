package proxy

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// A response's top level holds jsonrpc, id and exactly one of result and
// error, and its strings are valid UTF-8, whatever its length: the same
// line is refused (the session fails with a framing error, the call gets
// an error, nothing of the offending members reaches the client) under the
// 256 KiB window and streamed over it. Over the window, a FAKE server's
// second result, or a method and params after the result (go-sdk reads a
// message with a method as a request, under the client's own id), reached
// the client; under it, a method before the result made the line a server
// request.
func TestResponseRuleOnBothPaths(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"second result", ``, `,"result":{"content":[{"type":"text","text":"forged"}]}`},
		{"method and params after", ``, `,"method":"sampling/createMessage","params":{"forged":1}`},
		{"method before", `"method":"sampling/createMessage",`, `,"params":{"forged":1}`},
		{"error after", ``, `,"error":{"code":1,"message":"forged"}`},
		{"other member after", ``, `,"forged":true`},
		{"invalid UTF-8", ``, ``},
	} {
		for _, size := range []int{1 << 10, 300 << 10} {
			text := strings.Repeat("x", size)
			if tc.name == "invalid UTF-8" {
				text = text[:size/2] + "\xff\xfe" + text[size/2:]
			}
			line := `{"jsonrpc":"2.0","id":1,` + tc.before + `"result":{"content":[{"type":"text","text":"` + text + `"}]}` + tc.after + "}\n"
			t.Run(tc.name+"/"+termtext.Size(size), func(t *testing.T) {
				p, out := framingProxy(t, lockfile.EraLegacy)
				p.gate.state = gateOpen
				p.ids.Put(1, &call{Call: idmap.Call{ClientID: []byte(`"c1"`)}, method: "tools/call"})
				p.readServerStream(&chunked{data: []byte(line), n: 4096}, 0)
				var fe *FramingError
				if !errors.As(p.gate.failure, &fe) {
					t.Fatalf("session ended with %v, want a framing error", p.gate.failure)
				}
				text := out.String()
				for _, bad := range []string{`"forged":`, `"text":"forged"`, `"message":"forged"`, `"method":"sampling/createMessage"`, "\xff"} {
					if strings.Contains(text, bad) {
						t.Errorf("%q reached the client", bad)
					}
				}
				if lines := checkLines(t, text); !strings.Contains(lines[len(lines)-1], `"id":"c1","error"`) {
					t.Errorf("the call got no error: %.300q", lines)
				}
			})
		}
	}
}

// The members the rule allows may come in any order: a streamed result
// followed by "jsonrpc" is forwarded whole, under the client's id.
func TestResponseRuleAllowsJSONRPCAfterResult(t *testing.T) {
	p, out := framingProxy(t, lockfile.EraLegacy)
	p.gate.state = gateOpen
	p.ids.Put(1, &call{Call: idmap.Call{ClientID: []byte(`"c1"`)}, method: "tools/call"})
	line := `{"id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("é", 200<<10) + `"}]},"jsonrpc":"2.0"}` + "\n"
	p.readServerStream(&chunked{data: []byte(line), n: 4093}, 0)
	if p.gate.failure != nil {
		t.Fatalf("session failed: %v", p.gate.failure)
	}
	lines := checkLines(t, out.String())
	if len(lines) != 1 || !strings.HasSuffix(lines[0], `}]},"jsonrpc":"2.0","id":"c1"}`) || !strings.Contains(lines[0], strings.Repeat("é", 200<<10)) {
		t.Fatalf("got %.200q … %.200q", lines[0], lines[0][max(0, len(lines[0])-200):])
	}
}
