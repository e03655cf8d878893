package lockfile

import (
	"testing"
)

// BenchmarkNewServer1000Tools digests a server with 1,000 tools (the cap per
// kind): validation, sorting, item digests and the surface digest.
func BenchmarkNewServer1000Tools(b *testing.B) {
	proto := syntheticServer(1000)
	var size int
	for _, t := range proto.Tools {
		size += len(t)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		s := *proto
		s.Tools = append(s.Tools[:0:0], proto.Tools...)
		if err := NewServer(&s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse1000Tools parses (and re-verifies) a lockfile holding a
// 1,000-tool server.
func BenchmarkParse1000Tools(b *testing.B) {
	s := syntheticServer(1000)
	if err := NewServer(s); err != nil {
		b.Fatal(err)
	}
	data, err := Marshal(&File{Servers: map[string]*Server{"big": s}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("mcp.lock", data); err != nil {
			b.Fatal(err)
		}
	}
}
