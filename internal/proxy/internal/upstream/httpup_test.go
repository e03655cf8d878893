package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchServer is a hand-written stand-in for a server's answers (FAKE:
// the same SSE bytes every time, so the client side dominates the
// benchmark): it answers tools/call with an SSE event of n bytes of text (a
// stateless 2026-07-28 server); small calls with a small event.
func benchServer(b *testing.B, n int) *httptest.Server {
	pad := strings.Repeat("x", n)
	// a long answer is written from one buffer (its id is not looked at:
	// a long event streams through), so the client's side dominates
	big := []byte(fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n\n", pad))
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if n > 64<<10 {
			w.Write(big)
			return
		}
		id := strings.SplitN(strings.SplitN(string(body), `"id":`, 2)[1], ",", 2)[0]
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n\n", id, pad)
	}))
}

func newUp(url string) (*HTTP, error) {
	return NewHTTP(mcphttp.Spec{URL: url}, mcphttp.Hooks{})
}

// benchCalls measures calls whose answer is one SSE event of n bytes: a
// small one read whole and looked at, a long one streamed into the pipe.
func benchCalls(b *testing.B, n int) {
	srv := benchServer(b, n)
	defer srv.Close()
	u, err := newUp(srv.URL + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	defer u.Stop(0, 0)
	r := bufio.NewReaderSize(u.Messages(), 64<<10)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, i)
		if err := u.WriteLine([]byte(msg)); err != nil {
			b.Fatal(err)
		}
		for {
			line, err := r.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			_ = line
			break
		}
	}
}

func BenchmarkUpstreamSmall(b *testing.B) { benchCalls(b, 100) }
func BenchmarkUpstream8MiB(b *testing.B)  { benchCalls(b, 8<<20) }

// A request the server leaves without its answer gets an error answer of
// the proxy's own on the pipe (the core then answers the client), and the
// session goes on; a message over the limit closes the pipe with a
// *mcpwire.LineTooLongError, as a line over the limit on stdio does; after
// Stop, ExitError says the session was closed.
func TestHTTPAnswersAndLimits(t *testing.T) {
	big := strings.Repeat("y", 200<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case strings.Contains(string(body), `"silent"`):
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		case strings.Contains(string(body), `"huge"`):
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"t\":\"%s\"}}\n\n", big)
		}
	}))
	defer srv.Close()
	u, err := NewHTTP(mcphttp.Spec{URL: srv.URL + "/mcp", MaxMessage: 100 << 10}, mcphttp.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(u.Messages())
	call := func(id int, name string) {
		t.Helper()
		if err := u.WriteLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, id, name)); err != nil {
			t.Fatal(err)
		}
	}
	call(1, "silent")
	if l, _ := r.ReadString('\n'); !strings.Contains(l, "notifications/message") {
		t.Fatalf("first line %q", l)
	}
	l, _ := r.ReadString('\n')
	if !strings.Contains(l, `"id":1`) || !strings.Contains(l, "-32603") || !strings.Contains(l, "mcpsum: remote server") || !strings.Contains(l, "without answering") {
		t.Fatalf("the proxy's own error answer: %q", l)
	}
	call(2, "huge")
	_, err = io.ReadAll(r)
	var le *mcpwire.LineTooLongError
	if !errors.As(err, &le) || le.Max != 100<<10 {
		t.Fatalf("a message over the limit: %v, want a *mcpwire.LineTooLongError", err)
	}
	<-u.Exited()
	if err := u.ExitError(); !errors.As(err, &le) {
		t.Fatalf("ExitError after a message over the limit: %v", err)
	}
	u2, err := newUp(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if u2.ExitError() != nil {
		t.Fatal("a session that runs has an exit error")
	}
	u2.Stop(time.Second, 0)
	<-u2.Exited()
	if err := u2.ExitError(); !errors.Is(err, mcpwire.ErrClosed) {
		t.Fatalf("ExitError after Stop: %v", err)
	}
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// benchGoSDK measures small calls through the upstream to a real go-sdk
// server in process (its streamable handler): a legacy session with its
// GET stream, or stateless 2026-07-28 requests.
func benchGoSDK(b *testing.B, stateless bool) {
	s := mcp.NewServer(&mcp.Implementation{Name: "b", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	srv := httptest.NewServer(h)
	defer srv.Close()
	u, err := newUp(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer u.Stop(0, 0)
	r := bufio.NewReaderSize(u.Messages(), 64<<10)
	read := func(id string) {
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(l, `"id":`+id+`,`) || strings.Contains(l, `"id":`+id+`}`) {
				return
			}
		}
	}
	meta := ""
	if !stateless {
		u.WriteLine([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
		read("0")
		u.WriteLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	} else {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}`
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprint(i)
		if err := u.WriteLine([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}` + meta + `}}`)); err != nil {
			b.Fatal(err)
		}
		read(id)
	}
}

func BenchmarkGoSDKLegacy(b *testing.B)    { benchGoSDK(b, false) }
func BenchmarkGoSDKStateless(b *testing.B) { benchGoSDK(b, true) }
