package lockfile

import (
	"bytes"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// OAuth is a remote entry's pinned sign-in: who issues its tokens, what they
// are for, and what they may do. A token is bound to all of it: mcpsum asks
// Issuer for a token for Resource (RFC 8707) with Scopes, and sends it only
// to the URLs Resource covers (netrule.ResourceCovers); an entry whose url
// its resource does not cover is refused when the lock is read.
type OAuth struct {
	Issuer, Resource string
	// Scopes are the scopes mcpsum asks for when it signs in (sorted,
	// unique; empty: none asked, the authorization server's default).
	Scopes []string
	// ClientID is a client the user registered with the authorization
	// server beforehand, or the URL of a Client ID Metadata Document; ""
	// when mcpsum registers itself (RFC 7591, per machine).
	ClientID string
	// ClientSecretEnv names the environment variable holding ClientID's
	// secret (never the secret); "" for a public client.
	ClientSecretEnv string
}

// Equal reports two pins alike in every field.
func (o *OAuth) Equal(p *OAuth) bool {
	if o == nil || p == nil {
		return o == p
	}
	return o.Issuer == p.Issuer && o.Resource == p.Resource && slices.Equal(o.Scopes, p.Scopes) &&
		o.ClientID == p.ClientID && o.ClientSecretEnv == p.ClientSecretEnv
}

func parseOAuth(raw []byte) (*OAuth, error) {
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	o := &OAuth{}
	have := 0
	for _, m := range ms {
		switch m.key {
		case "issuer":
			o.Issuer, err = asString(m.val)
			have++
		case "resource":
			o.Resource, err = asString(m.val)
			have++
		case "scopes":
			o.Scopes, err = asStrings(m.val)
		case "clientId":
			o.ClientID, err = asString(m.val)
		case "clientSecretEnv":
			o.ClientSecretEnv, err = asString(m.val)
		default:
			return nil, errf("unknown key %s (want issuer, resource, scopes, clientId, clientSecretEnv)", termtext.Quoted(m.key, 80))
		}
		if err != nil {
			return nil, errf("%s: %v", m.key, err)
		}
	}
	if have != 2 {
		return nil, errf("want both issuer and resource")
	}
	return o, nil
}

// maxScopes bounds a pin's scopes.
const maxScopes = 64

// checkOAuth validates a pinned sign-in (checkRemote calls it) and puts
// its scopes in order: issuer and resource pass the remote-URL rule, the
// resource covers the entry's url, scopes are RFC 6749 scope tokens, a
// client secret comes from a variable and only with a client id.
func checkOAuth(s *Server) *FormatError {
	o := s.OAuth
	if o == nil {
		return nil
	}
	fe := func(item string, format string, a ...any) *FormatError {
		return &FormatError{Item: item, Err: errf(format, a...)}
	}
	for _, v := range []struct{ what, u string }{{"oauth.issuer", o.Issuer}, {"oauth.resource", o.Resource}} {
		if _, err := netrule.ParseServerURL(v.u); err != nil {
			return fe(v.what, "%s: %v", termtext.Quoted(v.u, 80), err)
		}
	}
	if !netrule.ResourceCovers(o.Resource, s.URL) {
		return fe("oauth.resource", "%s does not cover the entry's url %s: a token for that resource is never sent to this url (the same origin, at or below the resource's path). Lock the server again with 'mcpsum lock --url URL' to sign in for the url it names",
			termtext.Quoted(o.Resource, 200), termtext.Quoted(s.URL, 200))
	}
	if len(o.Scopes) > maxScopes {
		return fe("oauth.scopes", "more than %d scopes", maxScopes)
	}
	for _, sc := range o.Scopes {
		if !ValidScope(sc) {
			return fe("oauth.scopes", "%s is not an OAuth scope (RFC 6749: printable ASCII without spaces, quotes or backslashes)", termtext.Quoted(sc, 80))
		}
	}
	slices.Sort(o.Scopes)
	o.Scopes = slices.Compact(o.Scopes)
	if o.ClientID != "" && !validClientID(o.ClientID) {
		return fe("oauth.clientId", "%s: want printable ASCII without spaces, at most 2048 bytes", termtext.Quoted(o.ClientID, 80))
	}
	if o.ClientSecretEnv != "" && (o.ClientID == "" || !ValidEnvName(o.ClientSecretEnv)) {
		return fe("oauth.clientSecretEnv", "%s: want the name of the environment variable that holds the secret of oauth.clientId (never the secret)", termtext.Quoted(o.ClientSecretEnv, 80))
	}
	return nil
}

// ValidScope reports an RFC 6749 scope-token: %x21 / %x23-5B / %x5D-7E,
// at most 256 bytes.
func ValidScope(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func validClientID(s string) bool {
	if len(s) > netrule.MaxURL {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// appendOAuth writes the oauth object in its fixed key order; the optional
// members only when set, so an entry without them keeps its bytes.
func appendOAuth(b *bytes.Buffer, o *OAuth) {
	b.WriteString(`{"issuer":`)
	encodeString(b, o.Issuer)
	b.WriteString(`,"resource":`)
	encodeString(b, o.Resource)
	if len(o.Scopes) > 0 {
		b.WriteString(`,"scopes":`)
		appendStrings(b, o.Scopes)
	}
	if o.ClientID != "" {
		b.WriteString(`,"clientId":`)
		encodeString(b, o.ClientID)
	}
	if o.ClientSecretEnv != "" {
		b.WriteString(`,"clientSecretEnv":`)
		encodeString(b, o.ClientSecretEnv)
	}
	b.WriteByte('}')
}

// jcsOAuth is the RFC 8785 form of the oauth object (keys in UTF-16
// order; absent optional members are left out, as appendOAuth does).
func jcsOAuth(b []byte, o *OAuth) []byte {
	b = append(b, '{')
	if o.ClientID != "" {
		b = append(jcsString(append(b, `"clientId":`...), o.ClientID), ',')
	}
	if o.ClientSecretEnv != "" {
		b = append(jcsString(append(b, `"clientSecretEnv":`...), o.ClientSecretEnv), ',')
	}
	b = jcsString(append(b, `"issuer":`...), o.Issuer)
	b = jcsString(append(b, `,"resource":`...), o.Resource)
	if len(o.Scopes) > 0 {
		b = append(b, `,"scopes":[`...)
		for i, sc := range o.Scopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = jcsString(b, sc)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendOAuthDrift adds the findings about a remote entry's sign-in, all
// definitional: another issuer (or OAuth started or stopped), another
// resource, and scopes the server now asks for that the lock does not
// grant (a narrower ask is not drift: the kept grant still covers it).
func appendOAuthDrift(out []Finding, locked, observed *Server) []Finding {
	var l, o OAuth
	if locked.OAuth != nil {
		l = *locked.OAuth
	}
	if observed.OAuth != nil {
		o = *observed.OAuth
	}
	if ch := change(l.Issuer, o.Issuer); ch != "" {
		out = append(out, Finding{Class: Definitional, Kind: KindOAuthIssuer, Change: ch, Locked: l.Issuer, Observed: o.Issuer})
	}
	if locked.OAuth == nil || observed.OAuth == nil {
		return out
	}
	if l.Resource != o.Resource {
		out = append(out, Finding{Class: Definitional, Kind: KindOAuthResource, Change: Changed, Locked: l.Resource, Observed: o.Resource})
	}
	for _, sc := range o.Scopes {
		if !slices.Contains(l.Scopes, sc) {
			out = append(out, Finding{Class: Definitional, Kind: KindOAuthScopes, Change: Changed, Locked: strings.Join(l.Scopes, " "), Observed: strings.Join(o.Scopes, " ")})
			break
		}
	}
	return out
}
