package review

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// BenchmarkCompare is the baseline: lockfile.Compare of the four real npm
// servers, 2026.1 against 2026.8 (what verify does without labels).
func BenchmarkCompare(b *testing.B) {
	old := loadLock(b, "testdata/npm-bump/2026.1.lock")
	cur := loadLock(b, "testdata/npm-bump/2026.8.lock")
	for b.Loop() {
		for n := range old.Servers {
			lockfile.Compare(old.Servers[n], cur.Servers[n])
		}
	}
}

// BenchmarkCompareAndLabel is the same compare plus labelling its 44
// definitional findings: what labels add to verify.
func BenchmarkCompareAndLabel(b *testing.B) {
	old := loadLock(b, "testdata/npm-bump/2026.1.lock")
	cur := loadLock(b, "testdata/npm-bump/2026.8.lock")
	for b.Loop() {
		for n := range old.Servers {
			Label(lockfile.Compare(old.Servers[n], cur.Servers[n]), old.Servers[n], cur.Servers[n])
		}
	}
}

// BenchmarkShadowing8x1000 checks a lock of 8 servers of 1,000 tools each
// (the per-kind cap), every tool with a description and a schema.
func BenchmarkShadowing8x1000(b *testing.B) {
	servers := map[string]*lockfile.Server{}
	for s := range 8 {
		e := &lockfile.Server{}
		for i := range 1000 {
			e.Tools = append(e.Tools, json.RawMessage(fmt.Sprintf(
				`{"name":"s%d_tool_%d","description":"Reads item %d of the store and returns it as text; pass the id.","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"the id"}},"required":["id"]}}`, s, i, i)))
		}
		servers[fmt.Sprintf("srv%d", s)] = e
	}
	b.ResetTimer()
	for b.Loop() {
		if got := Shadowing(servers, nil); len(got) != 0 {
			b.Fatal(got)
		}
	}
}
