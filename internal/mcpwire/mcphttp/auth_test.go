package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// bearer answers tools/call only with the Authorization value good; any
// other gets a 401 with an OAuth challenge.
func bearer(good string) answer {
	return func(w http.ResponseWriter, r *got) {
		if r.header.Get("Authorization") != good {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://as.example/.well-known/oauth-protected-resource", error="invalid_token"`)
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		jsonAnswer(200, nil, callResult)(w, r)
	}
}

// A 401 without a Reauth hook ends the session with an *AuthError that
// carries the challenge (raw for the sign-in, quoted for a message) and
// names the --header way to pass credentials; a 403 with a challenge too
// (a 403 without one: TestForbiddenExplained).
func TestAuthChallenge(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		f := newFake(t, statelessScript(func(w http.ResponseWriter, r *got) {
			w.Header().Set("WWW-Authenticate", "Bearer realm=\"x\u202eevil\"")
			http.Error(w, "no", code)
		}))
		r := newRecorder()
		s := open(t, f, r, r.sink(), Hooks{})
		s.Send(callTool(1))
		err := r.end(t)
		var ae *AuthError
		if !errors.As(err, &ae) || ae.Status != code || ae.URL != s.URL() {
			t.Fatalf("%d: ended with %v", code, err)
		}
		if ae.Header != "Bearer realm=\"x\u202eevil\"" || strings.ContainsRune(ae.Error(), 0x202e) || strings.ContainsRune(ae.Challenge, 0x202e) {
			t.Fatalf("challenge raw %q quoted %q, message %q", ae.Header, ae.Challenge, ae.Error())
		}
		errorHas(t, ae, "needs credentials", "--header NAME=ENVVAR", "WWW-Authenticate")
	}
	if msg := (&AuthError{URL: "u", Status: 401}).Error(); strings.Contains(msg, "WWW-Authenticate") {
		t.Fatalf("no challenge, yet the message quotes one: %s", msg)
	}
}

// A 401 asks Hooks.Reauth with the refused value; the request is sent again
// with the new one, which every later request carries. Requests refused at
// once ask once: a request that finds the value changed meanwhile just
// retries.
func TestReauth(t *testing.T) {
	var good atomic.Value
	good.Store("Bearer new")
	f := newFake(t, statelessScript(func(w http.ResponseWriter, r *got) { bearer(good.Load().(string))(w, r) }))
	r := newRecorder()
	var mu sync.Mutex
	var refused []string
	s := open(t, f, r, r.sink(), Hooks{Reauth: func(_ context.Context, sent, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		refused = append(refused, sent)
		return good.Load().(string), nil
	}}, func(sp *Spec) { sp.Header = http.Header{"Authorization": {"Bearer old"}} })
	for i := 1; i <= 4; i++ {
		s.Send(callTool(i))
	}
	for range 4 {
		if m := r.next(t); !strings.Contains(m, `"ok"`) {
			t.Fatalf("got %q", m)
		}
	}
	mu.Lock()
	if len(refused) != 1 || refused[0] != "Bearer old" {
		t.Fatalf("Reauth asked with %q, want once with the old value", refused)
	}
	mu.Unlock()
	s.Send(callTool(5))
	r.next(t)
	calls := f.requests(key{"POST", "", "tools/call"})
	if last := calls[len(calls)-1]; last.header.Get("Authorization") != "Bearer new" {
		t.Fatalf("a later request carried %q", last.header.Get("Authorization"))
	}
}

// A Reauth that fails is noted and the 401 ends the session; a value the
// server refuses again ends it too (Reauth is asked once per request).
func TestReauthFails(t *testing.T) {
	f := newFake(t, statelessScript(bearer("Bearer good")))
	r := newRecorder()
	var notes []string
	var mu sync.Mutex
	s := open(t, f, r, r.sink(), Hooks{Reauth: func(context.Context, string, string) (string, error) {
		return "", errors.New("the sign-in expired: run 'mcpsum lock' to sign in")
	}}, func(sp *Spec) {
		sp.Note = func(m string) { mu.Lock(); notes = append(notes, m); mu.Unlock() }
	})
	s.Send(callTool(1))
	var ae *AuthError
	if err := r.end(t); !errors.As(err, &ae) || ae.Status != 401 {
		t.Fatalf("ended with %v", err)
	}
	mu.Lock()
	if len(notes) != 1 || !strings.Contains(notes[0], "sign-in expired") {
		t.Fatalf("notes %q", notes)
	}
	mu.Unlock()

	f2 := newFake(t, statelessScript(bearer("Bearer good")))
	r2 := newRecorder()
	var asked atomic.Int32
	s2 := open(t, f2, r2, r2.sink(), Hooks{Reauth: func(context.Context, string, string) (string, error) {
		asked.Add(1)
		return "Bearer still-bad", nil
	}})
	s2.Send(callTool(1))
	if err := r2.end(t); !errors.As(err, &ae) {
		t.Fatalf("ended with %v", err)
	}
	if asked.Load() != 1 || len(f2.requests(key{"POST", "", "tools/call"})) != 2 {
		t.Fatalf("Reauth asked %d times, %d POSTs; want one retry", asked.Load(), len(f2.requests(key{"POST", "", "tools/call"})))
	}
}

