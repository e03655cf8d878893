package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/netrule"
)

func TestParseAllow(t *testing.T) {
	good := map[string]allowRule{
		"api.github.com:443":      {name: "api.github.com", port: 443},
		"*.example.com:443":       {name: "example.com", wildcard: true, port: 443},
		"10.0.0.5:8080":           {ip: netip.MustParseAddr("10.0.0.5"), port: 8080},
		"[::1]:9000":              {ip: netip.MustParseAddr("::1"), port: 9000},
		"localhost:1":             {name: "localhost", port: 1},
		"under_score.example:443": {name: "under_score.example", port: 443},
		"host:65535":              {name: "host", port: 65535},
	}
	for in, want := range good {
		got, err := parseAllowEntry(in)
		if err != nil || got != want {
			t.Errorf("parseAllowEntry(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := []string{"API.GitHub.com:443", "api.github.com.:443", "[::ffff:10.0.0.1]:80", "", "example.com", "example.com:", ":443", "example.com:0", "example.com:65536",
		"example.com:080", "example.com:https", "::1:443", "[::1]", "[::1]443", "[fe80::1%eth0]:443",
		"*.com:443", "*:443", "a.*.example.com:443", "exa mple.com:443", "-a.example.com:443",
		"1.2.3:443", "999.1.1.1:443", "example..com:443", "ünicode.example:443", "http://example.com:443",
		"example.com:443/path", strings.Repeat("a", 64) + ".com:443"}
	for _, in := range bad {
		if r, err := parseAllowEntry(in); err == nil {
			t.Errorf("parseAllowEntry(%q) = %+v, want an error", in, r)
		}
	}
	if _, err := parseAllow([]string{"ok.example:443", "bad"}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("parseAllow error should name the entry: %v", err)
	}
}

func TestDecide(t *testing.T) {
	l, err := parseAllow([]string{
		"api.example.com:443", "*.cdn.example:443", "localhost:8443", "127.0.0.1:8443",
		"internal.corp:443", "10.0.0.5:443", "mixed.example:443", "metadata.example:80",
		"v6only.example:443", "[2001:db8::1]:443", "rebind.example:443", "nat64.example:443",
		"sixtofour.example:443", "mapped.example:443", "cgnat.example:443", "empty.example:443",
	})
	if err != nil {
		t.Fatal(err)
	}
	dns := map[string][]string{
		"api.example.com":     {"93.184.216.34"},
		"a.cdn.example":       {"151.101.1.1"},
		"b.a.cdn.example":     {"151.101.1.2"},
		"localhost":           {"127.0.0.1", "::1"},
		"internal.corp":       {"10.0.0.5"},
		"mixed.example":       {"10.1.2.3", "93.184.216.35"},
		"metadata.example":    {"169.254.169.254"},
		"v6only.example":      {"fd00::1"},
		"rebind.example":      {"127.0.0.2"},
		"nat64.example":       {"64:ff9b::a00:5"},
		"sixtofour.example":   {"2002:c0a8:0101::1"},
		"mapped.example":      {"::ffff:127.0.0.1"},
		"cgnat.example":       {"100.64.0.1"},
		"empty.example":       {},
		"unlisted.example":    {"93.184.216.36"},
		"API.EXAMPLE.COM":     {"93.184.216.34"},
		"api.example.com.":    {"93.184.216.34"},
		"cdn.example":         {"151.101.1.3"},
		"xn--nxasmq6b.com":    {"93.184.216.37"},
		"never.resolved.test": {"93.184.216.38"},
	}
	lookups := 0
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		lookups++
		as, ok := dns[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		var out []netip.Addr
		for _, a := range as {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
	cases := []struct {
		target string
		allow  bool
		ips    string // space separated, when allowed
		reason string // substring, when refused
	}{
		{"api.example.com:443", true, "93.184.216.34", ""},
		{"API.Example.COM.:443", true, "93.184.216.34", ""},
		{"api.example.com:80", false, "", "host:port not in allowlist"},
		{"a.cdn.example:443", true, "151.101.1.1", ""},
		{"b.a.cdn.example:443", true, "151.101.1.2", ""},
		{"cdn.example:443", false, "", "not in allowlist"}, // wildcard is not the apex
		{"evilcdn.example:443", false, "", "not in allowlist"},
		{"localhost:8443", true, "127.0.0.1", ""}, // 127.0.0.1:8443 is listed; ::1 is dropped
		{"internal.corp:443", true, "10.0.0.5", ""},
		{"mixed.example:443", true, "93.184.216.35", ""},
		{"metadata.example:80", false, "", "non-public [169.254.169.254]"},
		{"v6only.example:443", false, "", "non-public [fd00::1]"},
		{"rebind.example:443", false, "", "non-public [127.0.0.2]"},
		{"nat64.example:443", false, "", "non-public"},
		{"sixtofour.example:443", false, "", "non-public"},
		{"mapped.example:443", false, "", "non-public [127.0.0.1]"},
		{"cgnat.example:443", false, "", "non-public [100.64.0.1]"},
		{"empty.example:443", false, "", "no addresses"},
		{"unlisted.example:443", false, "", "not in allowlist"},
		{"127.0.0.1:8443", true, "127.0.0.1", ""},
		{"127.0.0.1:8444", false, "", "ip:port not in allowlist"},
		{"[::ffff:127.0.0.1]:8443", true, "127.0.0.1", ""},
		{"[2001:db8::1]:443", true, "2001:db8::1", ""},
		{"[fe80::1%eth0]:443", false, "", "zoned"},
		{"169.254.169.254:80", false, "", "ip:port not in allowlist"},
		{"10.0.0.5:443", true, "10.0.0.5", ""},
		{"api.example.com", false, "", "malformed"},
		{"api.example.com:0443", false, "", "port"},
		{"bad host:443", false, "", "not a valid host name"},
	}
	for _, c := range cases {
		d := l.decide(context.Background(), c.target, lookup)
		var ips []string
		for _, ip := range d.IPs {
			ips = append(ips, ip.String())
		}
		if d.Allow != c.allow || c.allow && strings.Join(ips, " ") != c.ips || !c.allow && !strings.Contains(d.Reason, c.reason) {
			t.Errorf("decide(%q) = %+v, want allow=%v ips=%q reason~%q", c.target, d, c.allow, c.ips, c.reason)
		}
	}
	lookups = 0
	l.decide(context.Background(), "never.resolved.test:443", lookup)
	if lookups != 0 {
		t.Error("a name not in the allowlist was resolved")
	}
}

func FuzzParseAllow(f *testing.F) {
	for _, s := range []string{"api.github.com:443", "*.example.com:443", "[::1]:9000", "10.0.0.5:8080", "x:0", "[fe80::1%lo]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseAllowEntry(s)
		if err != nil {
			return
		}
		if r.port == 0 {
			t.Fatalf("%q: port 0 accepted", s)
		}
		if r.ip.IsValid() == (r.name != "") {
			t.Fatalf("%q: rule %+v is both or neither name and IP", s, r)
		}
		if r.ip.IsValid() && (r.ip.Zone() != "" || r.ip.Is4In6()) {
			t.Fatalf("%q: zoned or mapped address kept", s)
		}
		if r.name != "" {
			if n, ok := normalizeName(r.name); !ok || n != r.name {
				t.Fatalf("%q: name %q not normalized", s, r.name)
			}
		}
	})
}

func FuzzDecide(f *testing.F) {
	for _, s := range []string{"api.example.com:443", "127.0.0.1:8443", "[::1]:443", "a.cdn.example:443", "x", "[fe80::1%25x]:1"} {
		f.Add(s)
	}
	l, _ := parseAllow([]string{"api.example.com:443", "*.cdn.example:443", "127.0.0.1:8443", "localhost:8443"})
	f.Fuzz(func(t *testing.T, target string) {
		lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("93.184.216.34")}, nil
		}
		d := l.decide(context.Background(), target, lookup)
		if !d.Allow {
			if d.Reason == "" {
				t.Fatalf("%q refused without a reason", target)
			}
			return
		}
		if len(d.IPs) == 0 || d.Port == 0 {
			t.Fatalf("%q allowed without an address: %+v", target, d)
		}
		for _, ip := range d.IPs {
			if netrule.NonPublic(ip) && !l.ipListed(ip, d.Port) {
				t.Fatalf("%q: non-public %s allowed without being listed", target, ip)
			}
		}
	})
}
