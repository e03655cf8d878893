package policy

import (
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// BenchmarkSinkCheckUntainted is the guard's work for a sink call in an
// untainted session: parse the params, digest the arguments, read the
// (missing) state, write the audit line.
func BenchmarkSinkCheckUntainted(b *testing.B) {
	dir := b.TempDir()
	a, _ := OpenAudit(dir, 0)
	defer a.Close()
	g := NewGuard(Config{Server: "s", Taint: &lockfile.Taint{Sinks: []string{"send"}}, Session: Session{ID: "bench"}, Store: NewStore(dir), Audit: a})
	params := []byte(`{"name":"send","arguments":{"to":"a@example.com","body":"hello there"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := g.BeforeCall(&Call{Method: "tools/call", Name: "send", Params: params}); v.Action != Forward {
			b.Fatal(v)
		}
	}
}

// BenchmarkTaintWrite is one source result's taint write: lock, read,
// atomic replace of the session's state.
func BenchmarkTaintWrite(b *testing.B) {
	st := NewStore(b.TempDir())
	s := Session{ID: "bench"}
	for b.Loop() {
		if err := st.Mark(s, "web", "fetch"); err != nil {
			b.Fatal(err)
		}
	}
}
