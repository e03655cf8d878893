package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// BenchmarkShow1000Tools is `mcpsum show` of a lock holding one server with
// 1,000 tools, in process (the start-up of the binary excluded; scripts/bench.sh
// times the whole process).
func BenchmarkShow1000Tools(b *testing.B) {
	s := &lockfile.Server{
		Command:         []string{"/usr/local/bin/big-server", "--stdio"},
		ProtocolVersion: "2025-11-25",
		ServerInfo:      json.RawMessage(`{"name":"big","version":"1.0.0"}`),
		Capabilities:    json.RawMessage(`{"tools":{"listChanged":true}}`),
	}
	for i := 0; i < 1000; i++ {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(`{"name":"t%04d","description":"numbered tool %d: does one thing and reports it","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"text to echo"},"n":{"type":"integer"}},"required":["text"]},"annotations":{"readOnlyHint":true}}`, i, i)))
	}
	if err := lockfile.NewServer(s); err != nil {
		b.Fatal(err)
	}
	data, err := lockfile.Marshal(&lockfile.File{Servers: map[string]*lockfile.Server{"big": s}})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "mcp.lock")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if code := run(context.Background(), []string{"show", "--lockfile", path}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("show: exit %d", code)
		}
	}
}

// suspiciousPaths' fast path never hides what the full walk finds.
func TestSuspiciousFastPath(t *testing.T) {
	for _, raw := range []string{
		`{"name":"a","description":"plain text\nwith lines\tand tabs, \"quotes\" and a \\ and \/"}`,
		`{"name":"a","description":"ansi \u001b[31mred"}`, `{"name":"a","d":"lone \r return"}`, `{"name":"a","d":"crlf \r\n"}`,
		`{"name":"a","d":"bidi ` + "\u202e" + `"}`, `{"name":"a","d":"nbsp ` + "\u00a0" + `"}`, `{"name":"a","d":"é"}`,
		`{"name":"a","d":"del ` + "\x7f" + `"}`, `{"name":"a","d":"\b"}`, `{"name":"a","d":"\u0041"}`, `{"n\u200bame":"a"}`,
		`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got := suspiciousPaths(json.RawMessage(raw))
		if plainJSON([]byte(raw)) && len(got) != 0 {
			t.Errorf("%s: the fast path says plain, the walk finds %v", raw, got)
		}
		// The walk alone (no fast path) agrees.
		if slow := suspiciousSlow(t, raw); len(slow) != len(got) {
			t.Errorf("%s: fast %v, slow %v", raw, got, slow)
		}
	}
}

func suspiciousSlow(t *testing.T, raw string) []string {
	t.Helper()
	// Force the walk: a leading space does not change the value but the
	// fast path still applies, so check through quoteText directly.
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if _, sus := quoteText(x); sus {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if _, sus := quoteText(k); sus {
					out = append(out, k)
				}
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
