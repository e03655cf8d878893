package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A 2026-07-28 request is a stateless POST: MCP-Protocol-Version from its
// _meta (never a legacy session's), Mcp-Method, Mcp-Name for tools/call,
// prompts/get and resources/read (base64-wrapped when not plain ASCII), the
// Mcp-Param-* headers of the locked tool's x-mcp-header annotations, and
// no Mcp-Session-Id even when a legacy session exists.
func TestModernHeaders(t *testing.T) {
	script := legacyScript()
	for _, m := range []string{"tools/call", "prompts/get", "resources/read", "tools/list", "server/discover"} {
		script[key{"POST", "", m}] = jsonAnswer(200, nil, `{"jsonrpc":"2.0","id":%ID,"result":{}}`)
	}
	f := newFake(t, script)
	r := newRecorder()
	tools := []json.RawMessage{json.RawMessage(`{"name":"héllo","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`)}
	s := open(t, f, r, r.sink(), Hooks{}, func(sp *Spec) { sp.Tools = tools })
	handshake(t, s, r) // a legacy session s1 exists: modern requests must not use it
	for i, c := range []struct {
		method, params string
		name, param    string // the Mcp-Name and Mcp-Param-Region headers wanted
	}{
		{"tools/call", `{"name":"héllo","arguments":{"region":"eu-1"},` + modernMeta + `}`, "=?base64?aMOpbGxv?=", "eu-1"},
		{"prompts/get", `{"name":" padded ",` + modernMeta + `}`, "=?base64?IHBhZGRlZCA=?=", ""},
		{"resources/read", `{"uri":"file:///a",` + modernMeta + `}`, "file:///a", ""},
		{"tools/list", `{` + modernMeta + `}`, "", ""},
		{"server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`, "", ""},
	} {
		if err := s.Send(request(10+i, c.method, c.params)); err != nil {
			t.Fatal(err)
		}
		r.next(t)
		g := f.requests(key{"POST", "", c.method})
		if len(g) != 1 {
			t.Fatalf("%s: the modern request was not sent without a session: %v", c.method, f.keys())
		}
		h := g[0].header
		version := "2026-07-28"
		if c.method == "server/discover" {
			version = "2027-01-01"
		}
		if h.Get("MCP-Protocol-Version") != version || h.Get("Mcp-Method") != c.method || h.Get("Mcp-Name") != c.name || h.Get("Mcp-Param-Region") != c.param {
			t.Errorf("%s: headers %v", c.method, h)
		}
	}
	// a legacy request of the session carries none of them
	s.Send(request(20, "tools/list", ""))
	r.next(t)
	h := f.requests(key{"POST", "s1", "tools/list"})[0].header
	if h.Get("Mcp-Method") != "" || h.Get("Mcp-Name") != "" || h.Get("MCP-Protocol-Version") != "2025-11-25" {
		t.Errorf("legacy request headers %v", h)
	}
}

// _meta that names no 2026-07-28 version, or not as a version, makes no
// modern headers.
func TestModernVersionRead(t *testing.T) {
	for params, want := range map[string]string{
		`{` + modernMeta + `}`: "2026-07-28",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`: "",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"latest"}}`:     "",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`:     "",
		`{"_meta":{"io.modelcontextprotocol/protocolversion":"2026-07-28"}}`: "",
		`{"_meta":{"other":1}}`: "",
		`{"_meta":[]}`:          "",
		`{}`:                    "",
	} {
		m, err := readEnvelope(request(1, "tools/list", params))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := modernOf(&m); got.version != want {
			t.Errorf("%s: version %q, want %q", params, got.version, want)
		}
	}
	n, _ := readEnvelope([]byte(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if _, ok := modernOf(&n); ok {
		t.Error("a response got a version")
	}
}

// The header value encoding of SEP-2243: plain printable ASCII as is;
// edge spaces or tabs, control or non-ASCII characters, or text that looks
// like an encoded value, base64-wrapped.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"plain name":     "plain name",
		" lead":          "=?base64?IGxlYWQ=?=",
		"trail\t":        "=?base64?dHJhaWwJ?=",
		"ünï":            "=?base64?w7xuw68=?=",
		"line\nbreak":    "=?base64?bGluZQpicmVhaw==?=",
		"=?base64?x?=":   "=?base64?PT9iYXNlNjQ/eD89?=",
		"=?base64?x":     "=?base64?x",
		"":               "",
		"tab\tinside ok": "=?base64?dGFiCWluc2lkZSBvaw==?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// Session ids: visible ASCII, 1 to 1024 bytes.
func TestValidSessionID(t *testing.T) {
	for id, ok := range map[string]bool{"abc-123": true, "": false, "a b": false, "é": false, "\x7f": false, strings.Repeat("x", 1024): true, strings.Repeat("x", 1025): false} {
		if validSessionID(id) != ok {
			t.Errorf("validSessionID(%q) != %v", id, ok)
		}
	}
}

// Cancelling a 2026-07-28 request closes its POST and sends nothing (the
// closed POST is the cancellation); the request is not reported
// unanswered. In a legacy session the notification goes to the server
// too, and the POST is closed as well.
func TestCancel(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := map[bool]string{false: "modern", true: "legacy"}[legacy]
		t.Run(name, func(t *testing.T) {
			closed := make(chan struct{}, 1)
			var sid string
			script := legacyScript()
			if legacy {
				sid = "s1"
			}
			script[key{"POST", sid, "tools/call"}] = func(w http.ResponseWriter, r *got) {
				// the handler's request context ends when the client closes the POST
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				w.(http.Flusher).Flush()
				<-w.(*ctxWriter).ctx.Done()
				closed <- struct{}{}
			}
			script[key{"POST", sid, "notifications/cancelled"}] = status(http.StatusAccepted, "")
			f := newFake(t, script)
			f.srv.Config.Handler = withContext(f)
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{})
			if legacy {
				handshake(t, s, r)
			}
			params := `{"name":"echo","arguments":{}}`
			if !legacy {
				params = `{"name":"echo","arguments":{},` + modernMeta + `}`
			}
			s.Send(request(5, "tools/call", params))
			f.waitFor(key{"POST", sid, "tools/call"}, 1)
			if err := s.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-closed:
			case <-time.After(20 * time.Second):
				t.Fatal("the cancelled request's POST was not closed")
			}
			if n := len(f.requests(key{"POST", sid, "notifications/cancelled"})); n != map[bool]int{false: 0, true: 1}[legacy] {
				t.Fatalf("%d notifications/cancelled sent", n)
			}
			time.Sleep(20 * time.Millisecond)
			r.quiet(t)
		})
	}
}

// ctxWriter hands a handler its request's context (the fake's answers see
// only the ResponseWriter).
type ctxWriter struct {
	http.ResponseWriter
	ctx context.Context
}

func (w *ctxWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func withContext(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&ctxWriter{ResponseWriter: w, ctx: r.Context()}, r)
	})
}

// A subscriptions/listen stream that ends without an answer is opened
// again (backing off) and Hooks.Relistened is told; one the server cannot
// be reached for is tried again too; an answer ends it.
func TestListenReopens(t *testing.T) {
	var n atomic.Int32
	listen := func(w http.ResponseWriter, r *got) {
		switch n.Add(1) {
		case 1:
			sseAnswer(nil, data(logNote))(w, r) // ends without an answer
		case 2:
			panic(http.ErrAbortHandler) // broken: the server went away
		default:
			sseAnswer(nil, data(`{"jsonrpc":"2.0","id":%ID,"result":{}}`))(w, r)
		}
	}
	f := newFake(t, map[key]answer{{"POST", "", "subscriptions/listen"}: listen})
	r := newRecorder()
	relistened := make(chan struct{}, 10)
	s := open(t, f, r, r.sink(), Hooks{Relistened: func() { relistened <- struct{}{} }})
	s.Send(request(1, "subscriptions/listen", `{`+modernMeta+`}`))
	if m := r.next(t); m != logNote {
		t.Fatalf("got %q", m)
	}
	if m := r.next(t); !strings.Contains(m, `"result"`) {
		t.Fatalf("got %q", m)
	}
	if n.Load() != 3 {
		t.Fatalf("%d listen POSTs, want 3", n.Load())
	}
	select {
	case <-relistened:
	case <-time.After(20 * time.Second):
		t.Fatal("Relistened was not called")
	}
	r.quiet(t)
}
