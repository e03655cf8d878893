package mcphttp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The legacy session's life: initialize without a session id or version;
// every later request with the Mcp-Session-Id the server assigned and the
// negotiated MCP-Protocol-Version; the GET stream opened once
// notifications/initialized was accepted (its messages reach the sink);
// DELETE with the session id on Stop, once, and the sink told ErrClosed.
func TestLegacyLifecycle(t *testing.T) {
	script := legacyScript()
	script[key{"GET", "s1", ""}] = sseAnswer(nil, "id: g1\n"+data(logNote))
	f := newFake(t, script)
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{}, func(sp *Spec) { sp.Header = http.Header{"X-Api-Key": {"k"}} })
	handshake(t, s, r)
	init := f.requests(key{"POST", "", "initialize"})[0]
	if init.header.Get("MCP-Protocol-Version") != "" || init.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize carried a version or session: %v", init.header)
	}
	if init.header.Get("Accept") != "application/json, text/event-stream" || init.header.Get("Content-Type") != "application/json" || init.header.Get("X-Api-Key") != "k" {
		t.Errorf("initialize headers %v", init.header)
	}
	if note := f.requests(key{"POST", "s1", "notifications/initialized"}); len(note) != 1 || note[0].header.Get("MCP-Protocol-Version") != "2025-11-25" {
		t.Fatalf("notifications/initialized: %+v", note)
	}
	if m := r.next(t); m != logNote {
		t.Fatalf("the GET stream's message: %q", m)
	}
	get := f.waitFor(key{"GET", "s1", ""}, 1)[0]
	if get.header.Get("Accept") != "text/event-stream" || get.header.Get("MCP-Protocol-Version") != "2025-11-25" || get.header.Get("X-Api-Key") != "k" {
		t.Errorf("GET headers %v", get.header)
	}
	if err := s.Send(request(1, "tools/list", "")); err != nil {
		t.Fatal(err)
	}
	if m := r.next(t); !strings.Contains(m, `"echo"`) {
		t.Fatalf("tools/list answered %q", m)
	}
	if s.Renewals() != 0 {
		t.Errorf("%d renewals", s.Renewals())
	}
	s.Stop(time.Second)
	s.Stop(time.Second)
	if err := r.end(t); !errors.Is(err, ErrClosed) {
		t.Fatalf("ended with %v, want ErrClosed", err)
	}
	if d := f.requests(key{"DELETE", "s1", ""}); len(d) != 1 || d[0].header.Get("X-Api-Key") != "k" {
		t.Fatalf("DELETEs %+v, want one with the spec's headers", d)
	}
	if err := s.Send(request(2, "tools/list", "")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Stop: %v", err)
	}
	if s.Err() != ErrClosed {
		t.Fatalf("Err() = %v", s.Err())
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done is open after Stop")
	}
}

// A session the server gave no (or an invalid) Mcp-Session-Id: no session
// header, no GET stream, no DELETE.
func TestLegacyWithoutSession(t *testing.T) {
	for name, sid := range map[string]string{"none": "", "invalid": "a b", "too long": strings.Repeat("x", 1025)} {
		t.Run(name, func(t *testing.T) {
			script := map[key]answer{
				{"POST", "", "initialize"}:                jsonAnswer(200, map[string]string{"Mcp-Session-Id": sid}, initAnswer),
				{"POST", "", "notifications/initialized"}: status(http.StatusAccepted, ""),
				{"POST", "", "tools/list"}:                jsonAnswer(200, nil, toolsList),
			}
			f := newFake(t, script)
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{})
			handshake(t, s, r)
			s.Send(request(1, "tools/list", ""))
			r.next(t)
			s.Stop(time.Second)
			for _, g := range f.keys() {
				if g.http != "POST" {
					t.Fatalf("a session without an id sent %+v", g)
				}
			}
			if v := f.requests(key{"POST", "", "tools/list"})[0].header.Get("MCP-Protocol-Version"); v != "2025-11-25" {
				t.Fatalf("the negotiated version %q was not sent", v)
			}
		})
	}
}

