package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// chunked returns the data in reads of odd sizes, so lines straddle reads.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.n, len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func framingProxy(t testing.TB, era string) (*Proxy, *bytes.Buffer) {
	t.Helper()
	e := &lockfile.Server{Command: []string{"x"}, ProtocolVersion: "2025-11-25", ServerInfo: json.RawMessage(`{}`), Capabilities: json.RawMessage(`{}`)}
	if era == lockfile.EraModern {
		e.ProtocolVersion, e.SupportedVersions = mcpspec.Modern, []string{mcpspec.Modern}
	}
	var out bytes.Buffer
	p, err := newProxy(&out, Options{Name: "t", Entry: e})
	if err != nil {
		t.Fatal(err)
	}
	return p, &out
}

func bigText(n int) string { return strings.Repeat("a\\\"b", n/4) }

// The streaming reader: short lines in place, long results streamed with the
// client's id written last, a long result whose id comes last collected, a long answer
// nobody waits for dropped, a long notification forwarded whole.
func TestStreamFraming(t *testing.T) {
	p, out := framingProxy(t, lockfile.EraLegacy)
	p.client.legacy = true // it gets log messages
	p.gate.state = gateOpen
	for u, id := range map[int64]string{1: `"c1"`, 2: `"c2"`, 3: `7`, 5: `"c5"`} {
		p.ids.Put(u, &call{Call: idmap.Call{ClientID: []byte(id)}, method: "tools/call"})
	}
	p.ids.Put(6, &call{Call: idmap.Call{ClientID: []byte(`"m6"`)}, method: "resources/read", modern: true})
	big := bigText(3 << 20)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`,
		`{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":3}`,
		`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\r",
		`{"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"u","text":"` + big + `"}]}}`,
	}, "\n") + "\n"
	err := p.readServerStream(&chunked{data: []byte(in), n: 7919}, 0)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("reader ended with %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":"c1","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + big + `"}]},"id":"c2"}`,
		`{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + big + `"}}`,
		`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + big + `"}]},"id":"c5"}`,
		`{"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"u","text":"` + big + `"}]},"id":"m6"}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines out, want %d", len(lines), len(want))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: got %.100s… (%d bytes), want %.100s… (%d bytes)", i, lines[i], len(lines[i]), want[i], len(want[i]))
		}
	}
	if p.ids.Sent() != 0 {
		t.Errorf("%d calls left pending", p.ids.Sent())
	}
}

// A line over the limit: a streamed result gets the client a proper error
// for its call (the cut line ends as valid JSON under the void id, never
// truncated), and the session goes on; a collected one fails the session.
func TestStreamLineLimit(t *testing.T) {
	for _, idFirst := range []bool{true, false} {
		p, out := framingProxy(t, lockfile.EraLegacy)
		p.ids.Put(1, &call{Call: idmap.Call{ClientID: []byte(`1`)}, method: "tools/call"})
		line := `{"jsonrpc":"2.0","id":1,"result":{"t":"` + bigText(1<<20) + `"}}`
		if !idFirst {
			line = `{"result":{"t":"` + bigText(1<<20) + `"},"jsonrpc":"2.0","id":1}`
		}
		err := p.readServerStream(&chunked{data: []byte(line + "\n"), n: 65536}, 512<<10)
		if !idFirst {
			if !errors.Is(err, mcpwire.ErrLineTooLong) {
				t.Errorf("id last: a 1 MiB line with a 512 KiB limit gave %v", err)
			}
			continue
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("id first: the session ended with %v; want it to go on", err)
		}
		lines := checkLines(t, out.String())
		if len(lines) != 2 || !strings.Contains(lines[0], `"id":"mcpsum-void-`) || !strings.Contains(lines[1], `"id":1,"error"`) || !strings.Contains(lines[1], "512 KiB") && !strings.Contains(lines[1], "524288") {
			t.Errorf("id first: got %d lines: %.200q", len(lines), lines)
		}
	}
}

// checkLines splits the client's output into lines, each of which must be
// one valid JSON object.
func checkLines(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not valid JSON: %.200s … %.200s", i, l, l[max(0, len(l)-200):])
		}
	}
	return lines
}

// repeated yields line n times, in reads of at most 64 KiB, and registers
// the call each line answers just before it is read.
type repeated struct {
	p    *Proxy
	line []byte
	n    int
	off  int
}

func (r *repeated) Read(b []byte) (int, error) {
	if r.off == 0 {
		if r.n == 0 {
			return 0, io.EOF
		}
		r.n--
		r.p.ids.Put(1, &call{Call: idmap.Call{ClientID: []byte(`"c"`)}, method: "tools/call"})
	}
	n := copy(b[:min(len(b), 64<<10)], r.line[r.off:])
	if r.off += n; r.off == len(r.line) {
		r.off = 0
	}
	return n, nil
}

func benchLines(b *testing.B, line []byte) {
	p, _ := framingProxy(b, lockfile.EraLegacy)
	p.out = jsonline.NewWriter(io.Discard)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	p.readServerStream(&repeated{p: p, line: line, n: b.N}, 0)
}

