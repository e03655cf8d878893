package mcphttp

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The client connects only to the locked origin: a redirect to another
// origin, or one that would turn the POST into a GET (301, 302, 303), is
// refused and noted (the other origin is never contacted); a same-origin
// 307/308 is followed with the body, at most 3 times.
func TestRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(other.Close)
	for name, c := range map[string]struct {
		status int
		to     string // "" the fake's own /moved
		want   string // "" followed
	}{
		"other origin 307": {http.StatusTemporaryRedirect, other.URL + "/mcp", "another origin"},
		"other port 308":   {http.StatusPermanentRedirect, "http://127.0.0.1:1/mcp", "another origin"},
		"303":              {http.StatusSeeOther, "", "turn the POST into a GET"},
		"302":              {http.StatusFound, "", "turn the POST into a GET"},
		"same origin 307":  {http.StatusTemporaryRedirect, "", ""},
		"same origin 308":  {http.StatusPermanentRedirect, "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			var f *fakeServer
			f = newFake(t, statelessScript(func(w http.ResponseWriter, r *got) {
				to := c.to
				if to == "" {
					to = f.srv.URL + "/moved"
				}
				w.Header().Set("Location", to)
				w.WriteHeader(c.status)
			}))
			mux := http.NewServeMux()
			mux.Handle("/mcp", f)
			mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || !strings.Contains(string(body), `"tools/call"`) {
					t.Errorf("the redirect was followed as %s with %q", r.Method, body)
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			})
			f.srv.Config.Handler = mux
			r := newRecorder()
			var notes []string
			var mu sync.Mutex
			s := open(t, f, r, r.sink(), Hooks{}, func(sp *Spec) {
				sp.Note = func(m string) { mu.Lock(); notes = append(notes, m); mu.Unlock() }
			})
			s.Send(callTool(1))
			if c.want == "" {
				if m := r.next(t); !strings.Contains(m, `"result"`) {
					t.Fatalf("got %q", m)
				}
				return
			}
			err := r.end(t)
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("ended with %v, want a *RedirectError", err)
			}
			errorHas(t, err, "refused a redirect", c.want, "lock it again with its new URL")
			mu.Lock()
			defer mu.Unlock()
			if len(notes) != 1 || !strings.Contains(notes[0], c.want) {
				t.Fatalf("notes %q", notes)
			}
			if elsewhere.Load() != 0 {
				t.Fatal("the other origin was contacted")
			}
		})
	}
}

// More than 3 same-origin redirects are refused.
func TestRedirectLoop(t *testing.T) {
	f := newFake(t, statelessScript(nil))
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.srv.URL+r.URL.Path+"x")
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	s.Send(callTool(1))
	errorHas(t, r.end(t), "more than 3 redirects")
}

