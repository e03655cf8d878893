package mcphttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// statelessScript answers every POST without a session (2026-07-28 style);
// route answers tools/call.
func statelessScript(call answer) map[key]answer {
	return map[key]answer{{"POST", "", "tools/call"}: call}
}

func callTool(id int) []byte {
	return request(id, "tools/call", `{"name":"echo","arguments":{},`+modernMeta+`}`)
}

const callResult = `{"jsonrpc":"2.0","id":%ID,"result":{"content":[{"type":"text","text":"ok"}]}}`

// An SSE answer: the server's own messages before the answer reach the
// sink in order, events of another type and comments are skipped, one
// message over several data lines (CRLF line ends) is one message with
// its line breaks turned into tabs, and the answer ends the request.
func TestSSEAnswer(t *testing.T) {
	f := newFake(t, statelessScript(sseAnswer(nil,
		": keep-alive\n\n",
		"event: ping\ndata: {}\n\n",
		"id: 1\nevent: message\n"+data(logNote),
		"retry: 10\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%ID,\"result\":{}}\r\n\r\n",
	)))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	if err := s.Send(callTool(3)); err != nil {
		t.Fatal(err)
	}
	if m := r.next(t); m != logNote {
		t.Fatalf("first %q", m)
	}
	if m := r.next(t); m != "{\"jsonrpc\":\"2.0\",\t\"id\":3,\"result\":{}}" {
		t.Fatalf("the answer %q", m)
	}
	time.Sleep(20 * time.Millisecond)
	r.quiet(t)
}

// Many events in one answer all reach the sink, one at a time.
func TestSSEFlood(t *testing.T) {
	events := make([]string, 0, 5001)
	for range 5000 {
		events = append(events, data(logNote))
	}
	f := newFake(t, statelessScript(sseAnswer(nil, append(events, data(callResult))...)))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	for i := range 5000 {
		if m := r.next(t); m != logNote {
			t.Fatalf("message %d: %q", i, m)
		}
	}
	if m := r.next(t); !strings.Contains(m, `"ok"`) {
		t.Fatalf("the answer %q", m)
	}
}

// A stream that ends, or breaks, before the answer leaves the request
// unanswered; the session goes on.
func TestSSEEndsWithoutAnswer(t *testing.T) {
	f := newFake(t, statelessScript(sseAnswer(nil, data(logNote))))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(4))
	r.next(t)
	fl := r.nextUnanswered(t)
	if fl.id != "4" {
		t.Fatalf("unanswered %s", fl.id)
	}
	errorHas(t, fl.err, "ended the answer's stream without answering", `"tools/call"`)
	f.set(key{"POST", "", "tools/call"}, func(w http.ResponseWriter, r *got) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",") // cut inside an event: dropped
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	s.Send(callTool(5))
	if fl := r.nextUnanswered(t); fl.id != "5" {
		t.Fatalf("unanswered %s", fl.id)
	}
	f.set(key{"POST", "", "tools/call"}, sseAnswer(nil, data(callResult)))
	s.Send(callTool(6))
	if m := r.next(t); !strings.Contains(m, `"id":6`) {
		t.Fatalf("after the broken streams: %q", m)
	}
}

// A JSON body: the answer, whole (line breaks turned into tabs); a body
// that is not the request's answer still reaches the sink (its check
// refuses it) and the request is unanswered.
func TestJSONAnswer(t *testing.T) {
	f := newFake(t, statelessScript(jsonAnswer(200, nil, "{\n\"jsonrpc\":\"2.0\",\n\"id\":%ID,\"result\":{}}")))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	if m := r.next(t); m != "{\t\"jsonrpc\":\"2.0\",\t\"id\":1,\"result\":{}}" {
		t.Fatalf("got %q", m)
	}
	for name, body := range map[string]string{
		"other id":     `{"jsonrpc":"2.0","id":99,"result":{}}`,
		"notification": logNote,
		"not json":     `hello`,
	} {
		t.Run(name, func(t *testing.T) {
			f.set(key{"POST", "", "tools/call"}, jsonAnswer(200, nil, body))
			s.Send(callTool(2))
			if m := r.next(t); m != body {
				t.Fatalf("delivered %q", m)
			}
			fl := r.nextUnanswered(t)
			if fl.id != "2" {
				t.Fatalf("unanswered %s", fl.id)
			}
			errorHas(t, fl.err, "a JSON body that is not its answer")
		})
	}
}

