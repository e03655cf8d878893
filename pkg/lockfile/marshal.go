package lockfile

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Marshal writes f deterministically: 2-space indent down to MaxIndentDepth
// levels (deeper objects and arrays compact, on one line), a trailing
// newline, no HTML escaping; top-level keys lockfileVersion, generator
// (omitted when empty), servers (sorted by name); entry keys in the seed's
// order (command, envPassthrough — or url, headers for a remote entry —,
// protocolVersion, supportedVersions (modern only), serverInfo,
// instructions, capabilities, tools, prompts, resources, resourceTemplates,
// policy (when set), digests); items sorted by key and re-indented with
// their own key order and string escapes kept.
//
// lockfileVersion is computed, not taken from f.Version: 3 when any server
// is remote, else 2 when any server is modern (2026-07-28), else 1, so a
// file without a modern server stays readable by mcpsum 0.2.0 and older
// (LOCKFILE.md), and one without a remote server by mcpsum before 3.
//
// Digests are written as found in each Server (NewServer fills them); Marshal
// does not recompute them. Update re-parses what Marshal produced before
// writing, so a wrong digest never reaches the disk. A file over
// MaxFileSize, which no command would read back, is a *LimitError naming
// the largest entry and its largest item.
func Marshal(f *File) ([]byte, error) {
	out, sizes, err := marshal(f)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fileTooLarge(f, sizes)
	}
	return out, nil
}