// The GET stream reconnects when it ends, with the last event id it saw
// (Last-Event-ID), and stops for good when the server answers 405.
func TestGetStreamReconnects(t *testing.T) {
	script := legacyScript()
	var gets atomic.Int32
	script[key{"GET", "s1", ""}] = func(w http.ResponseWriter, r *got) {
		switch gets.Add(1) {
		case 1:
			sseAnswer(nil, ": hello\n\n", "id: e1\n"+data(logNote))(w, r)
		case 2:
			sseAnswer(nil, data(logNote))(w, r) // no id: the last one stays e1
		default:
			status(http.StatusMethodNotAllowed, "")(w, r)
		}
	}
	f := newFake(t, script)
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	r.next(t)
	r.next(t)
	g := f.waitFor(key{"GET", "s1", ""}, 3)
	if g[0].header.Get("Last-Event-ID") != "" || g[1].header.Get("Last-Event-ID") != "e1" || g[2].header.Get("Last-Event-ID") != "e1" {
		t.Fatalf("Last-Event-ID of the GETs: %q %q %q", g[0].header.Get("Last-Event-ID"), g[1].header.Get("Last-Event-ID"), g[2].header.Get("Last-Event-ID"))
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(f.requests(key{"GET", "s1", ""})); n != 3 {
		t.Fatalf("%d GETs after a 405, want no more than 3", n)
	}
	r.quiet(t)
}

// A GET stream that answers something else than an event stream is given
// up (no messages, the session goes on).
func TestGetStreamNotEvents(t *testing.T) {
	script := legacyScript()
	script[key{"GET", "s1", ""}] = jsonAnswer(200, nil, logNote)
	f := newFake(t, script)
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	f.waitFor(key{"GET", "s1", ""}, 1)
	s.Send(request(1, "tools/list", ""))
	if m := r.next(t); !strings.Contains(m, "echo") {
		t.Fatalf("got %q", m)
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(f.requests(key{"GET", "s1", ""})); n != 1 {
		t.Fatalf("%d GETs, want 1", n)
	}
}

// expiring makes the fake's session s1 expire: after the first answer to
// tools/list, s1 is gone (404) and initialize begins s2.
func expiring(t *testing.T, result2 string) (*fakeServer, *atomic.Int32) {
	script := legacyScript()
	var inits atomic.Int32
	script[key{"POST", "", "initialize"}] = func(w http.ResponseWriter, r *got) {
		n := inits.Add(1)
		res := fakeInit
		if n > 1 && result2 != "" {
			res = result2
		}
		sid := "s1"
		if n > 1 {
			sid = "s2"
		}
		jsonAnswer(200, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":%ID,"result":`+res+`}`)(w, r)
	}
	script[key{"POST", "s1", "tools/list"}] = status(http.StatusNotFound, "session expired")
	script[key{"POST", "s2", "notifications/initialized"}] = status(http.StatusAccepted, "")
	script[key{"POST", "s2", "tools/list"}] = jsonAnswer(200, nil, toolsList)
	script[key{"GET", "s2", ""}] = status(http.StatusMethodNotAllowed, "")
	script[key{"DELETE", "s2", ""}] = status(http.StatusOK, "")
	return newFake(t, script), &inits
}

// An expired session (404 to a request of it) is renewed: initialize
// replayed exactly, without the old session or version; its answer goes
// to Hooks.Renewed with the first one, not to the sink;
// notifications/initialized follows; the request is sent again on the new
// session and its answer reaches the sink. DELETE ends the new session.
func TestRenewal(t *testing.T) {
	f, _ := expiring(t, "")
	r := newRecorder()
	var first, renewed json.RawMessage
	s := open(t, f, r, r.sink(), Hooks{Renewed: func(a, b json.RawMessage) (func() error, error) {
		first, renewed = a, b
		return nil, nil
	}})
	handshake(t, s, r)
	s.Send(request(1, "tools/list", ""))
	if m := r.next(t); !strings.Contains(m, "echo") {
		t.Fatalf("got %q", m)
	}
	if string(first) != fakeInit || string(renewed) != fakeInit {
		t.Fatalf("Renewed(%s, %s)", first, renewed)
	}
	inits := f.requests(key{"POST", "", "initialize"})
	if len(inits) != 2 || inits[1].body != initialize || inits[1].header.Get("MCP-Protocol-Version") != "" {
		t.Fatalf("initialize requests %+v, want the first replayed as is", inits)
	}
	if len(f.requests(key{"POST", "s2", "notifications/initialized"})) != 1 || len(f.requests(key{"POST", "s2", "tools/list"})) != 1 {
		t.Fatalf("requests %v", f.keys())
	}
	if s.Renewals() != 1 {
		t.Fatalf("%d renewals", s.Renewals())
	}
	s.Stop(time.Second)
	if d := f.requests(key{"DELETE", "s2", ""}); len(d) != 1 {
		t.Fatalf("DELETEs: %v", f.keys())
	}
	if err := r.end(t); err != ErrClosed {
		t.Fatalf("ended with %v", err)
	}
	r.quiet(t)
}

// Requests that find the session expired at once renew it once; each goes
// on in the new session.
func TestRenewalOnce(t *testing.T) {
	f, inits := expiring(t, "")
	r := newRecorder()
	var hooks atomic.Int32
	s := open(t, f, r, r.sink(), Hooks{Renewed: func(_, _ json.RawMessage) (func() error, error) {
		hooks.Add(1)
		return nil, nil
	}})
	handshake(t, s, r)
	for i := 1; i <= 5; i++ {
		s.Send(request(i, "tools/list", ""))
	}
	for i := 0; i < 5; i++ {
		r.next(t)
	}
	if inits.Load() != 2 || hooks.Load() != 1 || s.Renewals() != 1 {
		t.Fatalf("%d initialize, %d Renewed, %d renewals; want one renewal", inits.Load(), hooks.Load(), s.Renewals())
	}
}

// Hooks.Renewed refusing the new session (a different InitializeResult, a
// surface that changed) ends the session with its error; the request gets
// no answer.
func TestRenewalRefused(t *testing.T) {
	f, _ := expiring(t, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"other","version":"2"}}`)
	r := newRecorder()
	refusal := errors.New("the new session differs")
	s := open(t, f, r, r.sink(), Hooks{Renewed: func(a, b json.RawMessage) (func() error, error) {
		if string(a) == string(b) {
			t.Error("the renewed result is the first one")
		}
		return nil, refusal
	}})
	handshake(t, s, r)
	s.Send(request(1, "tools/list", ""))
	if err := r.end(t); !errors.Is(err, refusal) {
		t.Fatalf("ended with %v", err)
	}
	r.quiet(t)
}

// A renewal whose initialize fails ends the session saying so.
func TestRenewalFails(t *testing.T) {
	for name, a := range map[string]answer{
		"status":     status(http.StatusInternalServerError, "down"),
		"no session": jsonAnswer(200, nil, initAnswer),
		"error":      jsonAnswer(200, map[string]string{"Mcp-Session-Id": "s2"}, `{"jsonrpc":"2.0","id":%ID,"error":{"code":-32603,"message":"no"}}`),
		"sse":        sseAnswer(map[string]string{"Mcp-Session-Id": "s2"}, data(logNote)),
	} {
		t.Run(name, func(t *testing.T) {
			f, _ := expiring(t, "")
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{})
			handshake(t, s, r)
			f.set(key{"POST", "", "initialize"}, a)
			s.Send(request(1, "tools/list", ""))
			errorHas(t, r.end(t), "the session expired (HTTP 404) and a new one could not be started")
		})
	}
}

// A renewal whose initialize is answered on an SSE stream (after other
// events) takes the answer's event.
func TestRenewalSSE(t *testing.T) {
	f, _ := expiring(t, "")
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	f.set(key{"POST", "", "initialize"}, sseAnswer(map[string]string{"Mcp-Session-Id": "s2"}, data(logNote), data(initAnswer)))
	s.Send(request(1, "tools/list", ""))
	if m := r.next(t); !strings.Contains(m, "echo") {
		t.Fatalf("got %q", m)
	}
}

// After a renewal, a request of the caller waits for the wait Hooks.Renewed
// returned (the caller's check of the new session); a request the caller
// marks its own (Hooks.Own) does not.
func TestRenewalWait(t *testing.T) {
	f, _ := expiring(t, "")
	r := newRecorder()
	release := make(chan error)
	var waited atomic.Int32
	s := open(t, f, r, r.sink(), Hooks{
		Renewed: func(_, _ json.RawMessage) (func() error, error) {
			return func() error { waited.Add(1); return <-release }, nil
		},
		Own: func(id []byte) bool { return string(id) == "7" },
	})
	handshake(t, s, r)
	s.Send(request(1, "tools/list", ""))
	f.waitFor(key{"POST", "s2", "notifications/initialized"}, 1)
	s.Send(request(7, "tools/list", ""))
	if m := r.next(t); !strings.Contains(m, `"id":7`) {
		t.Fatalf("the own request's answer: %q", m)
	}
	r.quiet(t)
	release <- nil
	if m := r.next(t); !strings.Contains(m, `"id":1`) {
		t.Fatalf("after the check: %q", m)
	}
	if waited.Load() != 1 {
		t.Fatalf("waited %d times", waited.Load())
	}
	// a failed check ends the session for the caller's requests
	f.set(key{"POST", "s2", "tools/list"}, status(http.StatusNotFound, "gone again"))
	f.set(key{"POST", "", "initialize"}, jsonAnswer(200, map[string]string{"Mcp-Session-Id": "s3"}, initAnswer))
	f.set(key{"POST", "s3", "notifications/initialized"}, status(http.StatusAccepted, ""))
	s.Send(request(2, "tools/list", ""))
	refused := errors.New("quarantined")
	release <- refused
	if err := r.end(t); !errors.Is(err, refused) {
		t.Fatalf("ended with %v", err)
	}
}

// A notification that finds the session expired renews it and is sent
// again; one the server refuses ends the session (Send says why).
func TestNotificationRenewsOrFails(t *testing.T) {
	f, _ := expiring(t, "")
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	f.set(key{"POST", "s1", "notifications/roots/list_changed"}, status(http.StatusNotFound, ""))
	f.set(key{"POST", "s2", "notifications/roots/list_changed"}, status(http.StatusAccepted, ""))
	if err := s.Send(notification("notifications/roots/list_changed")); err != nil {
		t.Fatal(err)
	}
	if len(f.requests(key{"POST", "s2", "notifications/roots/list_changed"})) != 1 || s.Renewals() != 1 {
		t.Fatalf("requests %v", f.keys())
	}
	f.set(key{"POST", "s2", "notifications/progress"}, status(http.StatusInternalServerError, "broken"))
	err := s.Send(notification("notifications/progress"))
	var hs *HTTPStatusError
	if !errors.As(err, &hs) || hs.Status != 500 || string(hs.Body) != "broken\n" {
		t.Fatalf("Send: %v", err)
	}
	if end := r.end(t); end != err {
		t.Fatalf("ended with %v, want Send's error", end)
	}
}

// A 404 on the GET stream renews the session too; the stream then runs in
// the new one.
func TestGetStreamRenews(t *testing.T) {
	f, _ := expiring(t, "")
	var once sync.Once
	f.set(key{"GET", "s1", ""}, func(w http.ResponseWriter, r *got) {
		once.Do(func() { time.Sleep(10 * time.Millisecond) })
		status(http.StatusNotFound, "")(w, r)
	})
	f.set(key{"GET", "s2", ""}, sseAnswer(nil, data(logNote)))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	if m := r.next(t); m != logNote {
		t.Fatalf("got %q", m)
	}
	if s.Renewals() != 1 {
		t.Fatalf("%d renewals", s.Renewals())
	}
}

// tsNoSession is the TypeScript SDK servers' answer to a session id they
// do not know (after a restart): HTTP 400, not 404.
const tsNoSession = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`

// A restarted server that answers the old session id with 400 (the
// TypeScript SDK's) is renewed as after a 404, once a ping of the session
// is refused too: the request goes on in the new session, and the new
// session gets a GET stream, whose messages reach the sink (the old
// session's GET stream had stopped: no stream was offered for it).
func TestRenewalOn400(t *testing.T) {
	f, inits := expiring(t, "")
	f.set(key{"POST", "s1", "tools/list"}, jsonAnswer(400, nil, tsNoSession))
	f.set(key{"POST", "s1", "ping"}, jsonAnswer(400, nil, tsNoSession))
	f.set(key{"GET", "s2", ""}, sseAnswer(nil, data(logNote)))
	r := newRecorder()
	var renewed atomic.Int32
	s := open(t, f, r, r.sink(), Hooks{Renewed: func(_, _ json.RawMessage) (func() error, error) {
		renewed.Add(1)
		return nil, nil
	}})
	handshake(t, s, r)
	f.waitFor(key{"GET", "s1", ""}, 1)
	s.Send(request(1, "tools/list", ""))
	got := map[string]bool{}
	for i := 0; i < 2; i++ {
		got[r.next(t)] = true
	}
	if !got[logNote] || len(got) != 2 {
		t.Fatalf("the sink got %v, want the answer and the new session's GET stream's message", got)
	}
	for m := range got {
		if m != logNote && !strings.Contains(m, "echo") {
			t.Fatalf("the sink got %q", m)
		}
	}
	if inits.Load() != 2 || renewed.Load() != 1 || s.Renewals() != 1 {
		t.Fatalf("%d initialize, %d Renewed, %d renewals", inits.Load(), renewed.Load(), s.Renewals())
	}
}

// A 400 that is the request's own (the session answers a ping) renews
// nothing: the request is unanswered with the 400, the session goes on,
// and the ping's answer goes nowhere.
func TestBadRequestIsNotExpiry(t *testing.T) {
	f, inits := expiring(t, "")
	f.set(key{"POST", "s1", "tools/list"}, status(http.StatusBadRequest, "Bad Request: invalid params"))
	f.set(key{"POST", "s1", "ping"}, jsonAnswer(200, nil, `{"jsonrpc":"2.0","id":%ID,"result":{}}`))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	s.Send(request(1, "tools/list", ""))
	fl := r.nextUnanswered(t)
	var hs *HTTPStatusError
	if fl.id != "1" || !errors.As(fl.err, &hs) || hs.Status != 400 {
		t.Fatalf("unanswered %s: %v", fl.id, fl.err)
	}
	if inits.Load() != 1 || s.Renewals() != 0 || len(f.requests(key{"POST", "s1", "ping"})) != 1 {
		t.Fatalf("%d initialize, %d renewals, pings %v", inits.Load(), s.Renewals(), f.keys())
	}
	r.quiet(t)
	if s.Err() != nil {
		t.Fatalf("the session ended: %v", s.Err())
	}
}

// A request's SSE stream that the server closes before the answer, after
// an event with an id and a retry field, is resumed (SEP-1699): a GET with
// Last-Event-ID after the retry time, whose stream brings the answer to
// the sink. A stream without event ids cannot be resumed: the request is
// unanswered.
func TestResumeClosedStream(t *testing.T) {
	script := legacyScript()
	script[key{"POST", "s1", "tools/call"}] = sseAnswer(nil, "id: p1\nretry: 10\ndata: \n\n")
	script[key{"GET", "s1", ""}] = func(w http.ResponseWriter, r *got) {
		if r.header.Get("Last-Event-ID") != "p1" {
			status(http.StatusMethodNotAllowed, "")(w, r)
			return
		}
		sseAnswer(nil, "id: p2\ndata: "+strings.ReplaceAll(callResult, "%ID", "5")+"\n\n")(w, r)
	}
	f := newFake(t, script)
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	s.Send(request(5, "tools/call", `{"name":"echo"}`))
	if m := r.next(t); m != strings.ReplaceAll(callResult, "%ID", "5") {
		t.Fatalf("got %q", m)
	}
	f.set(key{"POST", "s1", "tools/call"}, sseAnswer(nil, ": no ids\n\n"))
	s.Send(request(6, "tools/call", `{"name":"echo"}`))
	if fl := r.nextUnanswered(t); fl.id != "6" {
		t.Fatalf("unanswered %s: %v", fl.id, fl.err)
	}
	if n := len(f.requests(key{"GET", "s1", ""})); n != 2 {
		t.Fatalf("%d GETs, want the stream's and one resumption", n)
	}
}

// A renewal has a time limit: a server that expires the session and then
// never answers the replayed initialize ends the session with an error
// saying so, instead of holding the request forever.
func TestRenewalTimeLimit(t *testing.T) {
	defer func(d time.Duration) { renewLimit = d }(renewLimit)
	renewLimit = 500 * time.Millisecond
	f, inits := expiring(t, "")
	hang := make(chan struct{})
	defer close(hang)
	f.set(key{"POST", "", "initialize"}, func(w http.ResponseWriter, r *got) {
		if inits.Add(1) > 1 {
			<-hang // the replayed initialize: no answer
			return
		}
		jsonAnswer(200, map[string]string{"Mcp-Session-Id": "s1"}, initAnswer)(w, r)
	})
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	s.Send(request(1, "tools/list", ""))
	if err := r.end(t); err == nil || !strings.Contains(err.Error(), "no new session within 500ms") {
		t.Fatalf("ended with %v, want the renewal's time limit", err)
	}
}
