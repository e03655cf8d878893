package policysyntax

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Path prefixes besides "/": the user's home and the server's private
// temporary folder.
const (
	HomePrefix = "~/"
	TmpPrefix  = "${TMP}/"
)

// Path checks a filesystem.read or filesystem.write entry: absolute ("/..."),
// "~/..." (the home folder; "~/" alone is the home folder itself) or
// "${TMP}/..." (the server's private temporary folder), valid UTF-8 without
// control characters, with no ".." component. Whether it exists is checked at
// start.
func Path(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return fmt.Errorf("path %q contains control characters or invalid UTF-8", p)
	}
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, HomePrefix) && !strings.HasPrefix(p, TmpPrefix) {
		hint := ""
		switch p {
		case "~":
			hint = ` (write "~/" for the home folder)`
		case "${TMP}":
			hint = ` (write "${TMP}/" for the temporary folder)`
		}
		return fmt.Errorf("path %q must be absolute, ~/... or ${TMP}/...%s", p, hint)
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return fmt.Errorf("path %q must not contain a .. component; write the path without it", p)
		}
	}
	return nil
}

// HostPort is a parsed network.allow entry.
type HostPort struct {
	Name     string     // lower-case DNS name; for a wildcard, the suffix after "*."
	Wildcard bool       // "*.suffix": strict subdomains of Name only
	IP       netip.Addr // valid for an address entry (IPv4, or IPv6 without zone)
	Port     uint16
}

// ParseHostPort parses a network.allow entry: "host:port" (a lower-case DNS
// name: labels of a-z, 0-9, '-' and '_', 1-63 bytes, not starting or ending
// with '-', the last not numeric, no trailing dot), "*.suffix:port" (the
// suffix has at least two labels: "*.com" is refused), "IPv4:port" or
// "[IPv6]:port" (no zone, no IPv4-mapped form), with a decimal port from 1 to
// 65535 without leading zeros.
func ParseHostPort(hp string) (HostPort, error) {
	bad := func(why string) (HostPort, error) { return HostPort{}, fmt.Errorf("network entry %q: %s", hp, why) }
	var host, port string
	if strings.HasPrefix(hp, "[") {
		end := strings.Index(hp, "]:")
		if end < 0 {
			return bad("want [IPv6]:port")
		}
		host, port = hp[1:end], hp[end+2:]
	} else {
		i := strings.LastIndexByte(hp, ':')
		if i < 0 {
			return bad("want host:port, as in api.example.com:443")
		}
		host, port = hp[:i], hp[i+1:]
		if strings.Contains(host, ":") {
			return bad("write an IPv6 address in brackets, as in [2001:db8::1]:443")
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || port[0] == '0' || port[0] == '+' || port[0] == '-' {
		return bad("port must be a decimal number from 1 to 65535")
	}
	out := HostPort{Port: uint16(n)}
	if strings.HasPrefix(hp, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" || a.Is4In6() {
			return bad("brackets must hold an IPv6 address without zone (write IPv4 without brackets)")
		}
		out.IP = a
		return out, nil
	}
	if host == "" {
		return bad("empty host")
	}
	if strings.Trim(host, "0123456789.") == "" {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is4() {
			return bad("not a valid IPv4 address")
		}
		out.IP = a
		return out, nil
	}
	name := host
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		out.Wildcard, name = true, rest
	}
	if len(name) > 253 {
		return bad("host name longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return bad("not a valid host name (labels of 1-63 letters, digits, '-' or '_', not starting or ending with '-'; a wildcard is only *.suffix)")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if 'A' <= c && c <= 'Z' {
				return bad("write host names in lower case")
			}
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return bad("not a valid host name (only a-z, 0-9, '-', '_' and '.'; a wildcard is only *.suffix)")
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return bad("not a valid host name (the last label is numeric)")
	}
	if out.Wildcard && len(labels) < 2 {
		return bad(`a wildcard must name a domain below a top-level domain, as in "*.example.com:443"`)
	}
	out.Name = name
	return out, nil
}
