package policy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func tool(name, annotations string) json.RawMessage {
	t := `{"name":"` + name + `","inputSchema":{"type":"object"}`
	if annotations != "" {
		t += `,"annotations":` + annotations
	}
	return json.RawMessage(t + "}")
}

func TestSuggest(t *testing.T) {
	s := &lockfile.Server{
		Tools: []json.RawMessage{
			tool("fetch", `{"readOnlyHint":true,"openWorldHint":true}`),
			tool("no_hints", ""),
			tool("read_file", `{"readOnlyHint":true,"openWorldHint":false}`),
			tool("write_file", `{"readOnlyHint":false,"openWorldHint":false}`),
			tool("only_readonly", `{"readOnlyHint":true}`),
			tool("bad_hints", `{"readOnlyHint":"yes"}`),
		},
		Resources: []json.RawMessage{json.RawMessage(`{"uri":"file:///a","name":"a"}`)},
	}
	got := Suggest(s)
	wantSources := []string{"bad_hints", "fetch", "no_hints", "only_readonly", "resources:*"}
	wantSinks := []string{"bad_hints", "fetch", "no_hints", "only_readonly", "write_file"}
	if !reflect.DeepEqual(got.Taint.Sources, wantSources) {
		t.Errorf("sources = %v, want %v", got.Taint.Sources, wantSources)
	}
	if !reflect.DeepEqual(got.Taint.Sinks, wantSinks) {
		t.Errorf("sinks = %v, want %v", got.Taint.Sinks, wantSinks)
	}
	for _, r := range got.Reasons {
		if r.Tool == "read_file" && (r.Source || r.Sink) {
			t.Errorf("read_file declares read-only and closed-world, got %+v", r)
		}
	}
}

// A suggestion must be a valid policy for the server it came from: every
// name is a locked tool or a wildcard, so pasting it parses.
func TestSuggestNoResources(t *testing.T) {
	s := &lockfile.Server{Tools: []json.RawMessage{tool("x", "")}}
	got := Suggest(s)
	if !reflect.DeepEqual(got.Taint.Sources, []string{"x"}) || !reflect.DeepEqual(got.Taint.Sinks, []string{"x"}) {
		t.Errorf("got %+v", got.Taint)
	}
}

// Hints are read with exact keys: a server cannot get a tool left
// unlabelled with keys that only a case-insensitive parser reads as hints,
// nor with a repeated key whose first or last value a parser picks.
func TestSuggestExactHintKeys(t *testing.T) {
	s := &lockfile.Server{Tools: []json.RawMessage{
		tool("upper", `{"READONLYHINT":true,"OPENWORLDHINT":false}`),
		tool("title", `{"ReadOnlyHint":true,"OpenWorldHint":false}`),
		tool("twice", `{"readOnlyHint":true,"openWorldHint":true,"openWorldHint":false}`),
		tool("number", `{"readOnlyHint":true,"openWorldHint":0}`),
		tool("closed", `{"readOnlyHint":true,"openWorldHint":false}`),
	}}
	got := Suggest(s)
	want := []string{"number", "title", "twice", "upper"}
	if !reflect.DeepEqual(got.Taint.Sources, want) || !reflect.DeepEqual(got.Taint.Sinks, want) {
		t.Errorf("got sources %v sinks %v, want both %v", got.Taint.Sources, got.Taint.Sinks, want)
	}
}