// A notification refused with 401 is reauthorized and sent again; a 403
// ends the session and Send says so, with the body the server explained
// itself in.
func TestReauthNotification(t *testing.T) {
	f := newFake(t, map[key]answer{{"POST", "", "notifications/roots/list_changed"}: func(w http.ResponseWriter, r *got) {
		if r.header.Get("Authorization") != "Bearer new" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}})
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{Reauth: func(context.Context, string, string) (string, error) { return "Bearer new", nil }})
	if err := s.Send(notification("notifications/roots/list_changed")); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests(key{"POST", "", "notifications/roots/list_changed"})); n != 2 {
		t.Fatalf("%d POSTs", n)
	}
	f.set(key{"POST", "", "notifications/roots/list_changed"}, status(http.StatusForbidden, "no"))
	var hs *HTTPStatusError
	if err := s.Send(notification("notifications/roots/list_changed")); !errors.As(err, &hs) || hs.Status != 403 || !strings.Contains(err.Error(), `"no`) {
		t.Fatalf("Send: %v", err)
	}
	r.end(t)
}

// A 403 without an auth challenge is no request for credentials: the
// server explains the refusal in its body (Playwright's MCP server: "Access
// is only allowed at localhost:PORT"), so the request is unanswered with an
// *HTTPStatusError that shows the body, escaped and shortened, and never
// says "it needs credentials".
func TestForbiddenExplained(t *testing.T) {
	body := "Access is only allowed at localhost:1234\x1b[31m" + strings.Repeat(" and more", 100)
	f := newFake(t, statelessScript(func(w http.ResponseWriter, r *got) { http.Error(w, body, http.StatusForbidden) }))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	fl := r.nextUnanswered(t)
	var hs *HTTPStatusError
	if fl.id != "1" || !errors.As(fl.err, &hs) || hs.Status != 403 {
		t.Fatalf("unanswered %s: %v", fl.id, fl.err)
	}
	msg := hs.Error()
	if strings.Contains(msg, "needs credentials") || strings.ContainsRune(msg, 0x1b) || len(msg) > 400 {
		t.Fatalf("message %q", msg)
	}
	errorHas(t, hs, "answered HTTP 403", "Access is only allowed at localhost:1234")
	if s.Err() != nil {
		t.Fatalf("the session ended: %v", s.Err())
	}
}

// A call refused with 403 goes to Hooks.StepUp with the challenge: the
// error it gives leaves that call Unanswered and the session goes on; a
// nil error ends the session with the 403.
func TestStepUp(t *testing.T) {
	const challenge = `Bearer error="insufficient_scope", scope="files:write"`
	f := newFake(t, statelessScript(jsonAnswer(http.StatusForbidden, map[string]string{"WWW-Authenticate": challenge}, "forbidden")))
	r := newRecorder()
	var asked []string
	s := open(t, f, r, r.sink(), Hooks{StepUp: func(ch string) error {
		asked = append(asked, ch)
		if len(asked) == 1 {
			return errors.New("run mcpsum lock to sign in with files:write")
		}
		return nil
	}})
	s.Send(callTool(1))
	if u := r.nextUnanswered(t); u.id != "1" || !strings.Contains(u.err.Error(), "run mcpsum lock") {
		t.Fatalf("unanswered %+v", u)
	}
	s.Send(callTool(2))
	var ae *AuthError
	if err := r.end(t); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
		t.Fatalf("ended with %v, want the 403", err)
	}
	if len(asked) != 2 || asked[0] != challenge {
		t.Fatalf("StepUp asked %q", asked)
	}
}
