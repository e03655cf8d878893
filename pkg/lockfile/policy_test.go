package lockfile

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidatePath(t *testing.T) {
	tests := []struct {
		path string
		err  string // "" = valid
	}{
		{"/", ""}, {"/srv/data", ""}, {"/a/./b/", ""}, {"~/", ""}, {"~/notes", ""}, {"~/.config/x..y", ""},
		{"${TMP}/", ""}, {"${TMP}/work", ""}, {"/a..b/c", ""},
		{"~", `write "~/" for the home folder`}, {"${TMP}", `write "${TMP}/"`}, // the sandbox's rule (issue 11)
		{"", "empty path"}, {"notes", "must be absolute"}, {"./x", "must be absolute"},
		{"~root", "must be absolute"}, {"~root/x", "must be absolute"}, {"$HOME/x", "must be absolute"},
		{"${TMP}x", "must be absolute"}, {"${TMPDIR}/x", "must be absolute"},
		{"/a/../etc", "must not contain a .. component"}, {"~/..", "must not contain a .. component"},
		{"${TMP}/../x", "must not contain a .. component"}, {"/a/b/..", "must not contain a .. component"},
		{"/a\nb", "control characters"}, {"/a\x00", "control characters"}, {"/a\xff", "invalid UTF-8"},
	}
	for _, tt := range tests {
		err := ValidatePath(tt.path)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ValidatePath(%q) = %v, want %q", tt.path, err, tt.err)
		}
	}
}

func TestValidateHostPort(t *testing.T) {
	tests := []struct {
		entry string
		err   string
	}{
		{"api.github.com:443", ""}, {"*.example.com:443", ""}, {"10.0.0.5:8080", ""}, {"[::1]:9000", ""},
		{"localhost:1", ""}, {"x:65535", ""}, {"a-b.c-d.io:80", ""}, {"[2001:db8::8a2e:370:7334]:443", ""},
		{"xn--bcher-kva.example:443", ""},
		{"api.github.com", "want host:port"}, {"api.github.com:", "port must be"}, {"api.github.com:0", "port must be"},
		{"api.github.com:65536", "port must be"}, {"api.github.com:0443", "port must be"}, {"api.github.com:+443", "port must be"},
		{"api.github.com:https", "port must be"}, {":443", "empty host"}, {"API.github.com:443", "lower case"},
		{"*:443", "not a valid host name"}, {"*.:443", "not a valid host name"}, {"a.*.com:443", "not a valid host name"},
		{"*example.com:443", "not a valid host name"}, {"-a.com:443", "not a valid host name"}, {"a-.com:443", "not a valid host name"},
		{"a..com:443", "not a valid host name"}, {"a.com.:443", "not a valid host name"}, {"a_b.com:443", ""},
		{"*.com:443", "below a top-level domain"}, {"a b.com:443", "not a valid host name"}, {"ünicode.example:443", "not a valid host name"},
		{"1.2.3.256:80", "not a valid IPv4"}, {"010.0.0.1:80", "not a valid IPv4"}, {"1.2.3:80", "not a valid IPv4"},
		{"host.123:80", "last label is numeric"},
		{"::1:9000", "in brackets"}, {"[::1]", "want [IPv6]:port"}, {"[::1]9000", "want [IPv6]:port"},
		{"[fe80::1%eth0]:80", "without zone"}, {"[1.2.3.4]:80", "without zone"}, {"[::ffff:1.2.3.4]:80", "without zone"},
		{"https://a.com:443", "in brackets"}, {"a.com:443/x", "port must be"},
		{strings.Repeat("a", 64) + ".com:443", "not a valid host name"},
	}
	for _, tt := range tests {
		err := ValidateHostPort(tt.entry)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ValidateHostPort(%q) = %v, want %q", tt.entry, err, tt.err)
		}
	}
}

func TestKeepPolicy(t *testing.T) {
	old := acmeServer(t) // sources read_file, resources:*, prompts:*; sinks write_file
	t.Run("tools vanished", func(t *testing.T) {
		new := acmeServer(t)
		new.Policy = nil
		setItem(t, new, KindTool, "read_file", "")
		setItem(t, new, KindTool, "write_file", "")
		setItem(t, new, KindTool, "write_file_v2", `{"name":"write_file_v2"}`)
		setItem(t, new, KindTool, "odd\x1bname", `{"name":"odd\u001bname"}`)
		if err := NewServer(new); err != nil {
			t.Fatal(err)
		}
		old.Policy.Taint.Sinks = append(old.Policy.Taint.Sinks, "odd\x1bname-gone")
		dropped := KeepPolicy(old, new)
		old.Policy.Taint.Sinks = old.Policy.Taint.Sinks[:1]
		if want := []string{"sources: read_file", "sinks: write_file", `sinks: "odd\x1bname-gone"`}; !reflect.DeepEqual(dropped, want) {
			t.Errorf("dropped %q, want %q", dropped, want)
		}
		p := new.Policy
		if !reflect.DeepEqual(p.Taint.Sources, []string{"resources:*", "prompts:*"}) || len(p.Taint.Sinks) != 0 || p.Taint.Sinks == nil {
			t.Errorf("taint %+v", p.Taint)
		}
		if !reflect.DeepEqual(p.Sandbox, old.Policy.Sandbox) {
			t.Errorf("sandbox not copied: %+v", p.Sandbox)
		}
		// A deep copy: editing new does not touch old.
		p.Sandbox.Filesystem.Write[0] = "/elsewhere"
		if old.Policy.Sandbox.Filesystem.Write[0] != "/srv/workspace" {
			t.Error("KeepPolicy shared slices with old")
		}
		// The result is a valid entry.
		if err := NewServer(new); err != nil {
			t.Errorf("kept policy invalid: %v", err)
		}
	})
	t.Run("all tools kept", func(t *testing.T) {
		new := acmeServer(t)
		new.Policy = nil
		if dropped := KeepPolicy(old, new); dropped != nil || !reflect.DeepEqual(new.Policy, old.Policy) {
			t.Errorf("dropped %v, policy %+v", dropped, new.Policy)
		}
	})
	t.Run("no old policy", func(t *testing.T) {
		new := acmeServer(t)
		prev := new.Policy
		if dropped := KeepPolicy(&Server{}, new); dropped != nil || new.Policy != prev {
			t.Error("without an old policy new must be left alone")
		}
		if KeepPolicy(nil, new) != nil {
			t.Error("nil old")
		}
	})
}
