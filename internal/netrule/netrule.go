package netrule

import (
	"errors"
	"fmt"
	"iter"
	"net/netip"
	"net/url"
	"strings"
)

var nonPublicPrefixes = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:db8::/32",
		"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// NonPublic reports loopback, private, link-local (169.254.169.254 included),
// CGNAT, documentation, multicast, reserved and unspecified addresses, and IPv6
// addresses that embed a non-public IPv4 address (6to4, NAT64). A zoned
// IPv6 literal (fd00::1%eth0) is judged like the address without its zone
// (netip.Prefix.Contains never matches a zoned address, so it would pass for
// public otherwise).
func NonPublic(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range nonPublicPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	if a.Is6() {
		b := a.As16()
		if b[0] == 0x20 && b[1] == 0x02 { // 6to4 2002:V4ADDR::/48
			return NonPublic(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
		if nat64.Contains(a) { // NAT64 well-known prefix
			return NonPublic(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		}
	}
	return false
}

// LoopbackHost reports a URL host (without port) that names this machine:
// an IPv4 or IPv6 loopback address, "localhost" or a name under ".localhost"
// (RFC 6761: always loopback, never asked of DNS).
func LoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().WithZone("").IsLoopback()
	}
	h := strings.ToLower(host)
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// MaxURL is the longest remote server URL a lock entry may hold.
const MaxURL = 2048

// ParseServerURL checks a remote server's URL as a lock entry holds it: an
// absolute https URL, or http to a loopback host only; no user name or
// password (a credential would end up in the committed lock), no fragment,
// at most MaxURL bytes of printable ASCII (percent-encode the rest). The
// returned URL's origin (scheme, host, port) is the only place mcpsum
// connects to for the entry.
func ParseServerURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("empty URL")
	}
	if len(raw) > MaxURL {
		return nil, fmt.Errorf("longer than %d bytes", MaxURL)
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f {
			return nil, errors.New("contains a space, a control character or non-ASCII text (percent-encode it)")
		}
	}
	if full := withScheme(raw); full != "" {
		return nil, fmt.Errorf("has no scheme: write it in full, as %s", full)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a valid URL")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("scheme %q: want https (or http to this machine)", u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return nil, errors.New("not an absolute URL with a host (want https://host/path)")
	case u.User != nil:
		return nil, errors.New("holds a user name or password, which would be written to the lock: pass credentials with --header NAME=ENVVAR instead")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, errors.New("has a #fragment, which HTTP never sends: remove it")
	case u.Scheme == "http" && !LoopbackHost(u.Hostname()):
		return nil, fmt.Errorf("plain http to %s: mcpsum speaks http only to this machine (127.0.0.1, ::1, localhost); use https", u.Hostname())
	}
	if p := u.Port(); p != "" && (len(p) > 5 || p[0] == '0' || portNumber(p) > 65535) {
		return nil, fmt.Errorf("port %q: want 1 to 65535", p)
	}
	return u, nil
}

// withScheme is raw written without a scheme ("127.0.0.1:3001/mcp",
// "mcp.example.com/mcp") in full, with http for a loopback host and https
// for any other, when that is a URL ParseServerURL takes; "" otherwise.
func withScheme(raw string) string {
	if strings.Contains(raw, "://") {
		return ""
	}
	u, err := url.Parse("https://" + raw)
	if err != nil || u.Host == "" {
		return ""
	}
	full := "https://" + raw
	if LoopbackHost(u.Hostname()) {
		full = "http://" + raw
	}
	if _, err := ParseServerURL(full); err != nil {
		return ""
	}
	return full
}

func portNumber(p string) int {
	n := 0
	for _, c := range p {
		n = n*10 + int(c-'0')
	}
	return n
}

// Origin is the scheme, host and port of u with the port always written
// ("https://example.com:443").
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + strings.ToLower(host) + ":" + port
}

// reserved are header names mcpsum sets itself (or the HTTP stack does): a
// lock entry may not set them. Lower case.
var reserved = []string{"host", "content-type", "content-length", "accept", "accept-encoding",
	"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "expect",
	"last-event-id", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name"}

// HeaderName checks a header name a lock entry sets (--header NAME=ENVVAR):
// an HTTP token of at most 128 bytes, not one mcpsum or HTTP itself manages
// (Host, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*, Proxy-*, hop-by-hop headers).
func HeaderName(name string) error {
	if name == "" || len(name) > 128 {
		return errors.New("want 1 to 128 characters")
	}
	if !HeaderToken(name) {
		return fmt.Errorf("%q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
	}
	l := strings.ToLower(name)
	for _, r := range reserved {
		if l == r {
			return fmt.Errorf("%s is set by mcpsum or by HTTP itself; a lock entry cannot set it", name)
		}
	}
	if strings.HasPrefix(l, "mcp-param-") || strings.HasPrefix(l, "proxy-") {
		return fmt.Errorf("%s is set by mcpsum or by HTTP itself; a lock entry cannot set it", name)
	}
	return nil
}

// HeaderTwin returns the first of names that is the same HTTP header as
// name (header names are case-insensitive: "X-Key" and "x-key" are one
// header). It is the one rule for a header given twice, in a lock entry,
// on lock's command line and in a client's config.
func HeaderTwin(names iter.Seq[string], name string) (string, bool) {
	for other := range names {
		if strings.EqualFold(other, name) {
			return other, true
		}
	}
	return "", false
}

// HeaderToken reports whether name is an HTTP token (1*tchar) of at most
// 128 bytes: a header name that cannot smuggle anything.
func HeaderToken(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !tchar(name[i]) {
			return false
		}
	}
	return true
}

func tchar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// HeaderValue checks a header value taken from the environment: no control
// characters but tab (a CR or LF would smuggle a header or a request).
func HeaderValue(v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return errors.New("contains a control character (a line break?)")
		}
	}
	return nil
}

// ResourceCovers reports whether the OAuth resource identifier resource
// (RFC 8707, as a lock entry's oauth.resource pins it) covers serverURL: the
// same origin (scheme, host and port, the port written or not), and
// serverURL's path is the resource's path or lies below it at a "/"
// boundary. A resource with a query covers only its own URL. A path with a
// "." or ".." segment (also percent-encoded) covers and is covered by
// nothing: a server could resolve it elsewhere. A token issued for the
// resource may be sent to the URLs it covers and nowhere else.
func ResourceCovers(resource, serverURL string) bool {
	ru, err := ParseServerURL(resource)
	if err != nil {
		return false
	}
	su, err := ParseServerURL(serverURL)
	if err != nil || Origin(ru) != Origin(su) || dotSegment(ru.Path) || dotSegment(su.Path) {
		return false
	}
	if ru.RawQuery != "" || ru.ForceQuery {
		return ru.EscapedPath() == su.EscapedPath() && ru.RawQuery == su.RawQuery
	}
	rp, sp := strings.TrimSuffix(ru.EscapedPath(), "/"), su.EscapedPath()
	return sp == rp || strings.HasPrefix(sp, rp+"/")
}

func dotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
