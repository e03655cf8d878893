package sandbox

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/policysyntax"
)

// allowRule is one network.allow entry: a name (exact, or a "*." wildcard that
// matches strict subdomains only) or an IP address, with a port.
type allowRule struct {
	name     string // lower case, no trailing dot; the suffix without "*." for a wildcard
	wildcard bool
	ip       netip.Addr // valid for an IP entry (unmapped, no zone)
	port     uint16
}

// allowList is a parsed network.allow.
type allowList struct{ rules []allowRule }

// parseAllow parses network.allow entries; any malformed entry is an error.
func parseAllow(entries []string) (*allowList, error) {
	l := &allowList{}
	for _, e := range entries {
		r, err := parseAllowEntry(e)
		if err != nil {
			return nil, &PolicyError{Field: "network.allow", Value: e, Reason: err.Error()}
		}
		l.rules = append(l.rules, r)
	}
	return l, nil
}

// parseAllowEntry parses an entry by the one syntax lockfile validation also
// uses (internal/policysyntax), so an entry `show` accepts is one the sandbox
// accepts.
func parseAllowEntry(e string) (allowRule, error) {
	hp, err := policysyntax.ParseHostPort(e)
	if err != nil {
		return allowRule{}, err
	}
	if hp.IP.IsValid() {
		return allowRule{ip: hp.IP, port: hp.Port}, nil
	}
	return allowRule{name: hp.Name, wildcard: hp.Wildcard, port: hp.Port}, nil
}

// splitHostPort splits "host:port" or "[v6]:port" strictly.
func splitHostPort(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 || !strings.HasPrefix(s[end+1:], ":") {
			return "", "", fmt.Errorf("want \"[IPv6]:port\"")
		}
		return s[1:end], s[end+2:], nil
	}
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return "", "", fmt.Errorf("missing \":port\" (entries are host:port, as in \"api.example.com:443\")")
	}
	host, port = s[:i], s[i+1:]
	if strings.Contains(host, ":") {
		return "", "", fmt.Errorf("write an IPv6 address in brackets, as in \"[2001:db8::1]:443\"")
	}
	if host == "" {
		return "", "", fmt.Errorf("missing host before \":%s\"", port)
	}
	return host, port, nil
}

func parsePort(s string) (uint16, error) {
	if s == "" || len(s) > 5 || strings.TrimLeft(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return uint16(n), nil
}

func looksNumeric(s string) bool {
	return s != "" && strings.TrimLeft(s, "0123456789.") == ""
}

// normalizeName lower-cases a DNS name, drops one trailing dot and checks its
// syntax (LDH labels, underscores tolerated, 1..63 bytes each, 253 in all).
func normalizeName(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if s == "" || len(s) > 253 {
		return "", false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	if looksNumeric(s) {
		return "", false
	}
	return s, true
}

// lookupFunc resolves a name to addresses.
type lookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// decision is the egress proxy's verdict on one CONNECT.
type decision struct {
	Allow  bool
	Host   string       // normalized host (name or address)
	Port   uint16       //
	IPs    []netip.Addr // vetted addresses to dial, in order
	Reason string       // why it was refused
}

// decide applies the rules of notes/sandbox.md §4.3 to a CONNECT authority.
func (l *allowList) decide(ctx context.Context, authority string, lookup lookupFunc) decision {
	hostPart, portPart, err := splitHostPort(authority)
	if err != nil {
		return decision{Host: authority, Reason: "malformed CONNECT target: " + err.Error()}
	}
	port, err := parsePort(portPart)
	if err != nil {
		return decision{Host: hostPart, Reason: err.Error()}
	}
	d := decision{Host: hostPart, Port: port}
	if ip, err := netip.ParseAddr(hostPart); err == nil {
		if ip.Zone() != "" {
			d.Reason = "zoned IPv6 addresses are refused"
			return d
		}
		ip = ip.Unmap()
		d.Host = ip.String()
		if !l.ipListed(ip, port) {
			d.Reason = "ip:port not in allowlist"
			return d
		}
		d.Allow, d.IPs = true, []netip.Addr{ip}
		return d
	}
	name, ok := normalizeName(hostPart)
	if !ok {
		d.Reason = "not a valid host name"
		return d
	}
	d.Host = name
	if !l.nameListed(name, port) {
		d.Reason = "host:port not in allowlist"
		return d
	}
	addrs, err := lookup(ctx, name)
	if err != nil {
		d.Reason = "cannot resolve: " + err.Error()
		return d
	}
	var refused []string
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		if !a.IsValid() || slices.Contains(d.IPs, a) {
			continue
		}
		if netrule.NonPublic(a) && !l.ipListed(a, port) {
			refused = append(refused, a.String())
			continue
		}
		d.IPs = append(d.IPs, a)
	}
	if len(d.IPs) == 0 {
		if len(refused) == 0 {
			d.Reason = "name has no addresses"
		} else {
			d.Reason = fmt.Sprintf("%s resolves only to non-public [%s], not listed as IP", name, strings.Join(refused, " "))
		}
		return d
	}
	d.Allow = true
	return d
}

func (l *allowList) ipListed(ip netip.Addr, port uint16) bool {
	for _, r := range l.rules {
		if r.ip.IsValid() && r.ip == ip && r.port == port {
			return true
		}
	}
	return false
}

func (l *allowList) nameListed(name string, port uint16) bool {
	for _, r := range l.rules {
		if r.ip.IsValid() || r.port != port {
			continue
		}
		if r.wildcard {
			if strings.HasSuffix(name, "."+r.name) {
				return true
			}
		} else if name == r.name {
			return true
		}
	}
	return false
}
