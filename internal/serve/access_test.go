package serve

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Who may call: the token (401, logged without it), Host and Origin (403:
// DNS rebinding), the server's path (404), the body (413, 415, 400), the
// 2026-07-28 headers against the body (400, -32020); and nothing refused
// reaches a core (no session, no server process is started for it).
func TestWhoMayCall(t *testing.T) {
	t.Parallel()
	f := startServe(t, map[string]*lockfile.Server{"t": lockServer(t, "-header-tool")}, func(c *Config) { c.MaxBody = 4 << 10 })
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	modernCall := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	modernHeaders := func(kv ...string) http.Header {
		base := h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "route", "Mcp-Param-Region", "eu")
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				base.Del(kv[i])
			} else {
				base.Set(kv[i], kv[i+1])
			}
		}
		return base
	}
	cases := []struct {
		name, path, body string
		h                http.Header
		status           int
		has, log         string
	}{
		{"no token", "t", legacyInit, h("Authorization", ""), 401, "", "401 for POST \"/servers/t/mcp\" from 127.0.0.1"},
		{"wrong token", "t", legacyInit, h("Authorization", "Bearer wrong-secret-0123456789"), 401, "", "a wrong bearer token"},
		{"not bearer", "t", legacyInit, h("Authorization", "Basic dXNlcjpwYXNz"), 401, "", "not a bearer token"},
		{"no token, unknown server", "nope", legacyInit, h("Authorization", ""), 401, "", ""},
		{"unknown server", "nope", legacyInit, nil, 404, "/servers/NAME/mcp", ""},
		{"rebound host", "t", legacyInit, h("Host", "attacker.example:80"), 403, "Host", "Host \"attacker.example:80\""},
		{"foreign origin", "t", legacyInit, h("Origin", "https://attacker.example"), 403, "Origin", "Origin \"https://attacker.example\""},
		{"body over the limit", "t", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 5<<10) + `"}}`, nil, 413, "at most 4096 bytes", "413 for POST"},
		{"not JSON", "t", `{"jsonrpc":`, nil, 400, "-32700", ""},
		{"a batch", "t", "[" + legacyInit + "]", nil, 400, "batch", ""},
		{"twin members", "t", `{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize"}`, nil, 400, "-32600", ""},
		{"wrong content type", "t", legacyInit, h("Content-Type", "text/plain"), 415, "", ""},
		{"no session", "t", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil, 400, "send initialize first", ""},
		{"ended session", "t", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h("Mcp-Session-Id", "0123456789abcdef"), 404, "no such session", ""},
		{"method header mismatch", "t", modernCall, modernHeaders("Mcp-Method", "tools/list"), 400, "-32020", ""},
		{"name header missing", "t", modernCall, modernHeaders("Mcp-Name", ""), 400, "missing Mcp-Name", ""},
		{"param header mismatch", "t", modernCall, modernHeaders("Mcp-Param-Region", "us"), 400, "Mcp-Param-Region", ""},
		{"param header missing", "t", modernCall, modernHeaders("Mcp-Param-Region", ""), 400, "-32020", ""},
		{"version header mismatch", "t", modernCall, modernHeaders("MCP-Protocol-Version", "2025-11-25"), 400, "-32020", ""},
	}
	for _, c := range cases {
		status, _, body := f.rawPost(t, c.path, c.body, c.h)
		if status != c.status || !strings.Contains(body, c.has) {
			t.Errorf("%s: HTTP %d %q, want %d with %q", c.name, status, body, c.status, c.has)
		}
		if c.log != "" && !strings.Contains(f.log.String(), c.log) {
			t.Errorf("%s: the log does not say %q:\n%s", c.name, c.log, f.log)
		}
	}
	if strings.Contains(f.log.String(), "wrong-secret") || strings.Contains(f.log.String(), "dXNlcjpwYXNz") || strings.Contains(f.log.String(), testToken) {
		t.Errorf("the log holds a credential:\n%s", f.log)
	}
	if s, c := f.srv.counts(); s+c != 0 {
		t.Errorf("refused requests started %d sessions and %d cores", s, c)
	}
	// The same call with its headers right goes through; a browser page on
	// this machine (the Inspector's UI) may call.
	status, _, body := f.rawPost(t, "t", modernCall, modernHeaders())
	if status != 200 || !strings.Contains(body, "routed to eu") {
		t.Fatalf("a 2026-07-28 call with matching headers: HTTP %d %s\nlog:\n%s", status, body, f.log)
	}
	if status, _, body := f.rawPost(t, "t", legacyInit, h("Origin", "http://localhost:6274")); status != 200 || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("a loopback Origin: HTTP %d %s", status, body)
	}
}

// The token file: made with mode 0600 when missing, read back as is; one
// others may read, or too short, is refused.
func TestTokenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "tok")
	tok, created, err := LoadToken(p)
	if err != nil || !created || len(tok) < 32 {
		t.Fatalf("a new token: %q %v %v", tok, created, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("the new token file has mode %v", st.Mode())
	}
	again, created, err := LoadToken(p)
	if err != nil || created || again != tok {
		t.Fatalf("read back: %q %v %v", again, created, err)
	}
	os.Chmod(p, 0o644)
	_, _, err = LoadToken(p)
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a token file others may read: %v", err)
	}
	// The command the error names, run as printed, makes the file usable.
	_, next, _ := strings.Cut(err.Error(), "run '")
	next, _, _ = strings.Cut(next, "'")
	if out, err := exec.Command("sh", "-c", next).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", next, err, out)
	}
	if again, _, err := LoadToken(p); err != nil || again != tok {
		t.Fatalf("after %s: %q %v", next, again, err)
	}
	// A folder or a symbolic link is named for what it is, with no chmod
	// advice (which would change nothing).
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	for what, path := range map[string]string{"a directory": dir, "a symbolic link": link} {
		_, _, err := LoadToken(path)
		if err == nil || !strings.Contains(err.Error(), "is "+what+", not a regular file") || strings.Contains(err.Error(), "chmod") {
			t.Errorf("a token file that is %s: %v", what, err)
		}
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, _, err := LoadToken(short); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("a short token: %v", err)
	}
}

// A port that is no port number is a usage error naming --addr; an
// address another program listens on says so, with the next step.
func TestListenBadPortAndPortInUse(t *testing.T) {
	t.Parallel()
	_, err := Listen(ListenOptions{Addr: "127.0.0.1:99999"})
	if ue := (*UsageError)(nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), `port "99999" is not a port number`) {
		t.Errorf("port 99999: %v, want a *UsageError naming the port", err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, err = Listen(ListenOptions{Addr: busy.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "--addr") || !slices.ContainsFunc(hint.Of(err), func(h string) bool { return strings.Contains(h, "another program listens there") }) {
		t.Errorf("a port in use: %v (hints %q), want the --addr named and the next step", err, hint.Of(err))
	}
}

// --allow-host takes a host name or address alone: a URL, a port or a
// space could never match a request's Host, so it is refused at the start.
func TestCheckAllowHost(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"mcp.example.com", "LB-1.internal", "mcp_gateway", "10.0.0.5", "::1", "[fd00::1]"} {
		if err := CheckAllowHost(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "https://mcp.example.com", "mcp.example.com:443", "mcp.example.com/mcp", "bad host", ".example.com"} {
		if err := CheckAllowHost(bad); !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "give the host name alone") {
			t.Errorf("%q: %v, want a *UsageError", bad, err)
		}
	}
}
