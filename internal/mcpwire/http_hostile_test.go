package mcpwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
)

// fakeHostileHTTP is a hand-written Streamable HTTP server (legacy era) that
// behaves in ways no real server shows on purpose: it expires sessions,
// redirects, floods SSE events, splits one message across events, sends an
// oversized event. It is a fake, named so; the real servers' tests are in
// http_peers_test.go.
type fakeHostileHTTP struct {
	mode string

	mu       sync.Mutex
	sessions int      // sessions handed out
	deleted  []string // DELETEd session ids
	inits    int
	lists    int
	srv      *httptest.Server
}

func newFakeHostileHTTP(t *testing.T, mode string) *fakeHostileHTTP {
	f := &fakeHostileHTTP{mode: mode}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHostileHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodDelete:
		f.deleted = append(f.deleted, sid)
		return
	case http.MethodGet:
		http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	m, err := Decode(body)
	if err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	current := fmt.Sprintf("s%d", f.sessions)
	switch {
	case m.Method == "server/discover":
		http.Error(w, "Bad Request: no session", http.StatusBadRequest)
	case m.Method == "initialize":
		f.inits++
		f.sessions++
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", f.sessions))
		name := "fake"
		if f.mode == "expire-drift" && f.inits > 1 {
			name = "fake-redeployed"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":%q,"version":"1"}}}`, m.ID, name)
	case sid != current:
		http.Error(w, "session not found", http.StatusNotFound)
	case m.Method == "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/list":
		f.lists++
		f.toolsList(w, m)
	default:
		http.Error(w, "unexpected "+m.Method, http.StatusBadRequest)
	}
}

const fakeTools = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`

func (f *fakeHostileHTTP) toolsList(w http.ResponseWriter, m *Message) {
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, fakeTools)
	sse := func(events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
		}
	}
	switch f.mode {
	case "expire", "expire-drift":
		if f.lists == 1 { // the session expires on the first list
			f.sessions++
			http.Error(w, "session expired", http.StatusNotFound)
			return
		}
	case "redirect-elsewhere", "redirect-303":
		to := "http://127.0.0.2:1/elsewhere"
		status := http.StatusTemporaryRedirect
		if f.mode == "redirect-303" {
			to, status = f.srv.URL+"/moved", http.StatusSeeOther
		}
		w.Header().Set("Location", to)
		w.WriteHeader(status)
		return
	case "flood":
		w.Header().Set("Content-Type", "text/event-stream")
		note := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
		for i := 0; i < 20000; i++ {
			w.Write(note)
		}
		fmt.Fprintf(w, "data: %s\n\n", resp)
		return
	case "split":
		half := len(resp) / 2
		sse("data: "+resp[:half]+"\n\n", "data: "+resp[half:]+"\n\n")
		return
	case "two-in-one":
		sse("data: " + resp + resp + "\n\n")
		return
	case "chunked-lines": // one event over several data lines and CRLF endings: legal SSE
		sse(": comment\r\n", "id: 7\r\n", "data: "+resp[:10]+"\r\n", "data: "+resp[10:]+"\r\n", "\r\n")
		return
	case "huge":
		sse("data: " + strings.Repeat(" ", 2<<20) + resp + "\n\n")
		return
	case "big": // an 8 MiB answer in one SSE event
		big := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","description":"%s","inputSchema":{"type":"object"}}]}}`, m.ID, strings.Repeat("x", 8<<20))
		sse("data: " + big + "\n\n")
		return
	case "unauthorized":
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://example.com/.well-known/oauth-protected-resource"`)
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, resp)
}

func listFake(t *testing.T, f *fakeHostileHTTP, spec mcphttp.Spec) (*Client, *Surface, error) {
	t.Helper()
	if spec.URL == "" {
		spec.URL = f.srv.URL + "/mcp"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, h, err := Probe(ctx, httpStart(t, spec), 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	s, err := ListAll(ctx, c, h)
	return c, s, err
}

func TestHTTPSessionExpiryRenews(t *testing.T) {
	f := newFakeHostileHTTP(t, "expire")
	c, s, err := listFake(t, f, mcphttp.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 1 || c.Transport().(*HTTP).Renewals() != 1 {
		t.Fatalf("%d tools, %d renewals; want 1 tool after one renewal", len(s.Tools), c.Transport().(*HTTP).Renewals())
	}
	c.Close(time.Second)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.deleted) != 1 || f.deleted[0] != "s3" {
		t.Fatalf("DELETEd sessions %q, want the renewed session s3 once (s1 expired, s2 was the fake's bump)", f.deleted)
	}
}

func TestHTTPSessionRenewalMustMatch(t *testing.T) {
	f := newFakeHostileHTTP(t, "expire-drift")
	_, _, err := listFake(t, f, mcphttp.Spec{})
	if err == nil || !strings.Contains(err.Error(), "InitializeResult differs") {
		t.Fatalf("got %v, want the renewed session's different InitializeResult refused", err)
	}
}

func TestHTTPRedirectRefused(t *testing.T) {
	for _, mode := range []string{"redirect-elsewhere", "redirect-303"} {
		t.Run(mode, func(t *testing.T) {
			f := newFakeHostileHTTP(t, mode)
			var notes []string
			var mu sync.Mutex
			_, _, err := listFake(t, f, mcphttp.Spec{Note: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }})
			var re *mcphttp.RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *mcphttp.RedirectError", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(notes) != 1 || !strings.Contains(notes[0], "refused a redirect") {
				t.Fatalf("notes %q, want the refusal logged once", notes)
			}
		})
	}
}

func TestHTTPSSEEvents(t *testing.T) {
	for mode, want := range map[string]string{
		"split":         "one JSON-RPC message",
		"two-in-one":    "one JSON-RPC message",
		"huge":          "limit",
		"unauthorized":  "needs credentials",
		"flood":         "",
		"chunked-lines": "",
	} {
		t.Run(mode, func(t *testing.T) {
			f := newFakeHostileHTTP(t, mode)
			c, s, err := listFake(t, f, mcphttp.Spec{MaxMessage: 1 << 20})
			if want == "" {
				if err != nil || len(s.Tools) != 1 {
					t.Fatalf("got %v, want the one tool", err)
				}
				if mode == "flood" && c.Notifications()["notifications/message"] != 20000 {
					t.Fatalf("%d notifications, want 20000 delivered one by one", c.Notifications()["notifications/message"])
				}
				c.Close(time.Second)
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want an error mentioning %q", err, want)
			}
		})
	}
}

// BenchmarkHTTPSSE8MiB reads an 8 MiB tools/list answer sent as one SSE
// event; B/op over the payload is what the transport holds per event (the
// event's data, and the message handed to the client).
func BenchmarkHTTPSSE8MiB(b *testing.B) {
	f := &fakeHostileHTTP{mode: "big"}
	f.srv = httptest.NewServer(f)
	defer f.srv.Close()
	ctx := context.Background()
	c, h, err := Probe(ctx, func() (Transport, error) { return DialHTTP(mcphttp.Spec{URL: f.srv.URL + "/mcp"}) }, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(time.Second)
	b.ReportAllocs()
	b.SetBytes(8 << 20)
	for b.Loop() {
		if _, err := c.Call(ctx, "tools/list", listParams(nil, Meta(h))); err != nil {
			b.Fatal(err)
		}
	}
}

// httpStart dials spec: the start function Probe takes for a remote server.
func httpStart(t testing.TB, spec mcphttp.Spec) func() (Transport, error) {
	return func() (Transport, error) {
		h, err := DialHTTP(spec)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
}
