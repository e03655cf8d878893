// Package jsonline is the byte level of the proxy: one JSON-RPC message
// per line, read and written without decoding it.
//
// It owns the envelope scanner (ScanEnvelope, ScanPrefix, Fields: byte
// ranges of the members the proxy acts on, exact keys, a duplicate or a
// case-variant twin refused), the line check both paths apply to a
// server's line (CheckServerLine), the streaming Tracker that checks a
// line too long to hold while it is forwarded (the JSON grammar, the
// response rule, the locked serverInfo swapped in, a cut line closed as
// valid JSON), the Writer that writes one message per line to a peer
// (whole messages queued behind a streamed line, bounded), the builders of
// the lines the proxy writes itself (ResultLine, ErrorLine, RequestLine),
// whether a Writer's reader went away (ReaderGone, by poll on unix) and
// EscapedLines, which turns a server's stderr into quoted lines.
//
// Everything it reads is untrusted: nothing here decodes with
// encoding/json, and the tracker's loops make no allocation and no
// interface call (BenchmarkTracker): strings a word at a time
// (trackstr.go), structure below the depths the member rules read a whole
// token at a time (trackfast.go, checked against the byte-by-byte machine
// by FuzzTrackerFast).
//
// Lock order: a Writer's lock is the innermost of the proxy's locks; the
// Writer calls out only to its io.Writer and its Tracker.
//
// Imports: internal/jsonscan, internal/mcpspec, internal/termtext,
// golang.org/x/sys/unix and the standard library. It must not import internal/proxy or any other package of
// pkg/ (the proxy imports it, not the other way round).
package jsonline
