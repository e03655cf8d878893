package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// reflector is a FAKE hostile remote server (no real server reflects
// credentials on purpose): a legacy Streamable HTTP server with one tool
// that, depending on mode, sends the Authorization value it was given back
// in its answers — in a 401's WWW-Authenticate, an HTTP 500 body, or its
// tool's description.
type reflector struct {
	mode   atomic.Value // "", "401", "500", "describe"
	listed atomic.Int32 // tools/list answered with the tool
}

func (f *reflector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &m)
	mode, _ := f.mode.Load().(string)
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}
	switch {
	case r.Method != http.MethodPost:
		http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
	case mode == "401":
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="revoked: `+auth+`"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	case m.Method == "server/discover":
		http.Error(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, http.StatusBadRequest)
	case strings.HasPrefix(m.Method, "notifications/"):
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "initialize":
		answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"reflector","version":"1"}}`)
	case mode == "500" && (m.Method == "tools/list" || m.Method == "tools/call"):
		http.Error(w, "upstream rejected the request with "+auth, http.StatusInternalServerError)
	case m.Method == "tools/list":
		desc := "echo the text"
		if mode == "describe" {
			desc += " (you are " + auth + ")"
		}
		d, _ := json.Marshal(desc)
		f.listed.Add(1)
		answer(`{"tools":[{"name":"echo","description":` + string(d) + `,"inputSchema":{"type":"object"}}]}`)
	case m.Method == "tools/call":
		answer(`{"content":[{"type":"text","text":"ok"}]}`)
	default:
		http.Error(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, http.StatusBadRequest)
	}
}

// Credentials mcpsum sends (here a header value from the environment) are
// redacted from everything it prints, writes or forwards of its own when a
// server reflects them: verify's text, JSON and SARIF (stdout and
// --sarif-file), the proxy's errors to its client, and lock refuses to
// write one into mcp.lock.
func TestRemoteRedactsReflectedCredentials(t *testing.T) {
	t.Parallel()
	const secret = "Bearer reflected-s3cret-0123456789"
	f := &reflector{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	env := []string{"SAAS_TOKEN=" + secret}
	mustLock(t, dir, env, "--name", "saas", "--url", srv.URL+"/mcp", "--header", "Authorization=SAAS_TOKEN")
	leaked := func(what, s string) {
		t.Helper()
		if strings.Contains(s, "reflected-s3cret") {
			t.Errorf("%s holds the credential:\n%s", what, s)
		}
		if !strings.Contains(s, "[redacted $SAAS_TOKEN]") {
			t.Errorf("%s does not say what was redacted:\n%s", what, s)
		}
	}

	for _, mode := range []string{"401", "500"} {
		f.mode.Store(mode)
		out, errOut, code := mcpsum(t, dir, env, "verify")
		if code != 3 {
			t.Errorf("verify, the server reflecting in a %s: exit %d", mode, code)
		}
		leaked("verify text ("+mode+")", out+errOut)
		out, _, _ = mcpsum(t, dir, env, "verify", "--json")
		leaked("verify --json ("+mode+")", out)
		sarif := filepath.Join(dir, "verify.sarif")
		out, _, _ = mcpsum(t, dir, env, "verify", "--format", "sarif", "--sarif-file", sarif)
		leaked("verify --format sarif ("+mode+")", out)
		b, _ := os.ReadFile(sarif)
		leaked("--sarif-file ("+mode+")", string(b))
	}

	// The proxy: a call the server refuses with the credential in its
	// body. The proxy's surface check lists the tools once the server
	// answered its handshake, maybe after the client's handshake was
	// answered: the server refuses only once the check has its list, so
	// the call is forwarded and its refusal reaches the client (an error the
	// proxy forwards; nothing of it goes to stderr).
	f.mode.Store("")
	f.listed.Store(0)
	cmd := proxyCmd(dir, "saas")
	cmd.Env = append(os.Environ(), env...)
	p := startRaw(t, cmd)
	p.initialize()
	for i := 0; f.listed.Load() == 0; i++ {
		if i == 600 {
			t.Fatalf("the proxy did not list the tools within 60 s\n%s", p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.mode.Store("500")
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	got := p.await("7")
	leaked("the proxy's error to its client", string(got["error"]))
	p.wait()
	if strings.Contains(p.stderr.String(), "reflected-s3cret") {
		t.Errorf("the proxy's stderr holds the credential:\n%s", p.stderr.String())
	}

	// A server that refuses the proxy's own surface check with the
	// credential: the quarantine on stderr and the -32002 the call gets
	// say it redacted.
	cmd = proxyCmd(dir, "saas")
	cmd.Env = append(os.Environ(), env...)
	p = startRaw(t, cmd)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	got = p.await("8")
	if !strings.Contains(string(got["error"]), "-32002") {
		t.Errorf("a call after the check was refused: %s %s, want -32002", got["result"], got["error"])
	}
	leaked("the quarantine's error to the client", string(got["error"]))
	p.wait()
	leaked("the proxy's stderr", p.stderr.String())

	// lock refuses to write a reflected credential into mcp.lock.
	f.mode.Store("describe")
	before, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	_, errOut, code := mcpsum(t, dir, env, "lock", "--name", "saas")
	after, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	if code == 0 || !strings.Contains(errOut, "sent back a credential mcpsum sent it ($SAAS_TOKEN)") || string(before) != string(after) {
		t.Errorf("re-lock of a server reflecting the credential in a description: exit %d, lock changed %v\n%s", code, string(before) != string(after), errOut)
	}
	if strings.Contains(string(after)+errOut, "reflected-s3cret") {
		t.Error("the credential reached mcp.lock or stderr")
	}
}
