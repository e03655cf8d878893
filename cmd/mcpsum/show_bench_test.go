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
