package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests of this package talk to a scripted Streamable HTTP server, after
// go-sdk's fakeStreamableServer (mcp/streamable_client_test.go): each
// request is looked up by its HTTP method, Mcp-Session-Id and JSON-RPC
// method and answered by the script; every request is recorded, so a test
// checks what the client sent as well as what it made of the answers. It
// is a FAKE: it does on purpose what no real server does (expire a session,
// cut a stream, refuse credentials, redirect). The real servers' tests are
// internal/mcpwire's http_peers_test.go and the e2e Remote tests.

// key routes a request of the fake server.
type key struct {
	http    string // GET, POST, DELETE
	session string // Mcp-Session-Id ("" none)
	method  string // the JSON-RPC method of a POST ("" a response)
}

// got is one request the fake server saw.
type got struct {
	key
	header http.Header
	body   string
	id     string // the JSON-RPC id, raw
}

// answer writes the fake server's answer to one request.
type answer func(w http.ResponseWriter, r *got)

type fakeServer struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	script map[key]answer
	seen   []got
}

func newFake(t *testing.T, script map[key]answer) *fakeServer {
	f := &fakeServer{t: t, script: script}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) url() string { return f.srv.URL + "/mcp" }

// set replaces the answer of one route.
func (f *fakeServer) set(k key, a answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[k] = a
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g := got{key: key{http: r.Method, session: r.Header.Get("Mcp-Session-Id")}, header: r.Header.Clone(), body: string(body)}
	if r.Method == http.MethodPost {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			f.t.Errorf("the client posted something that is not JSON: %q", body)
		}
		g.method, g.id = m.Method, string(m.ID)
	}
	f.mu.Lock()
	f.seen = append(f.seen, g)
	a, ok := f.script[g.key]
	f.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("the fake has no answer for %+v", g.key), http.StatusTeapot)
		return
	}
	a(w, &g)
}

// requests returns what the fake saw of one route, in order.
func (f *fakeServer) requests(k key) []got {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []got
	for _, g := range f.seen {
		if g.key == k {
			out = append(out, g)
		}
	}
	return out
}

// waitFor waits until the fake saw n requests of route k (the client sends
// some in the background: the GET stream, a DELETE).
func (f *fakeServer) waitFor(k key, n int) []got {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r := f.requests(k); len(r) >= n {
			return r
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the fake saw %d requests of %+v, want %d; all: %v", len(f.requests(k)), k, n, f.keys())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *fakeServer) keys() []key {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []key
	for _, g := range f.seen {
		out = append(out, g.key)
	}
	return out
}

// Answers of the fake.

// jsonAnswer answers with a JSON body; %ID in body is the request's id.
func jsonAnswer(status int, header map[string]string, body string) answer {
	return func(w http.ResponseWriter, r *got) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, strings.ReplaceAll(body, "%ID", r.id))
	}
}

// sseAnswer answers with an SSE stream of the raw events given (each a
// complete event with its blank line); %ID is the request's id.
func sseAnswer(header map[string]string, events ...string) answer {
	return func(w http.ResponseWriter, r *got) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			io.WriteString(w, strings.ReplaceAll(e, "%ID", r.id))
			w.(http.Flusher).Flush()
		}
	}
}

// status answers with an HTTP status and a plain body.
func status(code int, body string) answer {
	return func(w http.ResponseWriter, r *got) {
		if body == "" {
			w.WriteHeader(code)
			return
		}
		http.Error(w, body, code)
	}
}

func data(msg string) string { return "data: " + msg + "\n\n" }

