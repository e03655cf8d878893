package lockfile

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/policysyntax"
	"github.com/mcpsum/mcpsum/internal/termtext"
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
					ferr = fe("policy.sandbox", errf("unknown key %s (want filesystem or network)", termtext.Quoted(sm.key, 80)))
				}
				if ferr != nil {
					return nil, ferr
				}
			}
			p.Sandbox = sb
		case "unpinned":
			list, err := asStrings(m.val)
			if err != nil {
				return nil, fe("policy.unpinned", err)
			}
			for i, k := range list {
				if !slices.Contains(Unpinnable, k) || slices.Contains(list[:i], k) {
					return nil, fe("policy.unpinned["+strconv.Itoa(i)+"]", errf("%s: only resources and resourceTemplates may be declared data that is not pinned, each once (tools and prompts are definitions: always pinned)", termtext.Quoted(k, 80)))
				}
			}
			p.Unpinned = list
		default:
			return nil, fe("policy", errf("unknown key %s (want taint, sandbox or unpinned)", termtext.Quoted(m.key, 80)))
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
			return &FormatError{Item: where, Err: errf("unknown key %s (want %s)", termtext.Quoted(m.key, 80), strings.Join(names, " or "))}
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
						termtext.Quoted(n, 80), AllResources, AllPrompts))
				}
				if seen[n] {
					return fe(where, errf("%s is listed twice", termtext.Quoted(n, 80)))
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

// ValidatePath checks a sandbox path's syntax by the one rule the sandbox
// also uses (internal/policysyntax): absolute, "~/..." or "${TMP}/...", no
// ".." component, no control characters. Whether it exists is checked by the
// sandbox at run time.
func ValidatePath(p string) error { return policysyntax.Path(p) }

// ValidateHostPort checks a network.allow entry by the sandbox's own rule
// (internal/policysyntax): "host:port" (a lower-case DNS name),
// "*.suffix:port" (any name under suffix, which has two labels or more),
// "IPv4:port" or "[IPv6]:port", with a decimal port from 1 to 65535.
func ValidateHostPort(hp string) error {
	_, err := policysyntax.ParseHostPort(hp)
	return err
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
	p.Unpinned = slices.Clone(old.Policy.Unpinned)
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