// A server URL must be https, or http to this machine only; New refuses
// anything else before a byte is sent.
func TestServerURL(t *testing.T) {
	r := newRecorder()
	for raw, want := range map[string]string{
		"http://mcp.example.com/mcp":    "use https",
		"ftp://127.0.0.1/x":             "scheme",
		"https://u:p@mcp.example.com/x": "user name",
		"":                              "empty",
	} {
		_, err := New(Spec{URL: raw}, r.sink(), Hooks{})
		errorHas(t, err, "remote server URL", want)
	}
	for _, raw := range []string{"http://127.0.0.1:9/mcp", "http://localhost/mcp", "http://[::1]:9/mcp", "https://mcp.example.com/mcp"} {
		if _, err := New(Spec{URL: raw}, r.sink(), Hooks{}); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	if _, err := New(Spec{URL: "http://127.0.0.1/"}, Sink{}, Hooks{}); err == nil {
		t.Error("a Sink without its functions was taken")
	}
}

// A server that cannot be reached ends the session saying so.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := newRecorder()
	s, err := New(Spec{URL: "http://" + addr + "/mcp"}, r.sink(), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(0)
	s.Send(callTool(1))
	errorHas(t, r.end(t), "cannot be reached", `"tools/call"`)
	if err := s.Send(notification("notifications/initialized")); err == nil {
		t.Fatal("Send after the end succeeded")
	}
}

// A message that is not JSON, or not a JSON-RPC message, is refused by
// Send without ending the session.
func TestSendMalformed(t *testing.T) {
	f := newFake(t, statelessScript(jsonAnswer(200, nil, callResult)))
	r := newRecorder()
	s := open(t, f, r, r.sink(), Hooks{})
	for _, bad := range []string{`not json`, `[1]`, `{"jsonrpc":"2.0","method":3}`, `{"jsonrpc":"2.0","id":1}`, `{"id":1,"id":2,"method":"x"}`} {
		if err := s.Send([]byte(bad)); err == nil {
			t.Errorf("Send(%s) took it", bad)
		}
	}
	s.Send(callTool(1))
	r.next(t)
	if len(f.keys()) != 1 {
		t.Fatalf("requests %v", f.keys())
	}
}

// The pinned dialer: a public name resolving only to non-public addresses
// is refused (DNS rebinding), only public ones are dialled, another host
// is never dialled, and localhost is loopback without DNS.
func TestDialerVetsNames(t *testing.T) {
	lookup := func(addrs ...string) func(context.Context, string) ([]netip.Addr, error) {
		return func(context.Context, string) ([]netip.Addr, error) {
			var out []netip.Addr
			for _, a := range addrs {
				out = append(out, netip.MustParseAddr(a))
			}
			return out, nil
		}
	}
	d := &dialer{host: "mcp.example.com", port: "443", lookup: lookup("10.0.0.7", "127.0.0.1")}
	var pe *PrivateAddressError
	if _, err := d.vetted(context.Background(), "mcp.example.com"); !errors.As(err, &pe) || len(pe.Addrs) != 2 {
		t.Fatalf("got %v, want a public name resolving to private addresses refused", err)
	}
	errorHas(t, pe, "DNS rebinding", "10.0.0.7 127.0.0.1")
	d.lookup = lookup("10.0.0.7", "93.184.216.34", "::ffff:192.168.1.1")
	ips, err := d.vetted(context.Background(), "mcp.example.com")
	if err != nil || len(ips) != 1 || ips[0].String() != "93.184.216.34" {
		t.Fatalf("got %v %v, want only the public address", ips, err)
	}
	d.lookup = lookup()
	if _, err := d.vetted(context.Background(), "mcp.example.com"); err == nil || !strings.Contains(err.Error(), "no addresses") {
		t.Fatalf("no addresses: %v", err)
	}
	d.lookup = func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("NXDOMAIN") }
	if _, err := d.vetted(context.Background(), "mcp.example.com"); err == nil || !strings.Contains(err.Error(), "cannot resolve") {
		t.Fatalf("lookup failure: %v", err)
	}
	if _, err := d.dial(context.Background(), "tcp", "evil.example.net:443"); err == nil || !strings.Contains(err.Error(), "only to the locked") {
		t.Fatalf("got %v, want a connection to another host refused", err)
	}
	if _, err := d.dial(context.Background(), "tcp", "mcp.example.com:8443"); err == nil || !strings.Contains(err.Error(), "only to the locked") {
		t.Fatalf("got %v, want a connection to another port refused", err)
	}
	d.lookup = func(context.Context, string) ([]netip.Addr, error) {
		t.Fatal("localhost was resolved through DNS")
		return nil, nil
	}
	if ips, err := d.vetted(context.Background(), "localhost"); err != nil || len(ips) != 2 || !ips[0].IsLoopback() || !ips[1].IsLoopback() {
		t.Fatalf("localhost: %v %v", ips, err)
	}
	if ips, err := d.vetted(context.Background(), "10.1.2.3"); err != nil || ips[0].String() != "10.1.2.3" {
		t.Fatalf("an address in the URL is dialled as is: %v %v", ips, err)
	}
}

// The pinned client dials the locked origin only, through the vetting
// dialer: a real server on loopback is reached by "localhost".
func TestPinnedClientLocalhost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
	defer srv.Close()
	u, _ := url.Parse(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1))
	c := NewHTTPClient(u, nil)
	resp, err := c.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if tr := c.Transport.(*http.Transport); tr.Proxy != nil || tr.TLSClientConfig.MinVersion != tls.VersionTLS12 {
		t.Fatal("the pinned client uses a proxy from the environment or allows TLS < 1.2")
	}
	other, _ := url.Parse(srv.URL) // 127.0.0.1: the same machine, another host name
	if _, err := c.Get(other.String()); err == nil || !strings.Contains(err.Error(), "only to the locked") {
		t.Fatalf("got %v, want another host refused", err)
	}
}

// The sign-in client: any public host, this machine only when the MCP
// server itself is here, never an address that is not public, no
// redirects.
func TestSignInClient(t *testing.T) {
	remote, _ := url.Parse("https://mcp.example.com/mcp")
	local, _ := url.Parse("http://127.0.0.1:8080/mcp")
	for _, c := range []struct {
		server *url.URL
		host   string
		want   string // "" allowed
	}{
		{remote, "as.example.com", ""},
		{remote, "localhost", "this machine is reachable only when the MCP server itself runs here"},
		{remote, "127.0.0.1", "this machine is reachable only"},
		{remote, "192.168.1.1", "non-public address"},
		{remote, "fe80::1", "non-public address"},
		{remote, "fd00::1%eth0", "non-public address"}, // a zoned literal, judged like fd00::1
		{remote, "fe80::1%eth0", "non-public address"},
		{remote, "::1%lo", "this machine is reachable only"},
		{local, "localhost", ""},
		{local, "::1", ""},
		{local, "10.0.0.1", "non-public address"},
	} {
		d := &dialer{anyHost: true, loopback: c.server.Hostname() == "127.0.0.1"}
		err := d.signInHost(c.host)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("server %s, host %s: %v, want %q", c.server, c.host, err, c.want)
		}
	}
	srv := httptest.NewServer(http.RedirectHandler("https://as.example.com/", http.StatusFound))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, err := NewSignInClient(u).Get(srv.URL + "/.well-known/oauth-protected-resource")
	var re *RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "during sign-in") {
		t.Fatalf("got %v, want the redirect refused", err)
	}
}