// BenchmarkStreamResult measures the proxy's own cost per byte of a long
// result: framing, the envelope scan of the head, the id splice and the
// copy to the client (here io.Discard), with no process or pipe involved.
func BenchmarkStreamResult(b *testing.B) {
	benchLines(b, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+strings.Repeat("abcdefgh", 1<<20)+`"}]}}`+"\n"))
}

// BenchmarkStreamStructured is BenchmarkStreamResult for a result of
// 8 MiB of structuredContent rows of small members (the tracker's fast
// path, trackfast.go).
func BenchmarkStreamStructured(b *testing.B) {
	var rows strings.Builder
	rows.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"rows":[`)
	for i := 0; rows.Len() < 8<<20; i++ {
		fmt.Fprintf(&rows, `{"id":%d,"name":"row %d","ok":true,"score":%d.5,"tags":["a","b"],"parent":null},`, i, i, i%1000)
	}
	rows.WriteString(`null]}}}` + "\n")
	benchLines(b, []byte(rows.String()))
}

// BenchmarkSmallResponse is the same for a short result (the common case).
func BenchmarkSmallResponse(b *testing.B) {
	benchLines(b, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}`+"\n"))
}

// BenchmarkForwardCall measures the proxy's cost for a client's tools/call:
// envelope and params scan, the locked-name check, id allocation and the
// splice to the server (here io.Discard). Each iteration then drops its
// call, as the server's answer would, so the id map never reaches its cap
// (mcpspec.MaxCallsInFlight) and every iteration measures forwarding, not
// the refusal.
func BenchmarkForwardCall(b *testing.B) {
	p, _ := framingProxy(b, lockfile.EraLegacy)
	p.srv.tools["add"] = true
	p.client.legacy, p.gate.state, p.up = true, gateOpen, discardUp{jsonline.NewWriter(io.Discard)}
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	b.ReportAllocs()
	for b.Loop() {
		p.fromClient(line)
		p.ids.DropClient("7")
	}
}

// discardUp is an upstream that is only written to.
type discardUp struct{ *jsonline.Writer }

func (discardUp) Messages() io.Reader                       { return strings.NewReader("") }
func (discardUp) Exited() <-chan struct{}                   { return nil }
func (discardUp) ExitError() error                          { return nil }
func (discardUp) StderrTail() []string                      { return nil }
func (discardUp) Stop(grace, termGrace time.Duration) error { return nil }

// A 2026-07-28 server's input_required result too long to check whole
// (issue 13: clean results per era; clientasks.go checkInputRequests) is cut
// under the void id wherever the tracker meets it — resultType in the head
// or an inputRequests member after megabytes of content — and the call
// fails with an error, for a legacy client (which cannot get it unbridged)
// and a 2026-07-28 one (whose capabilities could not be checked) alike. A
// long complete result still streams, and the session goes on.
func TestStreamedInputRequiredIsCut(t *testing.T) {
	p, out := framingProxy(t, lockfile.EraModern)
	p.gate.state = gateOpen
	p.ids.Put(1, &call{Call: idmap.Call{ClientID: []byte(`"legacy"`)}, method: "tools/call"})
	p.ids.Put(2, &call{Call: idmap.Call{ClientID: []byte(`"modern"`)}, method: "tools/call", modern: true, caps: []byte(`{}`)})
	p.ids.Put(3, &call{Call: idmap.Call{ClientID: []byte(`"typed"`)}, method: "tools/call", modern: true, caps: []byte(`{"sampling":{}}`)})
	p.ids.Put(4, &call{Call: idmap.Call{ClientID: []byte(`"fine"`)}, method: "tools/call", modern: true, caps: []byte(`{}`)})
	big := bigText(1 << 20)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":{"pad":"` + big + `"}}},"requestState":"s"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + big + `"}],"inputRequests":{"x":{"method":"sampling/createMessage","params":{}}},"resultType":"input_required"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + big + `"}],"resultType":"input_required"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"` + big + `"}]}}`,
	}, "\n") + "\n"
	if err := p.readServerStream(&chunked{data: []byte(in), n: 7919}, 0); !errors.Is(err, io.EOF) {
		t.Fatalf("the session ended with %v; want it to go on", err)
	}
	lines := checkLines(t, out.String())
	errs := map[string]bool{}
	for _, l := range lines {
		var m struct {
			ID     json.RawMessage
			Error  *struct{ Message string }
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		id := string(m.ID)
		switch {
		case strings.HasPrefix(id, `"mcpsum-void-`):
		case m.Error != nil:
			errs[id] = true
			if !strings.Contains(m.Error.Message, "input_required") {
				t.Errorf("call %s: error %q does not say why", id, m.Error.Message)
			}
		case id == `"fine"`:
			if !strings.Contains(string(m.Result), big) {
				t.Errorf("the complete result was not forwarded whole")
			}
		default:
			t.Errorf("call %s got a result: %.200s", id, l)
		}
	}
	for _, id := range []string{`"legacy"`, `"modern"`, `"typed"`} {
		if !errs[id] {
			t.Errorf("call %s got no error; lines: %.300q", id, lines)
		}
	}
	if errs[`"fine"`] {
		t.Errorf("a complete result was refused")
	}
}