// marshal is Marshal; sizes are the bytes each entry takes in the output.
// A file over MaxFileSize is not finished: out is nil, and the sizes of
// the entries from the one that crossed the limit on are lower bounds
// (each one measured up to MaxFileSize).
func marshal(f *File) (out []byte, sizes map[string]int, err error) {
	version := 1
	names := make([]string, 0, len(f.Servers))
	for n, s := range f.Servers {
		if s == nil {
			return nil, nil, errf("marshal lockfile: server %s is nil", termtext.Quoted(n, 80))
		}
		if s.Era() == EraModern {
			version = max(version, 2)
		}
		if s.Remote() {
			version = VersionRemote
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	str := func(s string) []byte {
		b.Reset()
		encodeString(&b, s)
		return b.Bytes()
	}
	out = append(out, "{\n  \"lockfileVersion\": "...)
	out = append(out, byte('0'+version))
	if f.Generator != "" {
		out = append(out, ",\n  \"generator\": "...)
		out = append(out, str(f.Generator)...)
	}
	out = append(out, ",\n  \"servers\": {"...)
	sizes = make(map[string]int, len(names))
	var over []byte // past the limit: each remaining entry alone, for its size
	for i, n := range names {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n    "...)
		out = append(out, str(n)...)
		out = append(out, ": "...)
		b.Reset()
		if err := appendEntry(&b, f.Servers[n], true); err != nil {
			if fe, ok := err.(*FormatError); ok {
				fe.Server = n
			}
			return nil, nil, err
		}
		if !json.Valid(b.Bytes()) {
			return nil, nil, &FormatError{Server: n, Err: errf("marshal lockfile: an item or object is not valid JSON (build entries with NewServer)")}
		}
		if over != nil {
			over = appendIndented(over[:0], b.Bytes(), 2, MaxFileSize)
			sizes[n] = len(over)
			continue
		}
		start := len(out)
		out = appendIndented(out, b.Bytes(), 2, MaxFileSize)
		sizes[n] = len(out) - start
		if len(out) > MaxFileSize { // its size alone, up to the limit
			over = appendIndented(out[start:start], b.Bytes(), 2, MaxFileSize)
			sizes[n] = len(over)
		}
	}
	if over != nil {
		return nil, sizes, nil
	}
	if len(names) > 0 {
		out = append(out, "\n  "...)
	}
	out = append(out, "}\n}\n"...)
	if len(out) > MaxFileSize {
		return nil, sizes, nil
	}
	return out, sizes, nil
}

// appendEntry writes a server entry as compact JSON in the fixed key order.
// Without full, policy and digests are left out: that is the object the
// surface digest covers.
func appendEntry(b *bytes.Buffer, s *Server, full bool) error {
	if len(s.ServerInfo) == 0 || len(s.Capabilities) == 0 {
		return &FormatError{Item: "serverInfo/capabilities", Err: errf("missing (build entries with NewServer)")}
	}
	if s.Remote() {
		b.WriteString(`{"url":`)
		encodeString(b, s.URL)
		b.WriteString(`,"headers":`)
		appendStringMap(b, s.Headers)
		if s.OAuth != nil {
			b.WriteString(`,"oauth":`)
			appendOAuth(b, s.OAuth)
		}
	} else {
		b.WriteString(`{"command":`)
		appendStrings(b, s.Command)
		b.WriteString(`,"envPassthrough":`)
		appendStrings(b, s.EnvPassthrough)
	}
	b.WriteString(`,"protocolVersion":`)
	encodeString(b, s.ProtocolVersion)
	if s.SupportedVersions != nil {
		b.WriteString(`,"supportedVersions":`)
		appendStrings(b, s.SupportedVersions)
	}
	b.WriteString(`,"serverInfo":`)
	b.Write(compact(s.ServerInfo))
	b.WriteString(`,"instructions":`)
	appendOptString(b, s.Instructions)
	b.WriteString(`,"capabilities":`)
	b.Write(compact(s.Capabilities))
	for i, k := range mcpspec.Kinds {
		b.WriteString(`,"` + k.Field + `":[`)
		items, err := sortedItems(*s.items(i), k)
		if err != nil {
			return err
		}
		for j, it := range items {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(compact(it))
		}
		b.WriteByte(']')
	}
	if !full {
		b.WriteByte('}')
		return nil
	}
	if p := s.Policy; p != nil {
		b.WriteString(`,"policy":{`)
		if p.Taint != nil {
			b.WriteString(`"taint":{"sources":`)
			appendStrings(b, p.Taint.Sources)
			b.WriteString(`,"sinks":`)
			appendStrings(b, p.Taint.Sinks)
			b.WriteByte('}')
		}
		if sb := p.Sandbox; sb != nil {
			if p.Taint != nil {
				b.WriteByte(',')
			}
			b.WriteString(`"sandbox":{"filesystem":{"read":`)
			appendStrings(b, sb.Filesystem.Read)
			b.WriteString(`,"write":`)
			appendStrings(b, sb.Filesystem.Write)
			b.WriteString(`},"network":{"allow":`)
			appendStrings(b, sb.Network.Allow)
			b.WriteString(`}}`)
		}
		if p.Unpinned != nil {
			if p.Taint != nil || p.Sandbox != nil {
				b.WriteByte(',')
			}
			b.WriteString(`"unpinned":`)
			appendStrings(b, p.Unpinned)
		}
		b.WriteByte('}')
	}
	d := &s.Digests
	b.WriteString(`,"digests":{"surface":`)
	encodeString(b, d.Surface)
	b.WriteString(`,"instructions":`)
	appendOptString(b, d.Instructions)
	for i, k := range mcpspec.Kinds {
		b.WriteString(`,"` + k.Field + `":`)
		appendStringMap(b, *d.items(i))
	}
	b.WriteByte('}')
	if s.LogProof != "" {
		b.WriteString(`,"logProof":`)
		encodeString(b, s.LogProof)
	}
	b.WriteByte('}')
	return nil
}

// sortedItems returns items in key order, without copying when they already
// are (the usual case after NewServer or Parse).
func sortedItems(items []json.RawMessage, k mcpspec.Kind) ([]json.RawMessage, error) {
	keys := make([]string, len(items))
	sorted := true
	for i, it := range items {
		key, err := itemKey(it, k.Key)
		if err != nil {
			return nil, &FormatError{Item: k.Name + " #" + strconv.Itoa(i), Err: err}
		}
		keys[i] = key
		sorted = sorted && (i == 0 || keys[i-1] <= key)
	}
	if sorted {
		return items, nil
	}
	cp := append([]json.RawMessage(nil), items...)
	sortItems(cp, keys, make([][]byte, len(cp)))
	return cp, nil
}

func appendStrings(b *bytes.Buffer, list []string) {
	b.WriteByte('[')
	for i, s := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		encodeString(b, s)
	}
	b.WriteByte(']')
}

func appendOptString(b *bytes.Buffer, p *string) {
	if p == nil {
		b.WriteString("null")
		return
	}
	encodeString(b, *p)
}
