package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Class is the drift class of a finding (LOCKFILE.md, "Drift classes").
type Class int

const (
	// Definitional drift fails verify (exit 1) and quarantines the server in the proxy.
	Definitional Class = iota + 1
	// Informational drift is reported (exit 0, 1 with --strict); the client still sees the locked values.
	Informational
)

func (c Class) String() string {
	switch c {
	case Definitional:
		return "definitional"
	case Informational:
		return "informational"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Finding kinds besides the item kinds (KindTool, KindPrompt, KindResource,
// KindResourceTemplate).
const (
	KindInstructions      = "instructions"      // definitional
	KindEra               = "era"               // definitional: legacy vs modern
	KindServerInfo        = "serverInfo"        // informational
	KindCapabilities      = "capabilities"      // informational
	KindProtocolVersion   = "protocolVersion"   // informational
	KindSupportedVersions = "supportedVersions" // informational
	// KindVersionDropped is definitional: a modern server whose observed
	// supportedVersions no longer lists the locked protocolVersion cannot be
	// spoken to as locked (verify and lock fail, the proxy quarantines).
	// Change is "removed", Locked the locked protocolVersion, Observed the
	// observed supportedVersions as a JSON array. It comes in addition to the
	// informational supportedVersions finding.
	KindVersionDropped = "protocolVersionDropped"
	// KindOAuthIssuer is definitional: a remote server now sends its users
	// to another authorization server than the locked oauth.issuer (or
	// started or stopped asking for OAuth). Locked and Observed are the
	// issuers ("" for none).
	KindOAuthIssuer = "oauthIssuer"
	// KindOAuthResource is definitional: the server now names another
	// resource identifier (RFC 8707) for its tokens. Locked and Observed
	// are the resources.
	KindOAuthResource = "oauthResource"
	// KindOAuthScopes is definitional: the server now asks for a scope the
	// lock's oauth.scopes does not grant. Locked and Observed are the
	// scopes, space-separated.
	KindOAuthScopes = "oauthScopes"
)

// Changes.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Finding is one difference between a locked and an observed server entry.
//
// Locked and Observed hold: for items and instructions, the digests ("" on
// the side where it is absent); for era, "legacy"/"modern"; for
// protocolVersion, the versions; for serverInfo, capabilities and
// supportedVersions, compact JSON ("" when absent). They may hold server text:
// quote them before printing.
type Finding struct {
	Class            Class
	Kind             string
	Name             string   // item key for item kinds, else ""
	Change           string   // "added", "removed" or "changed"
	Fields           []string // for a changed item: its top-level fields that differ, sorted
	Locked, Observed string
	// Labels say what kind of change this is and Why explains them (server
	// text quoted). Compare leaves them empty; internal/review fills them.
	Labels, Why []string
}

// String renders a finding for people, with server text quoted.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", f.Class, f.Kind)
	if f.Name != "" {
		b.WriteString(" " + termtext.Quoted(f.Name, 80))
	}
	b.WriteString(" " + f.Change)
	if len(f.Fields) > 0 {
		q := make([]string, len(f.Fields))
		for i, fl := range f.Fields {
			q[i] = termtext.Quoted(fl, 80)
		}
		b.WriteString(" (" + strings.Join(q, ", ") + ")")
	}
	switch f.Kind {
	case KindEra, KindProtocolVersion, KindVersionDropped, KindSupportedVersions, KindOAuthIssuer, KindOAuthResource, KindOAuthScopes:
		fmt.Fprintf(&b, ": locked %s, observed %s", termtext.Quoted(f.Locked, 80), termtext.Quoted(f.Observed, 80))
	}
	return b.String()
}

// HasDefinitional reports whether any finding is definitional.
func HasDefinitional(fs []Finding) bool {
	for _, f := range fs {
		if f.Class == Definitional {
			return true
		}
	}
	return false
}

// Compare lists the drift from locked to observed, in a fixed order: era,
// protocolVersionDropped, instructions, then tools, prompts, resources and
// resource templates (each by key), then protocolVersion, supportedVersions,
// serverInfo and capabilities. Item order is not drift (items are matched by
// key); a rename is a removal plus an addition. Items are compared by their
// RFC 8785 form, so whitespace and key order inside an item are not drift.
// Kinds the locked entry's policy.unpinned declares data are not compared.
func Compare(locked, observed *Server) []Finding { return compare(locked, observed, false) }

// CompareDigests is Compare for servers whose Digests describe their content:
// each straight from Parse (which checked them) or NewServer (which computed
// them), unmodified since. It compares digests instead of canonicalising
// every item again, and returns at once when the surface digests are equal;
// only changed items are opened (to name the changed fields). The proxy's
// drift check uses it for every check of a possibly large surface.
func CompareDigests(locked, observed *Server) []Finding {
	if locked.Digests.Surface != "" && locked.Digests.Surface == observed.Digests.Surface {
		return nil // the surface digest covers everything Compare looks at
	}
	return compare(locked, observed, true)
}

func compare(locked, observed *Server, digests bool) []Finding {
	var out []Finding
	def := func(kind, name, change, l, o string, fields []string) {
		out = append(out, Finding{Class: Definitional, Kind: kind, Name: name, Change: change, Fields: fields, Locked: l, Observed: o})
	}
	if l, o := locked.Era(), observed.Era(); l != o {
		def(KindEra, "", Changed, l, o, nil)
	} else if l == EraModern && !contains(observed.SupportedVersions, locked.ProtocolVersion) {
		def(KindVersionDropped, "", Removed, locked.ProtocolVersion, jsonStrings(observed.SupportedVersions), nil)
	}
	out = appendOAuthDrift(out, locked, observed)
	var li, oi string
	if digests {
		li, oi = orEmpty(locked.Digests.Instructions), orEmpty(observed.Digests.Instructions)
	} else {
		li, oi = instrDigest(locked.Instructions), instrDigest(observed.Instructions)
	}
	if ch := change(li, oi); ch != "" {
		def(KindInstructions, "", ch, li, oi, nil)
	}
	for i, k := range mcpspec.Kinds {
		if !locked.IsUnpinned(k.Field) { // kinds declared data by the reviewer (policy.unpinned) are not drift
			out = appendKindDrift(out, i, locked, observed, digests)
		}
	}
	info := func(kind, l, o string) {
		if ch := change(l, o); ch != "" {
			out = append(out, Finding{Class: Informational, Kind: kind, Change: ch, Locked: l, Observed: o})
		}
	}
	info(KindProtocolVersion, locked.ProtocolVersion, observed.ProtocolVersion)
	if !sameSet(locked.SupportedVersions, observed.SupportedVersions) {
		info(KindSupportedVersions, jsonStrings(locked.SupportedVersions), jsonStrings(observed.SupportedVersions))
	}
	if !bytes.Equal(canon(locked.ServerInfo), canon(observed.ServerInfo)) {
		info(KindServerInfo, string(compact(locked.ServerInfo)), string(compact(observed.ServerInfo)))
	}
	if !bytes.Equal(canon(locked.Capabilities), canon(observed.Capabilities)) {
		info(KindCapabilities, string(compact(locked.Capabilities)), string(compact(observed.Capabilities)))
	}
	return out
}

// DataChanges lists what changed from locked to observed in the kinds the
// locked entry declares data (policy.unpinned): never drift, told to the
// reviewer so an unpinned list is not a silent one.
func DataChanges(locked, observed *Server) []Finding {
	var out []Finding
	for i, k := range mcpspec.Kinds {
		if locked.IsUnpinned(k.Field) {
			out = appendKindDrift(out, i, locked, observed, false)
		}
	}
	return out
}

// appendKindDrift adds the drift of the items of Kinds[i], by digest or by
// their RFC 8785 form.
func appendKindDrift(out []Finding, i int, locked, observed *Server, digests bool) []Finding {
	k := mcpspec.Kinds[i]
	def := func(kind, name, change, l, o string, fields []string) {
		out = append(out, Finding{Class: Definitional, Kind: kind, Name: name, Change: change, Fields: fields, Locked: l, Observed: o})
	}
	if digests {
		return appendItemDrift(out, k, *locked.Digests.items(i), *observed.Digests.items(i),
			func(key string) ([]byte, []byte) {
				return find(*locked.items(i), k.Key, key), find(*observed.items(i), k.Key, key)
			})
	}
	lm, om := keyed(*locked.items(i), k.Key), keyed(*observed.items(i), k.Key)
	for _, key := range keyUnion(lm, om) {
		l, o := lm[key], om[key]
		switch {
		case l == nil:
			def(k.Name, key, Added, "", digestOf(canon(o)), nil)
		case o == nil:
			def(k.Name, key, Removed, digestOf(canon(l)), "", nil)
		default:
			lc, oc := canon(l), canon(o)
			if !bytes.Equal(lc, oc) {
				def(k.Name, key, Changed, digestOf(lc), digestOf(oc), changedFields(l, o))
			}
		}
	}
	return out
}

// appendItemDrift adds the drift of one kind from its digest maps; raw
// returns the locked and observed item of a changed key.
func appendItemDrift(out []Finding, k mcpspec.Kind, lm, om map[string]string, raw func(key string) ([]byte, []byte)) []Finding {
	for _, key := range keyUnion(lm, om) {
		l, inL := lm[key]
		o := om[key]
		if inL && l == o {
			continue
		}
		var fields []string
		if l != "" && o != "" {
			fields = changedFields(raw(key))
		}
		out = append(out, Finding{Class: Definitional, Kind: k.Name, Name: key, Change: change(l, o), Fields: fields, Locked: l, Observed: o})
	}
	return out
}

// keyUnion is every key of a and of b, sorted.
func keyUnion[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for key := range a {
		keys = append(keys, key)
	}
	for key := range b {
		if _, ok := a[key]; !ok {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

// find returns the item with key (nil if none).
func find(items []json.RawMessage, field, key string) json.RawMessage {
	for _, it := range items {
		if k, err := itemKey(it, field); err == nil && k == key {
			return it
		}
	}
	return nil
}

func orEmpty(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func change(l, o string) string {
	switch {
	case l == o:
		return ""
	case l == "":
		return Added
	case o == "":
		return Removed
	}
	return Changed
}

// canon returns the RFC 8785 form, or the compact bytes if raw cannot be
// canonicalised (Compare never fails; Parse and NewServer refuse such input).
func canon(raw []byte) []byte {
	if len(raw) == 0 {
		return nil
	}
	if c, err := Canonical(raw); err == nil {
		return c
	}
	return compact(raw)
}

func instrDigest(p *string) string {
	if p == nil {
		return ""
	}
	var b bytes.Buffer
	encodeString(&b, *p)
	return digestOf(canon(b.Bytes()))
}

func keyed(items []json.RawMessage, field string) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(items))
	for _, it := range items {
		if key, err := itemKey(it, field); err == nil {
			m[key] = it
		}
	}
	return m
}

// changedFields lists the top-level fields whose values differ (or exist on
// one side only), sorted.
func changedFields(l, o json.RawMessage) []string {
	lm, _ := objectMembers(l)
	om, _ := objectMembers(o)
	vals := map[string][2][]byte{}
	for _, m := range lm {
		v := vals[m.key]
		v[0] = canon(m.val)
		vals[m.key] = v
	}
	for _, m := range om {
		v := vals[m.key]
		v[1] = canon(m.val)
		vals[m.key] = v
	}
	var fields []string
	for k, v := range vals {
		if v[0] == nil || v[1] == nil || !bytes.Equal(v[0], v[1]) {
			fields = append(fields, k)
		}
	}
	sort.Strings(fields)
	return fields
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !contains(a, x) {
			return false
		}
	}
	return true
}

func jsonStrings(list []string) string {
	if list == nil {
		return ""
	}
	var b bytes.Buffer
	appendStrings(&b, list)
	return b.String()
}
