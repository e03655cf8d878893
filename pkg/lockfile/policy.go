package lockfile

import (
	"encoding/json"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parsePolicy decodes a policy section strictly (unknown keys and wrong types
// are errors). Lists are never nil in the result. Names and paths are checked
// later by checkPolicy.
func parsePolicy(raw json.RawMessage) (*Policy, *FormatError) {
	fe := func(item string, err error) *FormatError { return &FormatError{Item: item, Err: err} }
	p := &Policy{}
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, fe("policy", err)
	}
	for _, m := range ms {
		switch m.key {
		case "taint":
			t := &Taint{Sources: []string{}, Sinks: []string{}}
			if ferr := strictLists("policy.taint", m.val, map[string]*[]string{"sources": &t.Sources, "sinks": &t.Sinks}); ferr != nil {
				return nil, ferr
			}
			p.Taint = t
		case "sandbox":
			sb := &Sandbox{
				Filesystem: Filesystem{Read: []string{}, Write: []string{}},
				Network:    Network{Allow: []string{}},
			}
			sms, err := objectMembers(m.val)
			if err != nil {
				return nil, fe("policy.sandbox", err)
			}
			for _, sm := range sms {
				var ferr *FormatError
				switch sm.key {
				case "filesystem":
					ferr = strictLists("policy.sandbox.filesystem", sm.val,
						map[string]*[]string{"read": &sb.Filesystem.Read, "write": &sb.Filesystem.Write})
				case "network":
					ferr = strictLists("policy.sandbox.network", sm.val,
						map[string]*[]string{"allow": &sb.Network.Allow})
				default:
					ferr = fe("policy.sandbox", errf("unknown key %s (want filesystem or network)", quote(sm.key)))
				}
				if ferr != nil {
					return nil, ferr
				}
			}
			p.Sandbox = sb
		default:
			return nil, fe("policy", errf("unknown key %s (want taint or sandbox)", quote(m.key)))
		}
	}
	return p, nil
}

// strictLists decodes an object whose members are all optional string lists.
func strictLists(where string, raw json.RawMessage, fields map[string]*[]string) *FormatError {
	ms, err := objectMembers(raw)
	if err != nil {
		return &FormatError{Item: where, Err: err}
	}
	for _, m := range ms {
		dst, ok := fields[m.key]
		if !ok {
			names := make([]string, 0, len(fields))
			for k := range fields {
				names = append(names, k)
			}
			sort.Strings(names)
			return &FormatError{Item: where, Err: errf("unknown key %s (want %s)", quote(m.key), strings.Join(names, " or "))}
		}
		list, err := asStrings(m.val)
		if err != nil {
			return &FormatError{Item: where + "." + m.key, Err: err}
		}
		*dst = list
	}
	return nil
}

// checkPolicy validates names, paths and hosts of a policy against the
// server's tools.
func checkPolicy(p *Policy, tools []json.RawMessage) *FormatError {
	fe := func(item string, err error) *FormatError { return &FormatError{Item: item, Err: err} }
	if t := p.Taint; t != nil {
		locked := toolSet(tools)
		for _, l := range []struct {
			name string
			list []string
		}{{"sources", t.Sources}, {"sinks", t.Sinks}} {
			seen := map[string]bool{}
			for i, n := range l.list {
				where := "policy.taint." + l.name + "[" + strconv.Itoa(i) + "]"
				if n != AllResources && n != AllPrompts && !locked[n] {
					return fe(where, errf("%s is not a locked tool of this server (nor %s or %s); "+
						"check the spelling: a misspelled name would leave the tool unprotected",
						quote(n), AllResources, AllPrompts))
				}
				if seen[n] {
					return fe(where, errf("%s is listed twice", quote(n)))
				}
				seen[n] = true
			}
		}
	}
	if sb := p.Sandbox; sb != nil {
		for _, l := range []struct {
			name string
			list []string
		}{{"filesystem.read", sb.Filesystem.Read}, {"filesystem.write", sb.Filesystem.Write}} {
			for i, path := range l.list {
				if err := ValidatePath(path); err != nil {
					return fe("policy.sandbox."+l.name+"["+strconv.Itoa(i)+"]", err)
				}
			}
		}
		for i, hp := range sb.Network.Allow {
			if err := ValidateHostPort(hp); err != nil {
				return fe("policy.sandbox.network.allow["+strconv.Itoa(i)+"]", err)
			}
		}
	}
	return nil
}

func toolSet(tools []json.RawMessage) map[string]bool {
	set := make(map[string]bool, len(tools))
	for _, t := range tools {
		if k, err := itemKey(t, "name"); err == nil {
			set[k] = true
		}
	}
	return set
}

// ValidatePath checks a sandbox path's syntax: absolute ("/..."), "~",
// "~/...", "${TMP}" or "${TMP}/...", with no ".." component and no control
// characters. Whether it exists is checked by the sandbox at run time.
func ValidatePath(p string) error {
	if !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return errf("path %s contains control characters or invalid UTF-8", quote(p))
	}
	if !(strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/") ||
		p == "${TMP}" || strings.HasPrefix(p, "${TMP}/")) {
		return errf("path %s must be absolute, ~/... or ${TMP}/...", quote(p))
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return errf("path %s must not contain a .. component", quote(p))
		}
	}
	return nil
}

