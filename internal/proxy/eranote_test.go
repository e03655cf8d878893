package proxy

import (
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The note is added only where go-sdk's refusal is: an isError result's
// text item, or a JSON-RPC error's message. A result that quotes the words
// elsewhere, is not an error, or is ambiguous (a content member twice)
// passes unchanged; the note quotes the entry's command for a shell and
// warns of the policy a removal drops.
func TestEraNoteOnlyOnTheRefusal(t *testing.T) {
	p := &Proxy{opts: Options{Name: "conf", Lockfile: "/w/mcp.lock", Entry: &lockfile.Server{Command: []string{"/bin/conf server", "-x"}, EnvPassthrough: []string{"TOKEN"}}}}
	refusal := `"sampling failed: \"sampling/createMessage\" ` + eraRefusal + `: return an InputRequests map instead"`
	for _, tc := range []struct {
		name, obj string
		noted     bool
	}{
		{"refused", `{"content":[{"type":"text","text":` + refusal + `}],"isError":true}`, true},
		{"not an error", `{"content":[{"type":"text","text":` + refusal + `}],"isError":false}`, false},
		{"words elsewhere", `{"content":[{"type":"text","text":"x","meta":` + refusal + `}],"isError":true}`, false},
		{"content twice", `{"content":[],"content":[{"type":"text","text":` + refusal + `}],"isError":true}`, false},
		{"no content", `{"isError":true}`, false},
	} {
		got := string(p.eraNoteResult([]byte(tc.obj)))
		if noted := got != tc.obj; noted != tc.noted {
			t.Errorf("%s: noted %v, want %v:\n%s", tc.name, noted, tc.noted, got)
		}
		if tc.noted {
			for _, want := range []string{`{"type":"text","text":` + refusal + `},{"type":"text","text":"mcpsum: server \"conf\" is locked in the 2026-07-28 era`,
				`mcpsum lock --lockfile /w/mcp.lock --remove conf, then mcpsum lock --lockfile /w/mcp.lock --era legacy --name conf --env TOKEN -- '/bin/conf server' -x"}],"isError":true}`} {
				if !strings.Contains(got, want) {
					t.Errorf("%s: lacks %s:\n%s", tc.name, want, got)
				}
			}
		}
	}
	line := []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":` + refusal + `}}`)
	env, _, err := jsonline.ScanEnvelope(line)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := p.eraNoteError(line, env.Err)
	if !ok || !strings.Contains(string(e.repl), "InputRequests map instead — mcpsum: server") {
		t.Errorf("error message: ok %v, %s", ok, e.repl)
	}
	p.opts.Entry.Policy = &lockfile.Policy{}
	if n := p.eraNote(); !strings.Contains(n, "copy the entry's policy section first") {
		t.Errorf("a note for an entry with a policy does not warn that removing it drops the policy:\n%s", n)
	}
}
