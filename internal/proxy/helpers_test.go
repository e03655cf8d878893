package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/proxytest"
	"github.com/mcpsum/mcpsum/internal/proxy/proxytest/locktest"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The test binary doubles as a real go-sdk MCP server (proxytest), started
// by re-executing itself with proxytest.ServeFlag.
func TestMain(m *testing.M) {
	proxytest.MaybeServe()
	os.Exit(testbin.Run(m))
}

const legacyOnly = "-versions=2025-11-25,2025-06-18"

// serverCmd and lockServer start and lock this test binary as proxytest's
// server (locktest: each server variant locked once per test process).
var (
	serverCmd  = locktest.Command
	lockServer = locktest.Lock
)

// withCommand returns a copy of e that starts the server with other args
// (a server that drifted since it was locked).
func withCommand(t testing.TB, e *lockfile.Server, args ...string) *lockfile.Server {
	c := *e
	c.Command = serverCmd(t, args...)
	return &c
}

// session is a raw JSON-RPC client of an in-process proxy.
type session struct {
	t      testing.TB
	in     io.WriteCloser
	out    *mcpwire.LineReader
	done   chan error
	stderr *testbin.SyncBuffer
	notes  []string // notifications and requests seen while waiting
	err    error    // Run's result once done
	next   int
}

func startProxy(t testing.TB, e *lockfile.Server, tweak ...func(*Options)) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, out: mcpwire.NewLineReader(outR, 0), done: make(chan error, 1), stderr: &testbin.SyncBuffer{}}
	opts := Options{Name: "t", Lockfile: "mcp.lock", Entry: e, Pin: launch.Options{Timeout: 10 * time.Second}, Stderr: s.stderr, Grace: time.Second}
	for _, f := range tweak {
		f(&opts)
	}
	go func() {
		err := Run(context.Background(), inR, outW, opts)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() { s.close() })
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write to proxy: %v", err)
	}
}

// recv returns the next line from the proxy (fails after 90 s: a bound
// that catches a hang, generous enough for a server's start and check on a
// loaded 2-core machine).
func (s *session) recv() []byte {
	s.t.Helper()
	type res struct {
		l   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() { l, err := s.out.Next(); ch <- res{l, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("read from proxy: %v (stderr: %s)", r.err, s.stderr)
		}
		return r.l
	case <-time.After(90 * time.Second):
		s.t.Fatalf("no message from the proxy within 90s (stderr: %s)", s.stderr)
	}
	return nil
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// request sends a request with a fresh id and returns the raw response line,
// recording everything else that arrives meanwhile in s.notes.
func (s *session) request(method, params string) ([]byte, msg) {
	s.t.Helper()
	s.next++
	id := fmt.Sprintf("%d", s.next)
	line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		line += `,"params":` + params
	}
	s.send(line + "}")
	return s.waitFor(id)
}

func (s *session) waitFor(id string) ([]byte, msg) {
	s.t.Helper()
	for {
		l := s.recv()
		var m msg
		if err := json.Unmarshal(l, &m); err != nil {
			s.t.Fatalf("proxy wrote invalid JSON %q: %v", l, err)
		}
		if m.Method == "" && string(m.ID) == id {
			return l, m
		}
		s.notes = append(s.notes, string(l))
	}
}

func (s *session) initialize() {
	s.t.Helper()
	_, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"test","version":"1"}}`)
	if m.Error != nil {
		s.t.Fatalf("initialize: %+v", m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// modern returns params with 2026-07-28 _meta added.
func modern(params string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`
	if params == "" || params == "{}" {
		return "{" + meta + "}"
	}
	return "{" + meta + "," + params[1:]
}

// close ends the client side and returns Run's error.
func (s *session) close() error {
	if s.in != nil {
		s.in.Close()
		s.in = nil
		go io.Copy(io.Discard, readerOf(s.out))
		select {
		case s.err = <-s.done:
		case <-time.After(30 * time.Second):
			s.t.Errorf("proxy did not end within 30s after the client closed (stderr: %s)", s.stderr)
		}
	}
	return s.err
}

// readerOf drains what is left (so the proxy never blocks on a closed test).
func readerOf(l *mcpwire.LineReader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		if _, err := l.Next(); err != nil {
			return 0, err
		}
		return len(p), nil
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// direct calls method on the server directly (no proxy) in era and returns
// the raw result.
func direct(t testing.TB, e *lockfile.Server, method, params string) json.RawMessage {
	t.Helper()
	p, err := process.Start(process.Spec{Argv: e.Command, Env: process.Environ(nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpwire.NewClient(mcpwire.NewStdio(p, 0), &mcpwire.ClientOptions{Timeout: 10 * time.Second})
	defer c.Close(time.Second)
	ctx := context.Background()
	h, err := mcpwire.Handshake(ctx, c, e.Era())
	if err != nil {
		t.Fatal(err)
	}
	if m := mcpwire.Meta(h); m != nil {
		params = strings.Replace(params, "{", `{"_meta":`+string(m)+",", 1)
	}
	res, err := c.Call(ctx, method, json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	return res
}
