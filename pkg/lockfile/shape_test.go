package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepTool is a tool of about size bytes whose inputSchema nests depth
// objects around a string; depth 0 is the flat tool of the same size (the
// string only).
func deepTool(name string, depth, size int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"name":"` + name + `","inputSchema":`)
	text := size - len(`{"name":"","inputSchema":""}`) - len(name) - depth*len(`{"a":}`)
	for range depth {
		b.WriteString(`{"a":`)
	}
	b.WriteString(`"` + strings.Repeat("x", max(text, 0)) + `"`)
	b.WriteString(strings.Repeat("}", depth))
	b.WriteString(`}`)
	return json.RawMessage(b.String())
}

// lockOf is a lockfile holding one server with tools, as lock writes it.
func lockOf(t testing.TB, tools ...json.RawMessage) []byte {
	t.Helper()
	s := syntheticServer(0)
	s.Tools = tools
	if err := NewServer(s); err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(&File{Servers: map[string]*Server{"deep": s}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The lockfile grows linearly with what a server sent, whatever its shape:
// a 96 KB tool nested from 10 to 9,996 levels deep (before: two spaces per
// level per line, 32 MB at 4,000 levels and 200 MB at 10,000, which no
// command read back) takes at most twice the bytes of the same tool flat,
// is read back, and keeps its digests.
func TestDeepItemLockfileIsLinear(t *testing.T) {
	const size = 96 << 10
	flat := lockOf(t, deepTool("deep", 0, size))
	for _, depth := range []int{10, MaxIndentDepth, 1000, 4000, maxDepth - 1} {
		tool := deepTool("deep", depth, size)
		data := lockOf(t, tool)
		if len(data) > 2*len(flat) {
			t.Errorf("depth %d: a %d-byte tool makes a %d-byte lockfile, the same tool flat %d bytes (%.1fx, want at most 2x)",
				depth, len(tool), len(data), len(flat), float64(len(data))/float64(len(flat)))
		}
		f, err := Parse("mcp.lock", data)
		if err != nil {
			t.Fatalf("depth %d: the lockfile lock wrote does not read back: %v", depth, err)
		}
		if got := f.Servers["deep"].Tools[0]; !bytes.Equal(got, tool) {
			t.Fatalf("depth %d: the tool read back differs from the one locked", depth)
		}
		if again, err := Marshal(f); err != nil || !bytes.Equal(again, data) {
			t.Fatalf("depth %d: written again, the lockfile differs (%v)", depth, err)
		}
	}
}

// Down to MaxIndentDepth the output is exactly json.Indent's with two
// spaces (every lockfile written before is unchanged); below it, each line
// starts with at most 2*MaxIndentDepth spaces and a deeper object or array
// is compact on one line.
func TestIndentIsJSONIndentDownToTheCap(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "lockfiles", "*.lock"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "internal", "review", "testdata", "*", "*.lock"))
	paths = append(paths, more...)
	if len(paths) < 4 {
		t.Fatalf("only %d lockfiles found", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(p, data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out, err := Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, out, "", "  "); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want.Bytes()) {
			t.Errorf("%s: written differently from json.Indent", p)
		}
	}
	// An object nested MaxIndentDepth+3 deep in the file: the levels below
	// the cap are on one line.
	compact := `{"a":{"a":{"a":[1,{"b":"x, y: {z}"}]}}}`
	tool := `{"name":"t","inputSchema":` + strings.Repeat(`{"a":`, MaxIndentDepth-5) + compact + strings.Repeat(`}`, MaxIndentDepth-5) + `}`
	out := string(lockOf(t, json.RawMessage(tool)))
	want := "\n" + strings.Repeat("  ", MaxIndentDepth) + `"a": ` + compact + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("the levels below the cap are not compact on one line; want the line %q in:\n%s", want, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if ind := len(line) - len(strings.TrimLeft(line, " ")); ind > 2*MaxIndentDepth {
			t.Fatalf("a line is indented by %d spaces: %q", ind, line)
		}
	}
}

// An item nested deeper than a lockfile can hold is refused by lock with
// its name and the limit (before: accepted, then Marshal failed on the
// whole file, or the file was written and could not be read back).
func TestTooDeepItemRefusedByName(t *testing.T) {
	s := syntheticServer(0)
	s.Tools = []json.RawMessage{deepTool("abyss", maxDepth, 4096)} // the tool and maxDepth objects
	err := NewServer(s)
	fe := asFormat(t, err)
	if fe.Item != `tool "abyss"` || !strings.Contains(err.Error(), fmt.Sprintf("nested more than %d levels deep, the most a lockfile can hold", maxDepth)) {
		t.Fatalf("item %q: %v", fe.Item, err)
	}
	lockOf(t, deepTool("edge", maxDepth-1, 4096)) // the deepest accepted reads back
}

// A lockfile over MaxFileSize is never produced: Marshal names the entry
// and its largest item, and Fit takes out the fresh entry that does not
// fit (its previous version put back), so the others are written.
func TestOversizeEntryRefusedOthersKept(t *testing.T) {
	// 4 MiB of small numbers 10 levels into a tool: about 16 times that
	// once indented, over the 64 MiB a lockfile may hold.
	nums := strings.TrimSuffix(strings.Repeat("1,", 2<<20), ",")
	big := json.RawMessage(`{"name":"huge","inputSchema":` + strings.Repeat(`{"a":`, 9) + `[` + nums + `]` + strings.Repeat(`}`, 9) + `}`)
	small := syntheticServer(2)
	if err := NewServer(small); err != nil {
		t.Fatal(err)
	}
	oldBig := syntheticServer(1)
	if err := NewServer(oldBig); err != nil {
		t.Fatal(err)
	}
	newBig := syntheticServer(0)
	newBig.Tools = []json.RawMessage{big, deepTool("fine", 3, 100)}
	if err := NewServer(newBig); err != nil {
		t.Fatal(err)
	}
	f := &File{Servers: map[string]*Server{"small": small, "big": newBig}}
	_, err := Marshal(f)
	var le *LimitError
	if !errors.As(err, &le) || le.Server != "big" || le.Item != `tool "huge"` || !strings.Contains(err.Error(), "over the 64 MiB a lockfile may hold") {
		t.Fatalf("Marshal of a file over the limit: %v", err)
	}
	refused := Fit(f, map[string]*Server{"small": small, "big": newBig}, map[string]*Server{"big": oldBig})
	if len(refused) != 1 || refused[0].Server != "big" || refused[0].Item != `tool "huge"` {
		t.Fatalf("refused: %v", refused)
	}
	if f.Servers["big"] != oldBig || f.Servers["small"] != small {
		t.Fatalf("after Fit: the old entry is not back, or the fitting one is gone")
	}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("mcp.lock", data); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDeepItemCost is the cost of a 2 MiB tool nested depth levels
// deep against the same bytes flat, measured in the same loop, for the
// lockfile's part of each command: lock (NewServer, Marshal, then Update's
// Parse of the output), verify --offline (Parse), verify (NewServer of
// what the server sent, then Compare with the parsed lock) and the proxy's
// check (NewServer, then CompareDigests). "ratio" is deep over flat (goal:
// at most 2).
//
//	go test ./pkg/lockfile -run '^$' -bench DeepItemCost
func BenchmarkDeepItemCost(b *testing.B) {
	const size = 2 << 20
	type op struct {
		name string
		run  func(tb testing.TB, tool json.RawMessage, lock []byte)
	}
	observe := func(tb testing.TB, tool json.RawMessage) *Server {
		s := syntheticServer(0)
		s.Tools = []json.RawMessage{tool}
		if err := NewServer(s); err != nil {
			tb.Fatal(err)
		}
		return s
	}
	parse := func(tb testing.TB, lock []byte) *Server {
		f, err := Parse("mcp.lock", lock)
		if err != nil {
			tb.Fatal(err)
		}
		return f.Servers["deep"]
	}
	ops := []op{
		{"lock", func(tb testing.TB, tool json.RawMessage, _ []byte) {
			out, err := Marshal(&File{Servers: map[string]*Server{"deep": observe(tb, tool)}})
			if err != nil {
				tb.Fatal(err)
			}
			parse(tb, out)
		}},
		{"verify-offline", func(tb testing.TB, _ json.RawMessage, lock []byte) { parse(tb, lock) }},
		{"verify", func(tb testing.TB, tool json.RawMessage, lock []byte) {
			if fs := Compare(parse(tb, lock), observe(tb, tool)); len(fs) != 0 {
				tb.Fatal(fs)
			}
		}},
		{"proxy-check", func(tb testing.TB, tool json.RawMessage, lock []byte) {
			if fs := CompareDigests(parse(tb, lock), observe(tb, tool)); len(fs) != 0 {
				tb.Fatal(fs)
			}
		}},
	}
	flat := deepTool("deep", 0, size)
	flatLock := lockOf(b, flat)
	for _, o := range ops {
		for _, depth := range []int{100, 1000, 4000, maxDepth - 1} {
			deep := deepTool("deep", depth, size)
			deepLock := lockOf(b, deep)
			b.Run(fmt.Sprintf("%s/depth=%d", o.name, depth), func(b *testing.B) {
				b.SetBytes(int64(len(deep)))
				var flatCPU, deepCPU int64
				for b.Loop() {
					t0 := cpuTime()
					o.run(b, flat, flatLock)
					t1 := cpuTime()
					o.run(b, deep, deepLock)
					t2 := cpuTime()
					flatCPU += int64(t1 - t0)
					deepCPU += int64(t2 - t1)
				}
				b.ReportMetric(float64(flatCPU)/float64(b.N)/1e3, "flat-cpu-µs/op")
				b.ReportMetric(float64(deepCPU)/float64(b.N)/1e3, "deep-cpu-µs/op")
				b.ReportMetric(float64(deepCPU)/float64(flatCPU), "ratio")
			})
		}
	}
}
