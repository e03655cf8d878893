package jsonline

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// trackerInputs are 8 MiB results of the shapes servers send: one long
// text (a file, a page), text with many escapes, non-ASCII text, and a
// structure of many small members.
func trackerInputs() map[string][]byte {
	const size = 8 << 20
	text := func(unit string) []byte {
		return []byte(`{"content":[{"type":"text","text":"` + strings.Repeat(unit, size/len(unit)) + `"}]}}`)
	}
	var rows strings.Builder
	rows.WriteString(`{"structuredContent":{"rows":[`)
	for i := 0; rows.Len() < size; i++ {
		fmt.Fprintf(&rows, `{"id":%d,"name":"row %d","ok":true,"score":-%d.25e+2,"tags":["a","b"]},`, i, i, i)
	}
	rows.WriteString(`null]}}}`)
	return map[string][]byte{
		"text":       text("The quick brown fox jumps over the lazy dog. 0123456789 "),
		"escaped":    text(`line \"quoted\"\n\ttab\\ `),
		"utf8":       text("naïve café € 😀 "),
		"structured": []byte(rows.String()),
	}
}

// BenchmarkTracker is the grammar tracker's own rate over 8 MiB results
// fed in 256 KiB chunks, as the proxy feeds a streamed line.
func BenchmarkTracker(b *testing.B) {
	inputs := trackerInputs()
	for _, name := range []string{"text", "escaped", "utf8", "structured"} {
		in := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := threadCPU()
			for b.Loop() {
				t := NewTracker([]string{"jsonrpc", "id"}, nil)
				for i := 0; i < len(in); i += feedChunk {
					if err := t.Feed(in[i:min(len(in), i+feedChunk)], func([]byte) {}); err != nil {
						b.Fatal(err)
					}
				}
				if !t.done {
					b.Fatal("not done")
				}
			}
			if cpu := threadCPU() - cpu; cpu > 0 {
				// The rate on the CPU time the loop got (MB/s is wall time).
				b.ReportMetric(float64(len(in))*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
			}
		})
	}
	// For scale, in the same run: finding the newlines of the same bytes
	// (what a line relay does at least).
	in := inputs["text"]
	b.Run("newline-scan", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			for i := 0; i < len(in); i += feedChunk {
				if bytes.IndexByte(in[i:min(len(in), i+feedChunk)], '\n') >= 0 {
					b.Fatal("newline")
				}
			}
		}
	})
}

// feedChunk is the proxy's read window over the server's stdout: what a
// streamed line is fed in.
const feedChunk = 256 << 10