const (
	fakeInit   = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`
	initAnswer = `{"jsonrpc":"2.0","id":%ID,"result":` + fakeInit + `}`
	toolsList  = `{"jsonrpc":"2.0","id":%ID,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`
	logNote    = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
)

// legacyScript is a legacy server's script with session s1: initialize,
// notifications/initialized, tools/list (JSON), no GET stream, DELETE.
func legacyScript() map[key]answer {
	return map[key]answer{
		{"POST", "", "initialize"}:                  jsonAnswer(200, map[string]string{"Mcp-Session-Id": "s1"}, initAnswer),
		{"POST", "s1", "notifications/initialized"}: status(http.StatusAccepted, ""),
		{"POST", "s1", "tools/list"}:                jsonAnswer(200, nil, toolsList),
		{"GET", "s1", ""}:                           status(http.StatusMethodNotAllowed, ""),
		{"DELETE", "s1", ""}:                        status(http.StatusOK, ""),
	}
}

// Requests the tests send.

func request(id int, method, params string) []byte {
	if params == "" {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

func notification(method string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q}`, method)
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// recorder is a Sink that records what the session hands it.
type recorder struct {
	msgs       chan string
	unanswered chan failure
	ended      chan error
	refuse     func(data []byte) error // nil: every message is taken

	mu   sync.Mutex
	long []*longMsg
}

type failure struct {
	id  string
	err error
}

type longMsg struct {
	buf bytes.Buffer
	end error
	ok  bool // end was called
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan string, 100000), unanswered: make(chan failure, 100), ended: make(chan error, 1)}
}

func (r *recorder) sink() Sink {
	return Sink{
		Message: func(data []byte) error {
			if r.refuse != nil {
				if err := r.refuse(data); err != nil {
					return err
				}
			}
			r.msgs <- string(data)
			return nil
		},
		Unanswered: func(id []byte, err error) { r.unanswered <- failure{string(id), err} },
		Ended:      func(err error) { r.ended <- err },
	}
}

// longSink is r's sink taking messages over small as they stream.
func (r *recorder) longSink(small int) Sink {
	s := r.sink()
	s.Small = small
	s.Long = func() (io.Writer, func(error)) {
		l := &longMsg{}
		r.mu.Lock()
		r.long = append(r.long, l)
		r.mu.Unlock()
		return &l.buf, func(err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			l.end, l.ok = err, true
		}
	}
	return s
}

func (r *recorder) longs() []*longMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*longMsg(nil), r.long...)
}

func (r *recorder) next(t *testing.T) string {
	t.Helper()
	// A message already delivered comes first: the session delivers a
	// request's messages before it says the request went unanswered (one
	// goroutine), and a select with both ready would pick at random
	// (TestSSEEndsWithoutAnswer failed so, once in a loaded run).
	select {
	case m := <-r.msgs:
		return m
	default:
	}
	select {
	case m := <-r.msgs:
		return m
	case err := <-r.ended:
		t.Fatalf("the session ended (%v) before the next message", err)
	case f := <-r.unanswered:
		t.Fatalf("request %s was unanswered (%v) before the next message", f.id, f.err)
	case <-time.After(20 * time.Second):
		t.Fatal("no message within 20s")
	}
	return ""
}

func (r *recorder) nextUnanswered(t *testing.T) failure {
	t.Helper()
	select {
	case f := <-r.unanswered:
		return f
	default:
	}
	select {
	case f := <-r.unanswered:
		return f
	case err := <-r.ended:
		t.Fatalf("the session ended (%v), want a request unanswered", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no request unanswered within 20s")
	}
	return failure{}
}

func (r *recorder) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.ended:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end within 20s")
	}
	return nil
}

// quiet checks that nothing more reached the sink.
func (r *recorder) quiet(t *testing.T) {
	t.Helper()
	select {
	case m := <-r.msgs:
		t.Fatalf("unexpected message %q", m)
	case f := <-r.unanswered:
		t.Fatalf("unexpected unanswered %s: %v", f.id, f.err)
	case err := <-r.ended:
		t.Fatalf("unexpected end: %v", err)
	default:
	}
}

// open starts a session with the fake; it is stopped at the test's end.
func open(t *testing.T, f *fakeServer, r *recorder, sink Sink, hooks Hooks, edit ...func(*Spec)) *Session {
	t.Helper()
	spec := Spec{URL: f.url()}
	for _, e := range edit {
		e(&spec)
	}
	s, err := New(spec, sink, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(time.Second) })
	return s
}

// handshake runs a legacy handshake on s and checks its answer arrived.
func handshake(t *testing.T, s *Session, r *recorder) {
	t.Helper()
	if err := s.Send([]byte(initialize)); err != nil {
		t.Fatal(err)
	}
	if m := r.next(t); !strings.Contains(m, `"serverInfo"`) {
		t.Fatalf("initialize answered %q", m)
	}
	if err := s.Send(notification("notifications/initialized")); err != nil {
		t.Fatal(err)
	}
}

// errorIs fails unless err's text holds every part.
func errorHas(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}
