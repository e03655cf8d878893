package lockfile

import (
	"strings"
	"testing"
)

// remoteServer is timeServer's surface served by a remote server.
func remoteServer(t testing.TB) *Server {
	t.Helper()
	s := timeServer(t)
	s.Command, s.EnvPassthrough = nil, nil
	s.URL = "https://mcp.example.com/mcp"
	s.Headers = map[string]string{"Authorization": "EXAMPLE_TOKEN", "X-Team": "TEAM_ID"}
	if err := NewServer(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRemoteEntryRoundTrip(t *testing.T) {
	f := &File{Servers: map[string]*Server{"remote": remoteServer(t), "time": timeServer(t)}}
	if err := NewServer(f.Servers["time"]); err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{`"lockfileVersion": 3`, `"url": "https://mcp.example.com/mcp"`, `"Authorization": "EXAMPLE_TOKEN"`} {
		if !strings.Contains(text, want) {
			t.Errorf("marshalled file lacks %s:\n%s", want, text)
		}
	}
	if i := strings.Index(text, `"remote"`); strings.Contains(text[i:strings.Index(text, `"time"`)], `"command"`) {
		t.Error("a remote entry was written with a command")
	}
	g := mustParse(t, "remote.lock", b)
	if g.Version != 3 || !g.Servers["remote"].Remote() || g.Servers["time"].Remote() {
		t.Fatalf("parsed version %d, remote %v", g.Version, g.Servers["remote"].Remote())
	}
	b2, _ := Marshal(g)
	if string(b2) != text {
		t.Fatal("marshal(parse(marshal)) differs")
	}
	// A file without a remote entry keeps its old version.
	delete(g.Servers, "remote")
	if b3, _ := Marshal(g); !strings.Contains(string(b3), `"lockfileVersion": 1`) {
		t.Error("a file without remote entries is no longer version 1")
	}
}

func TestRemoteEntryDigestCoversURLAndHeaders(t *testing.T) {
	f := &File{Servers: map[string]*Server{"remote": remoteServer(t)}}
	b, _ := Marshal(f)
	for _, edit := range [][2]string{
		{`"https://mcp.example.com/mcp"`, `"https://mcp.example.net/mcp"`},
		{`"EXAMPLE_TOKEN"`, `"OTHER_TOKEN"`},
		{`"X-Team"`, `"X-Tenant"`},
	} {
		_, err := Parse("remote.lock", []byte(replaceOnce(t, string(b), edit[0], edit[1])))
		if ie := asIntegrity(t, err); ie.Kind != "surface" {
			t.Errorf("%s → %s: %v, want a surface mismatch", edit[0], edit[1], err)
		}
	}
}

func TestRemoteEntryRefused(t *testing.T) {
	f := &File{Servers: map[string]*Server{"remote": remoteServer(t)}}
	b, _ := Marshal(f)
	good := string(b)
	for name, c := range map[string]struct{ from, to, want string }{
		"version 2":        {`"lockfileVersion": 3`, `"lockfileVersion": 2`, "needs lockfileVersion 3"},
		"unknown version":  {`"lockfileVersion": 3`, `"lockfileVersion": 4`, "upgrade mcpsum"},
		"plain http":       {`"https://mcp.example.com/mcp"`, `"http://mcp.example.com/mcp"`, "only to this machine"},
		"credentials":      {`"https://mcp.example.com/mcp"`, `"https://u:p@mcp.example.com/mcp"`, "password"},
		"reserved header":  {`"X-Team"`, `"Mcp-Session-Id"`, "cannot set it"},
		"value not a name": {`"TEAM_ID"`, `"Bearer abc"`, "not an environment variable name"},
		"both":             {`"url":`, `"command": ["x"], "url":`, "not both"},
		"case duplicate":   {`"X-Team"`, `"authorization"`, "case-insensitive"},
		"sandbox": {`"digests"`, `"policy": {"sandbox": {"filesystem": {"read": [], "write": []}, "network": {"allow": []}}},
      "digests"`, "no process for mcpsum to confine"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("remote.lock", []byte(replaceOnce(t, good, c.from, c.to)))
			fe := asFormat(t, err)
			if !strings.Contains(fe.Error(), c.want) {
				t.Fatalf("got %v, want %q", fe, c.want)
			}
		})
	}
}
