package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
)

// ErrMergeConflict is a lockfile that holds git's merge conflict markers:
// two branches changed it and git could not merge them line by line. Parse
// wraps it in a *FormatError naming the first marker's line.
var ErrMergeConflict = errors.New("merge conflict markers")

// markerLine is the line of data's first merge conflict marker (1-based),
// or 0: "<<<<<<<" or ">>>>>>>" alone or before a space, "=======" alone.
func markerLine(data []byte) int {
	n := 0
	for l := range bytes.Lines(data) { // no slice of every line (a 1,000-tool lock has 37,000)
		n++
		if marker(bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))) != 0 {
			return n
		}
	}
	return 0
}

// marker is the kind of conflict marker line l is ('<', '|', '=', '>'), or 0.
func marker(l []byte) byte {
	for _, m := range []string{"<<<<<<<", "|||||||", "=======", ">>>>>>>"} {
		if rest, ok := bytes.CutPrefix(l, []byte(m)); ok && (len(rest) == 0 || m != "=======" && rest[0] == ' ') {
			return m[0]
		}
	}
	return 0
}

// ConflictSides splits a lockfile git left with merge conflict markers into
// its two sides: ours (between "<<<<<<<" and "|||||||" or "======="), theirs
// (between "=======" and ">>>>>>>"), each with the lines the two sides share
// (the common ancestor's part of a diff3 conflict is dropped). ok is false
// when data holds no markers, or markers that do not nest.
func ConflictSides(data []byte) (ours, theirs []byte, ok bool) {
	var o, t bytes.Buffer
	state := byte(0) // 0 shared, '<' ours, '|' base, '=' theirs
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		m := marker(bytes.TrimRight(l, "\r\n"))
		switch {
		case m == '<' && state == 0, m == '|' && state == '<', m == '=' && (state == '<' || state == '|'):
			state, ok = m, true
		case m == '>' && state == '=':
			state = 0
		case m != 0:
			return nil, nil, false // a marker out of place: not git's
		case state == 0:
			o.Write(l)
			t.Write(l)
		case state == '<':
			o.Write(l)
		case state == '=':
			t.Write(l)
		}
	}
	if state != 0 || !ok {
		return nil, nil, false
	}
	return o.Bytes(), t.Bytes(), true
}

// Loose is one side of a conflicted lockfile read entry by entry
// (ParseLoose): what each entry says, and whether it still matches its
// digests.
type Loose struct {
	Version   int
	Generator string
	// Servers are the entries that parse; Verified says which of them match
	// their digests. An unverified entry's command, environment names, URL,
	// headers and policy are as written; its surface is not to be trusted.
	Servers  map[string]*Server
	Verified map[string]bool
	// Broken are the entries that do not parse at all, with why.
	Broken map[string]error
}

// Names are the names of every entry of l, broken ones included, sorted.
func (l *Loose) Names() []string {
	var names []string
	for n := range l.Servers {
		names = append(names, n)
	}
	for n := range l.Broken {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseLoose reads data (one side of a merge conflict, ConflictSides) as
// Parse does, except that an entry that does not parse or does not match
// its digests does not fail the whole: each entry is judged on its own. A
// line merge can splice two versions of one entry, so that neither side's
// entry matches its digests, while the others are intact.
func ParseLoose(path string, data []byte) (*Loose, error) {
	f, entries, err := parseTop(path, data)
	if err != nil {
		return nil, err
	}
	l := &Loose{Version: f.Version, Generator: f.Generator, Servers: map[string]*Server{}, Verified: map[string]bool{}, Broken: map[string]error{}}
	for _, e := range entries {
		if _, dup := l.Servers[e.key]; dup || l.Broken[e.key] != nil {
			return nil, &FormatError{File: path, Item: "servers", Err: fmt.Errorf("the server %q appears twice", e.key)}
		}
		s, cf, ferr := parseServer(e.val, f.Version)
		if ferr != nil {
			ferr.File, ferr.Server = path, e.key
			l.Broken[e.key] = ferr
			continue
		}
		l.Servers[e.key] = s
		l.Verified[e.key] = verify(path, e.key, s, cf) == nil
	}
	return l, nil
}
