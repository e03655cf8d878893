package lockfile

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// oauthServer is remoteServer signing in with OAuth.
func oauthServer(t testing.TB, o *OAuth) *Server {
	t.Helper()
	s := remoteServer(t)
	s.OAuth = o
	if err := NewServer(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// The pin's members round-trip; scopes are sorted and unique; the digest
// computed for the pin is the RFC 8785 digest of the object written (every
// member covered, absent ones left out so older entries keep their digest).
func TestOAuthPinRoundTrip(t *testing.T) {
	for name, o := range map[string]*OAuth{
		"issuer and resource": {Issuer: "https://as.example.com", Resource: "https://mcp.example.com/mcp"},
		"all": {Issuer: "https://as.example.com/t1", Resource: "https://mcp.example.com", Scopes: []string{"write", "read", "read"},
			ClientID: "https://org.example/mcpsum.json", ClientSecretEnv: "MCP_CLIENT_SECRET"},
	} {
		t.Run(name, func(t *testing.T) {
			s := oauthServer(t, o)
			var entry bytes.Buffer
			if err := appendEntry(&entry, s, false); err != nil {
				t.Fatal(err)
			}
			if d, err := ExactDigest(entry.Bytes()); err != nil || d != s.Digests.Surface {
				t.Fatalf("surface digest %s, RFC 8785 of the written entry %s (%v)", s.Digests.Surface, d, err)
			}
			b, err := Marshal(&File{Servers: map[string]*Server{"r": s}})
			if err != nil {
				t.Fatal(err)
			}
			g := mustParse(t, "r.lock", b).Servers["r"]
			if !g.OAuth.Equal(s.OAuth) {
				t.Fatalf("parsed pin %+v, want %+v", g.OAuth, s.OAuth)
			}
			if name == "all" && !slices.Equal(g.OAuth.Scopes, []string{"read", "write"}) {
				t.Fatalf("scopes %q, want sorted and unique", g.OAuth.Scopes)
			}
			if name == "issuer and resource" && strings.Contains(string(b), "scopes") {
				t.Fatalf("an empty member was written:\n%s", b)
			}
		})
	}
}

// Every member of the pin is covered by the surface digest: an edit fails
// the load.
func TestOAuthPinDigestCoversEveryMember(t *testing.T) {
	s := oauthServer(t, &OAuth{Issuer: "https://as.example.com", Resource: "https://mcp.example.com/mcp", Scopes: []string{"read"},
		ClientID: "client-1", ClientSecretEnv: "SECRET_VAR"})
	b, _ := Marshal(&File{Servers: map[string]*Server{"r": s}})
	for _, edit := range [][2]string{
		{`"https://as.example.com"`, `"https://as.example.net"`},
		{`"resource": "https://mcp.example.com/mcp"`, `"resource": "https://mcp.example.com"`},
		{`"read"`, `"admin"`},
		{`"client-1"`, `"client-2"`},
		{`"SECRET_VAR"`, `"OTHER_VAR"`},
	} {
		_, err := Parse("r.lock", []byte(replaceOnce(t, string(b), edit[0], edit[1])))
		if ie := asIntegrity(t, err); ie.Kind != "surface" {
			t.Errorf("%s → %s: %v, want a surface mismatch", edit[0], edit[1], err)
		}
	}
}

// An entry whose url its oauth resource does not cover is refused when the
// lock is read, naming both: a diff that changes only the url cannot send
// the token kept for one server to another.
func TestOAuthResourceMustCoverURL(t *testing.T) {
	s := oauthServer(t, &OAuth{Issuer: "https://as.example.com", Resource: "https://mcp.example.com/mcp"})
	for _, url := range []string{"https://evil.example/mcp", "https://mcp.example.com/other", "https://mcp.example.com:8443/mcp",
		"https://mcp.example.com/mcp/../admin"} {
		s2 := *s
		s2.URL = url
		err := NewServer(&s2)
		fe := asFormat(t, err)
		if fe.Item != "oauth.resource" || !strings.Contains(err.Error(), `"https://mcp.example.com/mcp"`) || !strings.Contains(err.Error(), url) {
			t.Errorf("url %s: got %v, want oauth.resource refused naming both", url, err)
		}
	}
	// The same edit in a committed file (digests recomputed by whoever
	// edited it) is refused on load.
	evil := *s
	evil.URL = "https://evil.example/mcp"
	evil.OAuth = &OAuth{Issuer: "https://as.example.com", Resource: "https://evil.example/mcp"}
	if err := NewServer(&evil); err != nil {
		t.Fatal(err)
	}
	eb, _ := Marshal(&File{Servers: map[string]*Server{"r": &evil}})
	edited := replaceOnce(t, string(eb), `"resource": "https://evil.example/mcp"`, `"resource": "https://mcp.example.com/mcp"`)
	edited = replaceOnce(t, edited, `"surface": "`+evil.Digests.Surface+`"`, `"surface": "`+s.Digests.Surface+`"`)
	_, err := Parse("r.lock", []byte(edited))
	if fe := asFormat(t, err); !strings.Contains(fe.Error(), "does not cover") {
		t.Fatalf("got %v, want the url refused", err)
	}
}

func TestOAuthPinRefused(t *testing.T) {
	for name, c := range map[string]struct {
		o    OAuth
		item string
		want string
	}{
		"scope with a space":   {OAuth{Scopes: []string{"a b"}}, "oauth.scopes", "not an OAuth scope"},
		"scope with a quote":   {OAuth{Scopes: []string{`a"`}}, "oauth.scopes", "not an OAuth scope"},
		"secret without id":    {OAuth{ClientSecretEnv: "X"}, "oauth.clientSecretEnv", "clientId"},
		"secret not a name":    {OAuth{ClientID: "c", ClientSecretEnv: "hunter2!"}, "oauth.clientSecretEnv", "environment variable"},
		"client id with space": {OAuth{ClientID: "a b"}, "oauth.clientId", "printable ASCII"},
		"http issuer":          {OAuth{Issuer: "http://as.example.com"}, "oauth.issuer", "only to this machine"},
	} {
		t.Run(name, func(t *testing.T) {
			o := c.o
			if o.Issuer == "" {
				o.Issuer = "https://as.example.com"
			}
			o.Resource = "https://mcp.example.com/mcp"
			s := remoteServer(t)
			s.OAuth = &o
			err := NewServer(s)
			if fe := asFormat(t, err); fe.Item != c.item || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v (item %q), want %s: %q", err, fe.Item, c.item, c.want)
			}
		})
	}
}

// A changed resource is definitional drift, and so is a scope the server
// now asks for that the lock does not grant; a narrower ask is not.
func TestOAuthDrift(t *testing.T) {
	pin := func(res string, scopes ...string) *Server {
		return &Server{URL: "https://mcp.example.com/mcp", OAuth: &OAuth{Issuer: "https://as.example.com", Resource: res, Scopes: scopes}}
	}
	locked := pin("https://mcp.example.com/mcp", "read", "write")
	kinds := func(fs []Finding) (out []string) {
		for _, f := range fs {
			if f.Class != Definitional {
				t.Errorf("finding %v is not definitional", f)
			}
			out = append(out, f.Kind)
		}
		return out
	}
	if got := kinds(appendOAuthDrift(nil, locked, pin("https://mcp.example.com/mcp", "read"))); len(got) != 0 {
		t.Errorf("a narrower ask: %v, want no drift", got)
	}
	if got := kinds(appendOAuthDrift(nil, locked, pin("https://mcp.example.com", "read"))); !slices.Equal(got, []string{KindOAuthResource}) {
		t.Errorf("another resource: %v", got)
	}
	fs := appendOAuthDrift(nil, locked, pin("https://mcp.example.com/mcp", "read", "admin"))
	if got := kinds(fs); !slices.Equal(got, []string{KindOAuthScopes}) || fs[0].Locked != "read write" || fs[0].Observed != "read admin" {
		t.Errorf("a wider ask: %+v", fs)
	}
	if s := fs[0].String(); !strings.Contains(s, `oauthScopes changed: locked "read write", observed "read admin"`) {
		t.Errorf("rendered %q", s)
	}
}