// An HTTP error status: a body that is the request's JSON-RPC answer is
// the answer; anything else leaves the request unanswered with an
// *HTTPStatusError holding the body (quoted in its text). The session goes
// on either way.
func TestErrorStatus(t *testing.T) {
	rpcErr := `{"jsonrpc":"2.0","id":%ID,"error":{"code":-32602,"message":"bad"}}`
	f := newFake(t, statelessScript(jsonAnswer(400, nil, rpcErr)))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	if m := r.next(t); m != strings.ReplaceAll(rpcErr, "%ID", "1") {
		t.Fatalf("got %q", m)
	}
	for name, a := range map[string]answer{
		"plain":          status(http.StatusBadRequest, "Bad Request: no session\x1b[31m"),
		"other id":       jsonAnswer(500, nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`),
		"empty":          status(http.StatusMethodNotAllowed, ""),
		"server failure": status(http.StatusBadGateway, "upstream down"),
	} {
		t.Run(name, func(t *testing.T) {
			f.set(key{"POST", "", "tools/call"}, a)
			s.Send(callTool(2))
			fl := r.nextUnanswered(t)
			var hs *HTTPStatusError
			if fl.id != "2" || !errors.As(fl.err, &hs) {
				t.Fatalf("unanswered %s: %v", fl.id, fl.err)
			}
			if hs.URL != s.URL() || hs.Method != `"tools/call"` || strings.ContainsRune(hs.Error(), 0x1b) {
				t.Fatalf("%+v: %q", hs, hs.Error())
			}
			errorHas(t, hs, fmt.Sprintf("answered HTTP %d", hs.Status))
		})
	}
	f.set(key{"POST", "", "tools/call"}, jsonAnswer(200, nil, callResult))
	s.Send(callTool(3))
	r.next(t)
}

// An answer with no body or one of another type is no answer: the request
// is unanswered, the session goes on.
func TestNoAnswer(t *testing.T) {
	for name, a := range map[string]answer{
		"202": status(http.StatusAccepted, ""),
		"204": status(http.StatusNoContent, ""),
		"text/plain": func(w http.ResponseWriter, r *got) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hi")
		},
		"json 202": jsonAnswer(http.StatusAccepted, nil, callResult),
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, statelessScript(a))
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{})
			s.Send(callTool(1))
			fl := r.nextUnanswered(t)
			if fl.id != "1" {
				t.Fatalf("unanswered %s", fl.id)
			}
			errorHas(t, fl.err, "no answer to")
		})
	}
}

// The limits: a JSON body or an SSE event over MaxMessage ends the
// session (TooLargeError, ErrTooLarge); one at the limit is taken.
func TestMessageLimit(t *testing.T) {
	const max = 4 << 10
	fits := `{"jsonrpc":"2.0","id":%ID,"result":{"pad":"` + strings.Repeat("x", max-60) + `"}}`
	over := `{"jsonrpc":"2.0","id":%ID,"result":{"pad":"` + strings.Repeat("x", max) + `"}}`
	for name, c := range map[string]struct {
		a    answer
		want string // "" the answer arrives
	}{
		"json fits": {jsonAnswer(200, nil, fits), ""},
		"sse fits":  {sseAnswer(nil, data(fits)), ""},
		"json over": {jsonAnswer(200, nil, over), "limit"},
		"sse over":  {sseAnswer(nil, data(over)), "4 KiB limit in one event"},
		"sse lines": {sseAnswer(nil, "data: "+strings.Repeat("data:\n", max)+"\n"), "limit"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, statelessScript(c.a))
			r := newRecorder()
			s := open(t, f, r, r.sink(), Hooks{}, func(sp *Spec) { sp.MaxMessage = max })
			s.Send(callTool(1))
			if c.want == "" {
				if m := r.next(t); !strings.Contains(m, `"pad"`) {
					t.Fatalf("got %q", m)
				}
				return
			}
			err := r.end(t)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("ended with %v, want ErrTooLarge", err)
			}
			errorHas(t, err, c.want)
			r.quiet(t)
		})
	}
}

// With a Long sink, a message over Small streams into it as it arrives
// (JSON body or SSE event) and small ones still come whole; a long one
// over MaxMessage, or cut in the middle, is ended with the error and ends
// the session.
func TestLongMessages(t *testing.T) {
	const small, max = 1 << 10, 64 << 10
	big := `{"jsonrpc":"2.0","id":%ID,"result":{"pad":"` + strings.Repeat("y", 20<<10) + `"}}`
	for name, a := range map[string]answer{
		"json": jsonAnswer(200, nil, "{\n"+big[1:]),
		"sse":  sseAnswer(nil, data(logNote), "event: message\ndata: "+big[:10]+"\ndata: "+big[10:]+"\n\n"),
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, statelessScript(a))
			r := newRecorder()
			s := open(t, f, r, r.longSink(small), Hooks{}, func(sp *Spec) { sp.MaxMessage = max })
			s.Send(callTool(8))
			if name == "sse" {
				if m := r.next(t); m != logNote {
					t.Fatalf("the small event: %q", m)
				}
			}
			want := strings.ReplaceAll(big, "%ID", "8")
			if name == "sse" {
				want = want[:10] + "\t" + want[10:]
			} else {
				want = "{\t" + want[1:]
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				if l := r.longs(); len(l) == 1 && l[0].ok {
					if l[0].end != nil || l[0].buf.String() != want {
						t.Fatalf("long message: end %v, %d bytes", l[0].end, l[0].buf.Len())
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the long message did not end")
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond)
			r.quiet(t) // a long answer is taken as the answer: nothing unanswered
		})
	}
	over := `{"jsonrpc":"2.0","id":%ID,"result":{"pad":"` + strings.Repeat("z", max) + `"}}`
	for name, a := range map[string]answer{
		"json over": jsonAnswer(200, nil, over),
		"sse over":  sseAnswer(nil, data(over)),
		"sse cut": func(w http.ResponseWriter, r *got) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+strings.Repeat("w", 4*small)+"\ndata: www")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, statelessScript(a))
			r := newRecorder()
			s := open(t, f, r, r.longSink(small), Hooks{}, func(sp *Spec) { sp.MaxMessage = max })
			s.Send(callTool(9))
			err := r.end(t)
			l := r.longs()
			if len(l) != 1 || !l[0].ok || l[0].end == nil || l[0].end.Error() != err.Error() {
				t.Fatalf("ended with %v; long messages %+v", err, l)
			}
			if name != "sse cut" && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("ended with %v, want ErrTooLarge", err)
			}
			if name == "sse cut" && !errors.Is(err, ErrSSECut) {
				t.Fatalf("ended with %v, want ErrSSECut", err)
			}
		})
	}
}

// A message the sink refuses (its check: not one JSON-RPC message) ends the
// session with the sink's error.
func TestSinkRefuses(t *testing.T) {
	f := newFake(t, statelessScript(sseAnswer(nil, data(logNote+logNote), data(callResult))))
	r := newRecorder()
	refusal := errors.New("two messages in one")
	r.refuse = func(b []byte) error {
		if strings.Count(string(b), "jsonrpc") > 1 {
			return refusal
		}
		return nil
	}
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	if err := r.end(t); err != refusal {
		t.Fatalf("ended with %v", err)
	}
	if err := s.Send(callTool(2)); err != refusal {
		t.Fatalf("Send after the end: %v", err)
	}
}
