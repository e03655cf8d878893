package mcphttp

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A server that drops one request (its POST's connection closed before
// any answer: a reset, a crashed worker behind a load balancer) fails that
// request, not the session: the request is Unanswered with the reason and
// the next request goes out on a new connection, in both eras.
func TestDroppedRequest(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := map[bool]string{false: "modern", true: "legacy"}[legacy]
		t.Run(name, func(t *testing.T) {
			sid, params := "", `{"name":"echo","arguments":{},`+modernMeta+`}`
			script := map[key]answer{}
			if legacy {
				sid, params, script = "s1", `{"name":"echo","arguments":{}}`, legacyScript()
			}
			var calls atomic.Int32
			script[key{"POST", sid, "tools/call"}] = func(w http.ResponseWriter, r *got) {
				if calls.Add(1) == 1 {
					panic(http.ErrAbortHandler) // FAKE: the connection closed, nothing answered
				}
				jsonAnswer(200, nil, `{"jsonrpc":"2.0","id":%ID,"result":{"content":[]}}`)(w, r)
			}
			f := newFake(t, script)
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{})
			if legacy {
				handshake(t, s, r)
			}
			if err := s.Send(request(5, "tools/call", params)); err != nil {
				t.Fatal(err)
			}
			u := r.nextUnanswered(t)
			if u.id != "5" || u.err == nil || !strings.Contains(u.err.Error(), "tools/call") {
				t.Fatalf("the dropped request: %s %v", u.id, u.err)
			}
			if err := s.Send(request(6, "tools/call", params)); err != nil {
				t.Fatalf("the request after a dropped one: %v", err)
			}
			if m := r.next(t); !strings.Contains(m, `"id":6`) {
				t.Fatalf("the request after a dropped one was answered %q", m)
			}
			r.quiet(t)
		})
	}
}

// A response (or notification) whose POST is dropped on a kept connection
// (the server restarted, as TestProxyRemoteRestartRenews saw under load)
// goes once more on a new connection instead of ending the session; a
// second drop still ends it.
func TestDroppedResponseResent(t *testing.T) {
	script := legacyScript()
	var posts atomic.Int32
	script[key{"POST", "s1", ""}] = func(w http.ResponseWriter, r *got) {
		if n := posts.Add(1); n == 1 || n >= 3 {
			panic(http.ErrAbortHandler) // FAKE: the connection closed, nothing answered
		}
		w.WriteHeader(http.StatusAccepted)
	}
	f := newFake(t, script)
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	if err := s.Send([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)); err != nil {
		t.Fatalf("a response dropped once: %v", err)
	}
	if n := len(f.requests(key{"POST", "s1", ""})); n != 2 {
		t.Errorf("the response was posted %d times, want 2", n)
	}
	if err := s.Send(request(8, "tools/list", "")); err != nil {
		t.Fatalf("the session after a resent response: %v", err)
	}
	if m := r.next(t); !strings.Contains(m, `"id":8`) {
		t.Fatalf("tools/list after a resent response was answered %q", m)
	}
	if err := s.Send([]byte(`{"jsonrpc":"2.0","id":9,"result":{}}`)); err == nil {
		t.Error("a response dropped twice: no error")
	}
}

// A server that answered and then refuses connections for a while (it
// restarts: nothing listens on its port until it is up again) gets the
// next request once it listens again; the request is not failed with
// "connection refused" (TestProxyRemoteRestartRenews saw that under load).
func TestRestartingServerRefusesThenListens(t *testing.T) {
	script := legacyScript()
	script[key{"POST", "s1", "tools/call"}] = jsonAnswer(200, nil, `{"jsonrpc":"2.0","id":%ID,"result":{"content":[]}}`)
	f := newFake(t, script)
	f.srv.Config.SetKeepAlivesEnabled(false) // no kept connection: the next POST dials
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	handshake(t, s, r)
	addr := f.srv.Listener.Addr().String()
	f.srv.Listener.Close() // down: connections to addr are refused
	f.srv.CloseClientConnections()
	up := make(chan *http.Server, 1)
	go func() {
		time.Sleep(500 * time.Millisecond) // restarting
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen again on %s: %v", addr, err)
			up <- nil
			return
		}
		srv := &http.Server{Handler: f}
		srv.SetKeepAlivesEnabled(false)
		up <- srv
		srv.Serve(l)
	}()
	if err := s.Send(request(5, "tools/call", `{"name":"echo","arguments":{}}`)); err != nil {
		t.Fatal(err)
	}
	if m := r.next(t); !strings.Contains(m, `"id":5`) || strings.Contains(m, "error") {
		t.Fatalf("the request to the restarted server was answered %q", m)
	}
	if srv := <-up; srv != nil {
		srv.Close()
	}
}
