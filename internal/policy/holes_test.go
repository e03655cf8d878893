package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// promptOf asks about a legacy sink call in a tainted session and returns
// the prompt's message (or fails).
func promptOf(t *testing.T, f *fixture, args string) string {
	t.Helper()
	v := f.guard.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":`+args+`}`, false, ElicitForm))
	if v.Action != Ask {
		t.Fatalf("not asked: %+v %s", v, v.Result)
	}
	var p struct{ Message string }
	json.Unmarshal(v.Elicit, &p)
	return p.Message
}

// resultText is the text of a refusal's tool result.
func resultText(v Verdict) string {
	var r struct{ Content []struct{ Text string } }
	if json.Unmarshal(v.Result, &r) != nil || len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// The prompt shows every member name, in byte order, each value shortened
// in its middle: 2 KB of padding before "to" no longer hides the recipient.
func TestPromptShowsEveryName(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	pad := strings.Repeat("x", 5000)
	msg := promptOf(t, f, `{"body":"`+pad+`END","to":"mallory@evil.example","cc":"a\u202eb"}`)
	for _, want := range []string{`"body": "xxx`, `…(`, `bytes not shown)…`, `xEND"`, `"to": "mallory@evil.example"`, `"cc": "a\u202eb"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("prompt lacks %q:\n%s", want, msg)
		}
	}
	if strings.Index(msg, `"body"`) > strings.Index(msg, `"cc"`) || strings.Index(msg, `"cc"`) > strings.Index(msg, `"to"`) {
		t.Errorf("names not in a stable (byte) order:\n%s", msg)
	}
	if len(msg) > 6000 {
		t.Errorf("prompt of %d bytes", len(msg))
	}
	// The same call with its members reordered reads the same.
	if other := promptOf(t, f, `{"cc":"a\u202eb","to":"mallory@evil.example","body":"`+pad+`END"}`); other != msg {
		t.Errorf("reordered members changed the prompt:\n%s\n%s", msg, other)
	}
}

// A value that prints like another (an address with a Cyrillic letter) is
// flagged in the prompt, so the user does not approve "alice@example.com"
// for a mail to another address.
func TestPromptFlagsLookalikeValues(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	msg := promptOf(t, f, `{"to":"\u0430lice@example.com","cc":["bоb@example.com"],"body":"hello"}`)
	for _, want := range []string{
		`"to": "аlice@example.com"  [LOOK-ALIKE TEXT: mixes scripts Cyrillic and Latin; looks like "alice@example.com"]`,
		`"cc": [\"bоb@example.com\"]  [LOOK-ALIKE TEXT: mixes scripts Cyrillic and Latin`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("prompt lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, `"body": "hello"  [`) {
		t.Errorf("plain text flagged:\n%s", msg)
	}
}

// A call that cannot be shown honestly, or whose arguments hold members
// equal ignoring case, is refused before anyone is asked, saying why.
func TestPromptRefusesWhatItCannotShow(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	many := map[string]int{}
	for i := range 50 {
		many[strings.Repeat("k", i+1)] = i
	}
	b, _ := json.Marshal(many)
	for name, c := range map[string]struct{ args, why string }{
		"many members": {string(b), "more than the 40 a prompt can list"},
		"long name":    {`{"` + strings.Repeat("n", 300) + `":1}`, "argument name is 302 bytes"},
		"case twin":    {`{"to":"shown@example","To":"run@evil.example"}`, `"To" is a case variant of "to"`},
		"duplicate":    {`{"to":"shown@example","to":"run@evil.example"}`, `duplicate member "to"`},
		"nested twin":  {`{"o":{"id":1,"ID":2}}`, `"ID" is a case variant`},
		// the user would read two lines "to": which one the server uses
		// they cannot tell (Greek omicron; Cyrillic a)
		"look-alike names": {`{"to":"run@evil.example","t\u03bf":"shown@example"}`, `"to" and "t\u03bf" look alike`},
		"look-alike cased": {`{"amount":1,"\u0430mount":1000}`, `look alike`},
		// the Kelvin sign folds to K: named escaped, not as a second "K"
		"kelvin twin": {`{"K":1,"\u212a":2}`, `"\u212a" is a case variant of "K"`},
	} {
		v := f.guard.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":`+c.args+`}`, false, ElicitForm))
		if text := resultText(v); v.Action != Respond || !strings.Contains(text, c.why) || !strings.Contains(text, "mcpsum refused this call") {
			t.Errorf("%s: %+v %s", name, v, text)
		}
	}
}

// Approvals bind the exact numbers: an approval for one account does not
// run the call with a neighbouring one that a double cannot tell apart.
func TestApprovalBindsExactNumbers(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"account":9007199254740993}`, `{"account":9007199254740992}`},
		{`{"amount":1.0000000000000001}`, `{"amount":1}`},
	} {
		if ArgsDigest([]byte(pair[0])) == ArgsDigest([]byte(pair[1])) {
			t.Errorf("%s and %s share an arguments digest", pair[0], pair[1])
		}
		f := newFixture(t, "bank", lockfile.Taint{Sinks: []string{"send"}})
		f.store.Mark(Session{ID: "s1"}, "web", "fetch")
		state, _ := inputRequired(t, f.guard.BeforeCall(modernCall("send", pair[0], "")))
		if v := f.guard.BeforeCall(modernCall("send", pair[1], retry(state, accept))); v.Action != Respond || !bytes.Contains(v.Result, []byte("different call")) {
			t.Errorf("approval of %s ran %s: %+v %s", pair[0], pair[1], v, v.Result)
		}
	}
}

// The approval marker is decided on the decoded requestState only: the
// marker in ordinary text passes, an escaped spelling of the proxy's own
// state does not.
func TestMarkerOnDecodedState(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	ok := `{"name":"lookup","arguments":{"q":"what is mcpsum-approval.v1.?"}}`
	if v := f.guard.BeforeCall(call("tools/call", "lookup", ok, true, ElicitForm)); v.Action != Forward {
		t.Errorf("ordinary text with the marker: %+v %s", v, v.Result)
	}
	for _, p := range []string{
		`{"name":"lookup","arguments":{},"requestState":"mcpsum-approval.v1.abc.def"}`,
		`{"name":"lookup","arguments":{},"requestState":"mcpsum\u002dapproval.v1.abc.def"}`,
	} {
		if v := f.guard.BeforeCall(call("tools/call", "lookup", p, true, ElicitForm)); v.Action != Respond {
			t.Errorf("%s was forwarded", p)
		}
	}
}

// One approval runs once: a second Store (another proxy process, or this
// one restarted, with a new Signer) refuses the spent state.
func TestApprovalSingleUseAcrossStores(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	args := `{"to":"a@example.com"}`
	state, _ := inputRequired(t, f.guard.BeforeCall(modernCall("send", args, "")))
	restarted := func() *Guard {
		key, err := LoadKey(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := OpenAudit(f.dir, 0)
		t.Cleanup(func() { a.Close() })
		return NewGuard(Config{Server: "mail", Taint: &lockfile.Taint{Sinks: []string{"send"}}, Surface: "sha256:surface",
			Session: Session{ID: "s1"}, Store: NewStore(f.dir), Audit: a, Signer: NewSigner(key)})
	}
	if v := restarted().BeforeCall(modernCall("send", args, retry(state, accept))); v.Action != Forward {
		t.Fatalf("first use: %+v %s", v, v.Result)
	}
	for i, g := range []*Guard{f.guard, restarted()} {
		if v := g.BeforeCall(modernCall("send", args, retry(state, accept))); v.Action != Respond || !bytes.Contains(v.Result, []byte("already used")) {
			t.Errorf("replay %d: %+v %s", i, v, v.Result)
		}
	}
	// A spent state is kept only until it expires.
	s := f.store.Check("s1")
	if len(s.Used) != 1 || !s.Used[0].Expires.After(time.Now()) {
		t.Errorf("used: %+v", s.Used)
	}
}

// An approval spent before `taint reset` is not spent anew once the session
// is tainted again: the reset does not forget that it was used (another
// proxy of the session, or a restarted one, would otherwise run it again
// in the new taint without asking).
func TestApprovalNotReplayedAfterReset(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	args := `{"to":"a@example.com"}`
	state, _ := inputRequired(t, f.guard.BeforeCall(modernCall("send", args, "")))
	other := func() *Guard {
		key, err := LoadKey(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := OpenAudit(f.dir, 0)
		t.Cleanup(func() { a.Close() })
		return NewGuard(Config{Server: "mail", Taint: &lockfile.Taint{Sinks: []string{"send"}}, Surface: "sha256:surface",
			Session: Session{ID: "s1"}, Store: NewStore(f.dir), Audit: a, Signer: NewSigner(key)})
	}
	if v := other().BeforeCall(modernCall("send", args, retry(state, accept))); v.Action != Forward {
		t.Fatalf("first use: %+v %s", v, v.Result)
	}
	if err := f.store.Reset("s1"); err != nil {
		t.Fatal(err)
	}
	f.store.Mark(Session{ID: "s1"}, "web", "fetch") // tainted again
	if v := other().BeforeCall(modernCall("send", args, retry(state, accept))); v.Action != Respond || !bytes.Contains(v.Result, []byte("reset after the approval")) {
		t.Errorf("the approval spent before the reset ran again: %+v %s", v, v.Result)
	}
	// A new approval in the new taint works.
	state2, _ := inputRequired(t, f.guard.BeforeCall(modernCall("send", args, "")))
	if v := other().BeforeCall(modernCall("send", args, retry(state2, accept))); v.Action != Forward {
		t.Errorf("a new approval after the reset: %+v %s", v, v.Result)
	}
}

// "Allow for the rest of this session" lets the same call through without
// asking again; other arguments, another lock surface or a reset end it.
func TestSessionGrant(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	args := `{"to":"a@example.com","n":9007199254740993}`
	c := call("tools/call", "send", `{"name":"send","arguments":`+args+`}`, false, ElicitForm)
	v := f.guard.BeforeCall(c)
	if v.Action != Ask || !bytes.Contains(v.Elicit, []byte(`"session":{`)) || !bytes.Contains(v.Elicit, []byte("rest of this session")) {
		t.Fatalf("the prompt does not offer a session grant: %s", v.Elicit)
	}
	if v := f.guard.Answered(c, []byte(`{"action":"accept","content":{"allow":true,"session":true}}`), ""); v.Action != Forward {
		t.Fatalf("granted: %+v", v)
	}
	if v := f.guard.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":{"n":9007199254740993,"to":"a@example.com"}}`, false, ElicitForm)); v.Action != Forward {
		t.Errorf("the granted call was asked again: %+v", v)
	}
	if v := f.guard.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":{"to":"a@example.com","n":9007199254740992}}`, false, ElicitForm)); v.Action != Ask {
		t.Errorf("other arguments went through on the grant: %+v", v)
	}
	// A modern client's retry with session true makes one too; a session
	// without allow makes none.
	if v := f.guard.Answered(c, []byte(`{"action":"accept","content":{"allow":false,"session":true}}`), ""); v.Action == Forward {
		t.Error("session without allow allowed the call")
	}
	drifted := NewGuard(Config{Server: "mail", Taint: &lockfile.Taint{Sinks: []string{"send"}}, Surface: "sha256:relocked",
		Session: Session{ID: "s1"}, Store: f.store, Audit: f.guard.cfg.Audit, Signer: f.sign})
	if v := drifted.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":`+args+`}`, false, ElicitForm)); v.Action != Ask {
		t.Errorf("a grant survived another lock surface: %+v", v)
	}
	if g := f.store.Check("s1").Grants; len(g) != 1 || g[0].Name != "send" || g[0].Args != ArgsDigest([]byte(args)) {
		t.Errorf("grants: %+v", g)
	}
	if err := f.store.Reset("s1"); err != nil {
		t.Fatal(err)
	}
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	if v := f.guard.BeforeCall(call("tools/call", "send", `{"name":"send","arguments":`+args+`}`, false, ElicitForm)); v.Action != Ask {
		t.Errorf("a grant survived taint reset: %+v", v)
	}
	recs := f.audit(t)
	found := false
	for _, r := range recs {
		found = found || r.Answer == "session-grant" && r.Decision == "allowed"
	}
	if !found {
		t.Error("no audit record of a call allowed by a grant")
	}
}

