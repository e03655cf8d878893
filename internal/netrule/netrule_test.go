package netrule

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestNonPublic(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "10.1.1.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "0.1.2.3", "192.0.0.8", "198.18.0.1", "224.0.0.1", "240.0.0.1", "255.255.255.255",
		"::", "::1", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
		"2002:0a00:0001::1", "2001:db8::5", "192.0.2.1", "::127.0.0.1",
		// zoned literals are judged like the address without the zone
		"fd00::1%eth0", "fe80::1%eth0", "::1%lo", "fc00::1%25"} {
		if !NonPublic(netip.MustParseAddr(a)) {
			t.Errorf("%s should be non-public", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111",
		"64:ff9b::808:808", "2002:0808:0808::1"} {
		if NonPublic(netip.MustParseAddr(a)) {
			t.Errorf("%s should be public", a)
		}
	}
}

func TestParseServerURL(t *testing.T) {
	for _, ok := range []string{"https://mcp.example.com/mcp", "https://mcp.example.com:8443/a/b?x=1",
		"http://127.0.0.1:3001/mcp", "http://[::1]:80/", "http://localhost:9/mcp", "http://a.localhost/", "https://10.0.0.5/mcp"} {
		if _, err := ParseServerURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"":                                    "empty",
		"ftp://example.com/":                  "scheme",
		"http://example.com/mcp":              "only to this machine",
		"http://10.0.0.1/mcp":                 "only to this machine",
		"https://user:pw@example.com/":        "password",
		"https://example.com/#frag":           "fragment",
		"https://example.com/ x":              "space",
		"https://exämple.com/":                "non-ASCII",
		"mailto:x@example.com":                "scheme",
		"https:example.com":                   "absolute",
		"https://example.com:0/":              "port",
		"https://example.com:65536/":          "port",
		"https://example.com/\x1b[31m":        "control",
		"/relative/path":                      "scheme",
		"https://example.com:99999999999999/": "port",
	} {
		_, err := ParseServerURL(bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error mentioning %q", bad, err, want)
		}
	}
}

// A URL written without its scheme is refused with the URL in full, and
// that URL is one ParseServerURL takes (http only for this machine).
func TestParseServerURLWithoutScheme(t *testing.T) {
	for raw, full := range map[string]string{
		"127.0.0.1:3001/mcp":    "http://127.0.0.1:3001/mcp",
		"localhost:3001/mcp":    "http://localhost:3001/mcp",
		"mcp.example.com/mcp":   "https://mcp.example.com/mcp",
		"mcp.example.com:8443/": "https://mcp.example.com:8443/",
	} {
		_, err := ParseServerURL(raw)
		if err == nil || !strings.Contains(err.Error(), "no scheme: write it in full, as "+full) {
			t.Errorf("%q: got %v, want the URL in full, %s", raw, err, full)
			continue
		}
		if _, err := ParseServerURL(full); err != nil {
			t.Errorf("the suggested %s: %v", full, err)
		}
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Example.com/x":     "https://example.com:443",
		"http://127.0.0.1:8080/mcp": "http://127.0.0.1:8080",
		"http://[::1]/":             "http://[::1]:80",
	} {
		u, err := ParseServerURL(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Origin(u); got != want {
			t.Errorf("Origin(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestHeaderName(t *testing.T) {
	for _, ok := range []string{"Authorization", "X-Api-Key", "cookie", "x_y"} {
		if err := HeaderName(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Host", "mcp-session-id", "MCP-Protocol-Version", "Mcp-Param-Region", "Proxy-Authorization",
		"Content-Length", "Bad Name", "X:Y", "Ä", "Transfer-Encoding"} {
		if err := HeaderName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if HeaderValue("Bearer abc\r\nX-Evil: 1") == nil || HeaderValue("a\x00") == nil || HeaderValue("Bearer a.b-c") != nil {
		t.Error("HeaderValue: CR/LF/NUL must be refused and a plain token accepted")
	}
}

func TestLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{"127.0.0.1": true, "127.9.9.9": true, "::1": true, "[::1]": true, "localhost": true,
		"LOCALHOST": true, "x.localhost": true, "10.0.0.1": false, "example.com": false, "localhost.example.com": false, "::ffff:127.0.0.1": true,
		"::1%lo": true, "[::1%lo]": true, "fd00::1%eth0": false} {
		if got := LoopbackHost(h); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestHeaderTwin(t *testing.T) {
	names := []string{"Authorization", "X-Api-Key"}
	for _, tt := range []struct {
		name, twin string
		ok         bool
	}{
		{"x-api-key", "X-Api-Key", true},
		{"AUTHORIZATION", "Authorization", true},
		{"Authorization", "Authorization", true},
		{"X-Api-Keys", "", false},
		{"X-Api-Kеy", "", false}, // Cyrillic е: another header
	} {
		twin, ok := HeaderTwin(slices.Values(names), tt.name)
		if twin != tt.twin || ok != tt.ok {
			t.Errorf("HeaderTwin(%q) = %q, %v; want %q, %v", tt.name, twin, ok, tt.twin, tt.ok)
		}
	}
	if _, ok := HeaderTwin(slices.Values([]string(nil)), "A"); ok {
		t.Error("a twin in no names")
	}
}

func TestResourceCovers(t *testing.T) {
	for _, c := range []struct {
		resource, url string
		want          bool
	}{
		{"https://a.example/mcp", "https://a.example/mcp", true},
		{"https://a.example/mcp", "https://a.example:443/mcp", true},
		{"https://A.example/mcp", "https://a.example/mcp", true},
		{"https://a.example/mcp", "https://a.example/mcp/sub", true},
		{"https://a.example/mcp/", "https://a.example/mcp/sub", true},
		{"https://a.example/mcp", "https://a.example/mcp?x=1", true},
		{"https://a.example", "https://a.example/anything/mcp", true},
		{"https://a.example/", "https://a.example/anything", true},
		{"http://127.0.0.1:3000", "http://127.0.0.1:3000/mcp", true},
		{"https://a.example/mcp", "https://a.example/mcpx", false},
		{"https://a.example/mcp", "https://a.example/other", false},
		{"https://a.example/mcp", "https://b.example/mcp", false},
		{"https://a.example/mcp", "http://a.example/mcp", false},
		{"https://a.example/mcp", "https://a.example:8443/mcp", false},
		{"https://a.example/mcp", "https://a.example.evil.example/mcp", false},
		{"https://a.example/mcp", "https://a.example/mcp/../admin", false},
		{"https://a.example/mcp", "https://a.example/mcp/%2e%2e/admin", false},
		{"https://a.example/mcp?t=1", "https://a.example/mcp?t=1", true},
		{"https://a.example/mcp?t=1", "https://a.example/mcp?t=2", false},
		{"not a url", "https://a.example/mcp", false},
	} {
		if got := ResourceCovers(c.resource, c.url); got != c.want {
			t.Errorf("ResourceCovers(%q, %q) = %v, want %v", c.resource, c.url, got, c.want)
		}
	}
}
