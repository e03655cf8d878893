//go:build unix

package mcpwire

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"

	"github.com/mcpsum/mcpsum/internal/process"
)

// Broken and hostile servers, played by e2e/servers/hostile (a FAKE server).
// Each gives a clear error or a correct result, never hangs past the timeout,
// and leaves no process behind (lock checks that for every start).

func TestHostileServers(t *testing.T) {
	tests := []struct {
		mode    string
		timeout time.Duration
		errHas  []string // all must appear; none => must succeed
		check   func(t *testing.T, s *Surface, st *starter)
	}{
		{mode: "legacy", check: func(t *testing.T, s *Surface, _ *starter) {
			if s.Era != mcpspec.EraLegacy || len(s.Tools) != 1 {
				t.Fatalf("%+v", s)
			}
		}},
		{mode: "longline", check: func(t *testing.T, s *Surface, _ *starter) {
			if len(s.Tools) != 1 || len(s.Tools[0]) < 96<<10 {
				t.Fatalf("long tool lost: %d tools", len(s.Tools))
			}
		}},
		{mode: "badutf8", errHas: []string{"invalid UTF-8", `caf\xff\xfe`, "stdout must carry only JSON-RPC"}},
		{mode: "nonjson", errHas: []string{"not JSON", "Starting hostile MCP server on stdio...", "logs belong on stderr"}},
		{mode: "exit-on-probe", check: func(t *testing.T, s *Surface, st *starter) {
			if s.Era != mcpspec.EraLegacy || len(st.procs) != 2 || !strings.Contains(s.Note, "exited") {
				t.Fatalf("era %s after %d starts (%s)", s.Era, len(st.procs), s.Note)
			}
		}},
		{mode: "exit-mid", errHas: []string{"tools/list", "exit status 7", "crashing while listing tools"}},
		{mode: "silent", timeout: 300 * time.Millisecond, errHas: []string{"initialize: no answer within 300ms"}},
		{mode: "loop", errHas: []string{"tools/list", `repeated the cursor "again"`}},
		{mode: "many", errHas: []string{"tools/list", "more than 1000 tools"}},
		{mode: "dupnames", errHas: []string{"more than one tool with name \"echo\""}},
		{mode: "ansi", check: func(t *testing.T, s *Surface, _ *starter) {
			if len(s.Tools) != 2 {
				t.Fatalf("%d tools", len(s.Tools))
			}
			for _, raw := range s.Tools {
				var tool struct{ Name, Description string }
				json.Unmarshal(raw, &tool)
				q, sus := termtext.Quote(tool.Description)
				if !sus || strings.ContainsAny(q, "\x1b\u202e\u200b\u2066") {
					t.Errorf("%s: description not flagged/escaped: %q", tool.Name, q)
				}
			}
		}},
		{mode: "chatty", check: func(t *testing.T, s *Surface, _ *starter) {
			// The fake answers tools/list only if ping, roots/list, sampling and elicitation got prompt, right answers.
			if len(s.Tools) != 1 || !strings.Contains(string(s.Tools[0]), "answered all server requests") {
				t.Fatalf("%s", s.Tools)
			}
		}},
		{mode: "wrongversion", errHas: []string{`protocolVersion "2099-01-01"`, "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"}},
		{mode: "slowmodern", timeout: 500 * time.Millisecond, errHas: []string{"answered after the 500ms timeout", "longer timeout"}},
		{mode: "discover-noinfo", errHas: []string{"no serverInfo", "does not fall back"}},
		{mode: "discover-no2026", errHas: []string{`supportedVersions ["2025-11-25"] does not list 2026-07-28`}},
		{mode: "discover-resulttype", errHas: []string{`resultType is "input_required"`}},
		{mode: "err32021", errHas: []string{"-32021", "elicitation"}},
		{mode: "err32022-newer", errHas: []string{"-32022", "2027-01-01"}},
		{mode: "err32022-legacy", check: func(t *testing.T, s *Surface, _ *starter) {
			if s.Era != mcpspec.EraLegacy || !strings.Contains(s.Note, "only legacy versions") {
				t.Fatalf("era %s (%s)", s.Era, s.Note)
			}
		}},
		{mode: "stubborn", check: func(t *testing.T, s *Surface, st *starter) {
			if len(s.Tools) != 1 || st.procs[0].ExitError().State != "signal: killed" {
				t.Fatal("stubborn server not killed")
			}
		}},
		{mode: "spawn", check: func(t *testing.T, s *Surface, st *starter) {
			if len(s.Tools) != 1 || process.GroupAlive(st.procs[0].Pgid()) {
				t.Fatal("grandchild survived")
			}
		}},
	}
	bin := peer(t, "hostile")
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			s, tr, st, err := lock(t, timeout, bin, "-mode", tc.mode)
			if tc.errHas != nil {
				if err == nil {
					t.Fatalf("no error; surface %+v", s)
				}
				for _, w := range tc.errHas {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				if msg := err.Error(); strings.IndexByte(msg, 0x1b) >= 0 || !utf8.ValidString(msg) {
					t.Errorf("unescaped bytes in error: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s, st)
			tr.validateSent(t, &s.Hello)
		})
	}
}

func TestProbeContextCancel(t *testing.T) {
	st := newStarter(peer(t, "hostile"), "-mode", "silent")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	_, _, err := Probe(ctx, st.start, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	st.assertNoLeftovers(t)
}

func TestListAllContextCancel(t *testing.T) {
	// A server that answers the handshake but never a list: cancel mid-ListAll.
	st := newStarter(peer(t, "gosrv"))
	c, h, err := Probe(context.Background(), st.start, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ListAll(ctx, c, h); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	c.Close(5 * time.Second)
	st.assertNoLeftovers(t)
}

func TestCallTimeoutAndClosed(t *testing.T) {
	p, err := startStdio(process.Spec{Argv: []string{peer(t, "hostile"), "-mode", "silent"}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(p, &ClientOptions{Timeout: 100 * time.Millisecond})
	_, err = c.Call(context.Background(), "tools/list", nil)
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) || te.Method != "tools/list" {
		t.Fatalf("err = %v", err)
	}
	c.Close(time.Second)
	if _, err = c.Call(context.Background(), "tools/list", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
	assertGroupGone(t, p.Process())
}