// A session with a live proxy is never cleaned up, whichever client
// started it: the proxy recorded itself with Join.
func TestCleanupKeepsSessionWithLiveProxy(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	st.Retention = time.Millisecond
	// The client that tainted the session is gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	goneClient := Client{PID: gone.Process.Pid, Start: 1, Boot: "b"}
	if err := st.Mark(Session{ID: "named", Client: goneClient}, "web", "fetch"); err != nil {
		t.Fatal(err)
	}
	// A second proxy of the session (another client) still runs.
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer live.Process.Kill()
	proxy, err := ProcessClient(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Join(Session{ID: "named"}, proxy); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(st.Dir(), "named.json"), old, old)
	if gone, err := st.Cleanup(); err != nil || len(gone) != 0 {
		t.Fatalf("cleaned up a session with a live proxy: %v %v", gone, err)
	}
	if s := st.Check("named"); !s.Tainted() {
		t.Fatal("the taint is gone")
	}
	live.Process.Kill()
	live.Wait()
	if gone, err := st.Cleanup(); err != nil || len(gone) != 1 {
		t.Fatalf("after the proxy ended: %v %v", gone, err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir(), "named.live")); !os.IsNotExist(err) {
		t.Errorf("the proxy list stayed: %v", err)
	}
}

// A 2026-07-28 client's approval "for the rest of this session" is a
// grant too: the same call then goes through without input_required.
func TestSessionGrantModern(t *testing.T) {
	f := newFixture(t, "mail", lockfile.Taint{Sinks: []string{"send"}})
	f.store.Mark(Session{ID: "s1"}, "web", "fetch")
	args := `{"to":"a@example.com"}`
	state, params := inputRequired(t, f.guard.BeforeCall(modernCall("send", args, "")))
	if !strings.Contains(mustString(params), "rest of this session") {
		t.Fatalf("the form does not offer a grant: %v", params)
	}
	if v := f.guard.BeforeCall(modernCall("send", args, retry(state, `{"action":"accept","content":{"allow":true,"session":true}}`))); v.Action != Forward {
		t.Fatalf("approved retry: %+v %s", v, v.Result)
	}
	if v := f.guard.BeforeCall(modernCall("send", args, "")); v.Action != Forward {
		t.Errorf("the granted call was asked again: %+v %s", v, v.Result)
	}
	if v := f.guard.BeforeCall(modernCall("send", `{"to":"b@example.com"}`, "")); v.Action != Respond {
		t.Errorf("other arguments went through on the grant: %+v", v)
	}
}

func mustString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A task's result whose creating call the proxy forgot (a steered model
// created a thousand more tasks to push a source's out) taints the session
// when any tool is a source: it may be that source's.
func TestUnknownTaskResultTaints(t *testing.T) {
	f := newFixture(t, "web", lockfile.Taint{Sources: []string{"fetch"}})
	if e := f.guard.BeforeResult(&Call{Method: UnknownTaskResult}, []byte(`{"content":[]}`)); e != nil {
		t.Fatal(e)
	}
	if s := f.store.Check("s1"); !s.Tainted() || !strings.Contains(s.Sources[0].Label, "task") {
		t.Errorf("an unknown task's result did not taint: %+v", s)
	}
	// Without a tool source (only resources), a task's result cannot be one.
	g := newFixture(t, "docs", lockfile.Taint{Sources: []string{lockfile.AllResources}})
	g.guard.BeforeResult(&Call{Method: UnknownTaskResult}, []byte(`{"content":[]}`))
	if s := g.store.Check("s1"); s.Tainted() {
		t.Errorf("tainted without a tool source: %+v", s)
	}
}