// ValidateHostPort checks a network.allow entry: "host:port" (a lower-case
// DNS name), "*.suffix:port" (any name under suffix), "IPv4:port" or
// "[IPv6]:port", with a decimal port from 1 to 65535.
func ValidateHostPort(hp string) error {
	bad := func(why string) error { return errf("network entry %s: %s", quote(hp), why) }
	var host, port string
	if strings.HasPrefix(hp, "[") {
		end := strings.Index(hp, "]:")
		if end < 0 {
			return bad("want [IPv6]:port")
		}
		host, port = hp[1:end], hp[end+2:]
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" || a.Is4In6() {
			return bad("brackets must hold an IPv6 address without zone (write IPv4 without brackets)")
		}
	} else {
		i := strings.LastIndexByte(hp, ':')
		if i < 0 {
			return bad("want host:port")
		}
		host, port = hp[:i], hp[i+1:]
		if strings.Contains(host, ":") {
			return bad("write an IPv6 address in brackets, e.g. [::1]:9000")
		}
		if err := checkHost(host); err != nil {
			return bad(err.Error())
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || port[0] == '0' || port[0] == '+' {
		return bad("port must be a decimal number from 1 to 65535")
	}
	return nil
}

func checkHost(host string) error {
	if host == "" {
		return errf("empty host")
	}
	if strings.Trim(host, "0123456789.") == "" {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is4() {
			return errf("not a valid IPv4 address")
		}
		return nil
	}
	name := host
	if strings.HasPrefix(host, "*.") {
		name = host[2:]
	}
	if len(name) > 253 {
		return errf("host name longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return errf("not a valid host name (labels of 1-63 letters, digits or '-', not starting or ending with '-'; a wildcard is only *.suffix)")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if 'A' <= c && c <= 'Z' {
				return errf("write host names in lower case")
			}
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return errf("not a valid host name (only a-z, 0-9, '-' and '.'; a wildcard is only *.suffix)")
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return errf("not a valid host name (the last label is numeric)")
	}
	return nil
}

// KeepPolicy copies old's policy into new (a deep copy) when new is re-locked,
// dropping taint labels of tools that new no longer has (the wildcards are
// always kept). It returns the dropped labels as "sources: fetch" /
// "sinks: send_email" (names Go-quoted when they hold anything unusual), for
// lock to print: a renamed tool is unprotected until it is labelled again.
// If old has no policy, new is left unchanged.
func KeepPolicy(old, new *Server) (dropped []string) {
	if old == nil || old.Policy == nil {
		return nil
	}
	p := &Policy{}
	if t := old.Policy.Taint; t != nil {
		tools := toolSet(new.Tools)
		keep := func(label string, list []string) []string {
			out := []string{}
			for _, n := range list {
				if n == AllResources || n == AllPrompts || tools[n] {
					out = append(out, n)
				} else {
					dropped = append(dropped, label+": "+labelName(n))
				}
			}
			return out
		}
		p.Taint = &Taint{Sources: keep("sources", t.Sources), Sinks: keep("sinks", t.Sinks)}
	}
	if sb := old.Policy.Sandbox; sb != nil {
		p.Sandbox = &Sandbox{
			Filesystem: Filesystem{Read: clone(sb.Filesystem.Read), Write: clone(sb.Filesystem.Write)},
			Network:    Network{Allow: clone(sb.Network.Allow)},
		}
	}
	new.Policy = p
	return dropped
}

func labelName(n string) string {
	for _, r := range n {
		if !(r < 0x7f && r > ' ' && r != '"' && r != '\\') {
			return strconv.Quote(n)
		}
	}
	if n == "" {
		return `""`
	}
	return n
}

func clone(s []string) []string { return append([]string{}, s...) }
