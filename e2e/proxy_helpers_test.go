package e2e

//lint:file-ignore SA1019 the proxy bridges the legacy era's roots and sampling, deprecated in 2026-07-28; the tests must use them

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// proxyServers returns proxysrv (internal/proxy/proxytest's go-sdk server)
// and the benchmarks' proxyrelay (a plain byte relay, the floor), built by
// TestMain with proxylean (the proxy without the rest of mcpsum linked in).
func proxyServers(t testing.TB) (srv, relay string) {
	t.Helper()
	return bin.proxysrv, bin.proxyrelay
}

// proxysrvScript writes dir/srv.sh, which execs dir/proxysrv (a symlink, so
// the process table shows dir and leftovers can be found) with args, and
// returns the command to lock. Rewriting it plays a server that changed
// under an unchanged command line.
func proxysrvScript(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	srv, _ := proxyServers(t)
	link := filepath.Join(dir, "proxysrv")
	if _, err := os.Lstat(link); err != nil {
		if err := os.Symlink(srv, link); err != nil {
			t.Fatal(err)
		}
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := fmt.Sprintf("#!/bin/sh\nexec %s %s\n", link, strings.Join(q, " "))
	if err := os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"sh", filepath.Join(dir, "srv.sh")}
}

// proxyCmd is `mcpsum proxy` for entry name of dir/mcp.lock.
func proxyCmd(dir, name string, extra ...string) *exec.Cmd {
	args := append([]string{"proxy", "--lockfile", filepath.Join(dir, "mcp.lock"), "--name", name}, extra...)
	cmd := exec.Command(bin.mcpsum, args...)
	cmd.Dir = dir
	return cmd
}

// goClient connects the go-sdk v1.8.0 client through cmd: era "legacy"
// makes it send initialize 2025-11-25; "modern" lets it do what it does by
// default (server/discover, 2026-07-28 when offered).
func goClient(t testing.TB, cmd *exec.Cmd, era string, opts *mcp.ClientOptions, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	if opts.Capabilities == nil {
		opts.Capabilities = &mcp.ClientCapabilities{}
	}
	var stderr testbin.SyncBuffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	cs, err := dial(cmd, era, opts, roots...)
	if err != nil {
		t.Fatalf("connect %v: %v\nstderr:\n%s", cmd.Args, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// dial is goClient's connect: the client's handshake over cmd, or its error.
func dial(cmd *exec.Cmd, era string, opts *mcp.ClientOptions, roots ...*mcp.Root) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	c.AddRoots(roots...)
	so := &mcp.ClientSessionOptions{}
	if era == "legacy" {
		so.ProtocolVersion = "2025-11-25"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, so)
}

// callJSON calls a tool and returns its result re-encoded for comparison
// (content, structuredContent, isError), or the error.
func callJSON(t testing.TB, cs *mcp.ClientSession, tool string, args any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(struct {
		Content           []mcp.Content `json:"content"`
		StructuredContent any           `json:"structuredContent"`
		IsError           bool          `json:"isError"`
	}{res.Content, res.StructuredContent, res.IsError})
	return string(b), nil
}

// rawProxy is `mcpsum proxy` driven over raw pipes, for exit codes,
// signals and byte-level checks.
type rawProxy struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *mcpwire.LineReader
	pipe   io.Closer // the read end of the proxy's stdout
	stderr *testbin.SyncBuffer
	waited chan struct{}
	code   int
	// skipped holds the messages await passed over (notifications,
	// server→client requests, other responses), in order.
	skipped []map[string]json.RawMessage
}

func startRaw(t testing.TB, cmd *exec.Cmd) *rawProxy {
	t.Helper()
	p := &rawProxy{t: t, cmd: cmd, stderr: &testbin.SyncBuffer{}, waited: make(chan struct{})}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.in, p.out, p.pipe = in, mcpwire.NewLineReader(out, 0), out
	go func() {
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		}
		close(p.waited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.waited
	})
	return p
}

func (p *rawProxy) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write to proxy: %v\nstderr:\n%s", err, p.stderr)
	}
}

// await returns the response with id, skipping other messages (60 s at most).
func (p *rawProxy) await(id string) map[string]json.RawMessage {
	p.t.Helper()
	m, _ := p.awaitRaw(id)
	return m
}

// awaitLine is await's response as the bytes of its line.
func (p *rawProxy) awaitLine(id string) string {
	p.t.Helper()
	_, l := p.awaitRaw(id)
	return l
}

func (p *rawProxy) awaitRaw(id string) (map[string]json.RawMessage, string) {
	p.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		ch := make(chan []byte, 1)
		go func() {
			l, _ := p.out.Next()
			ch <- l
		}()
		select {
		case l := <-ch:
			if l == nil {
				p.t.Fatalf("the proxy closed its stdout before answering %s\nstderr:\n%s", id, p.stderr)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(l, &m); err != nil {
				p.t.Fatalf("the proxy wrote a non-JSON line: %q", termtext.TruncateQuote(string(l), 200))
			}
			if string(m["id"]) == id && m["method"] == nil {
				return m, string(l)
			}
			p.skipped = append(p.skipped, m)
		case <-deadline:
			p.t.Fatalf("no answer to %s within 60s\nstderr:\n%s", id, p.stderr)
		}
	}
}

func (p *rawProxy) initialize() {
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.await("0")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wait closes stdin and returns the exit code (60 s at most).
func (p *rawProxy) wait() int {
	p.t.Helper()
	p.in.Close()
	select {
	case <-p.waited:
	case <-time.After(60 * time.Second):
		p.t.Fatalf("the proxy did not exit within 60s of stdin EOF\nstderr:\n%s", p.stderr)
	}
	return p.code
}

// noLeftovers fails when a process mentioning marker is still alive
// shortly after the proxy ended.
func noLeftovers(t *testing.T, marker string) {
	t.Helper()
	var left []string
	for i := 0; i < 50; i++ {
		if left = leftovers(t, marker); len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
}
