package lockfile

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// deepUnsorted is a tool-like object nesting depth objects whose members
// are out of canonical order ("b" before "a") around a string of size
// bytes: the input on which sorting each object's canonical text in place
// copies the subtree once per level.
func deepUnsorted(depth, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"name":"deep","inputSchema":`)
	for range depth {
		b.WriteString(`{"b":`)
	}
	b.WriteString(`"` + strings.Repeat("deep text ", size/10) + `"`)
	for range depth {
		b.WriteString(`,"a":0}`)
	}
	b.WriteString(`}`)
	return b.Bytes()
}

// allocatedBy reports the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 2 MiB item nested 10,000 deep in unsorted objects is canonicalised in
// one pass over its bytes: it allocates at most 4x its size (sorting in
// place allocated about depth x size, 20 GiB), and the result is the
// reference's.
func TestCanonicalDeepUnsortedIsLinear(t *testing.T) {
	raw := deepUnsorted(maxDepth-1, 2<<20)
	var canon []byte
	var err error
	n := allocatedBy(func() { canon, _, _, err = canonicalItem(raw, "name") })
	if err != nil {
		t.Fatal(err)
	}
	if n > 4*uint64(len(raw)) {
		t.Errorf("canonicalising a %d-byte item at depth %d allocated %d bytes (%.1fx its size), want at most 4x", len(raw), maxDepth, n, float64(n)/float64(len(raw)))
	}
	small := deepUnsorted(maxDepth-1, 1000)
	ref, refErr := jcs.Transform(small)
	got, _, _, err := canonicalItem(small, "name")
	if refErr != nil || err != nil || !bytes.Equal(got, ref) {
		t.Fatalf("deep unsorted item: ours %.80s… (%v), reference %.80s… (%v)", got, err, ref, refErr)
	}
	if !bytes.HasPrefix(canon, []byte(`{"inputSchema":{"a":0,"b":{"a":0,"b":`)) {
		t.Fatalf("canonical form starts %.60s", canon)
	}
}

// An error deep inside an item names the ends of its path, not every level
// (one step per level made a 30 KB message at depth 10,000).
func TestCanonicalDeepErrorIsShort(t *testing.T) {
	for _, raw := range []string{
		strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
		strings.Repeat(`{"a":`, maxDepth-2) + "1e999" + strings.Repeat("}", maxDepth-2),
		strings.Repeat(`{"`+strings.Repeat("k", 5000)+`":`, 20) + "01" + strings.Repeat("}", 20),
	} {
		_, err := Canonical([]byte(raw))
		if err == nil {
			t.Fatalf("%.40s… accepted", raw)
		}
		if msg := err.Error(); len(msg) > 2000 || !strings.Contains(msg, "levels)") {
			t.Errorf("error on deep input is %d bytes: %.300s", len(msg), msg)
		}
	}
}

// BenchmarkCanonicalDepth is the depth x size table of the performance
// docs: each row against the same bytes flat (depth 1), with the bytes
// allocated per input byte.
func BenchmarkCanonicalDepth(b *testing.B) {
	for _, size := range []int{64 << 10, 2 << 20} {
		for _, depth := range []int{1, 100, 1000, maxDepth - 1} {
			raw := deepUnsorted(depth, size)
			if depth == 1 { // the same number of bytes, flat
				raw = deepUnsorted(1, len(deepUnsorted(maxDepth-1, size))-len(deepUnsorted(1, 0)))
			}
			b.Run(fmt.Sprintf("size=%dKiB/depth=%d", size>>10, depth), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cpu := cpuTime()
				for b.Loop() {
					if _, _, _, err := canonicalItem(raw, "name"); err != nil {
						b.Fatal(err)
					}
				}
				cpu = cpuTime() - cpu
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(raw)), "alloc/byte")
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}
