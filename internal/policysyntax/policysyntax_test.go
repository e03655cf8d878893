package policysyntax

import (
	"net/netip"
	"testing"
)

func TestParseHostPortKinds(t *testing.T) {
	for in, want := range map[string]HostPort{
		"api.github.com:443":  {Name: "api.github.com", Port: 443},
		"*.example.com:8443":  {Name: "example.com", Wildcard: true, Port: 8443},
		"10.0.0.5:80":         {IP: netip.MustParseAddr("10.0.0.5"), Port: 80},
		"[2001:db8::1]:9000":  {IP: netip.MustParseAddr("2001:db8::1"), Port: 9000},
		"under_score.corp:22": {Name: "under_score.corp", Port: 22},
	} {
		got, err := ParseHostPort(in)
		if err != nil || got != want {
			t.Errorf("ParseHostPort(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"*.com:443", "API.example.com:443", "a.example.:443", "[::ffff:1.2.3.4]:80", "x:0", "x", "*:1"} {
		if got, err := ParseHostPort(in); err == nil {
			t.Errorf("ParseHostPort(%q) = %+v, want an error", in, got)
		}
	}
	for _, p := range []string{"/", "~/", "~/x", "${TMP}/", "${TMP}/a/b"} {
		if err := Path(p); err != nil {
			t.Errorf("Path(%q): %v", p, err)
		}
	}
	for _, p := range []string{"", "~", "${TMP}", "x", "/a/../b", "/a\x01"} {
		if err := Path(p); err == nil {
			t.Errorf("Path(%q) accepted", p)
		}
	}
}
