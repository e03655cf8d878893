package review

import "slices"

// Drift labels: what kind of change a definitional finding is. A finding
// gets one or more; every finding gets at least one (an item change no rule
// explains is Changed), so a label never hides a change. Only a finding
// whose labels are all Descriptive is taken in by `lock --accept
// descriptive`; Descriptive is given only to changes that cannot carry a
// new instruction (see Labels for each label's promise).
const (
	HiddenText         = "hidden-text"
	AddressesModel     = "addresses-model"
	SensitiveData      = "sensitive-data"
	AddsDestination    = "adds-destination"
	ReferencesTool     = "references-tool"
	SchemaWidened      = "schema-widened"
	AnnotationWeakened = "annotation-weakened"
	Added              = "added"
	Changed            = "changed"
	Reworded           = "reworded"
	Removed            = "removed"
	Descriptive        = "descriptive"
)

// LabelInfo describes one label for people (verify's legend, the docs).
type LabelInfo struct {
	Label, Meaning string
}

// Labels is every label with its meaning, most dangerous first: the order
// a finding's labels are listed in and reports group findings by.
var Labels = []LabelInfo{
	{HiddenText, "new text a person cannot see or read at a glance: invisible, bidi, tag or control characters; look-alike letters (a word mixing scripts, full-width or other compatibility forms, leetspeak); an encoded run (base64, hex, percent or entity escapes, tag characters); an HTML or Markdown comment; a run of blank lines or spaces; a script or language other than the rest of the server's text"},
	{AddressesModel, "new text gives the model orders: \"ignore previous…\", \"do not tell the user\", \"always/please include…\", <IMPORTANT> tags, a [SYSTEM] line, a JSON role message"},
	{SensitiveData, "new text names data a tool has no business asking for: the conversation or chat history, the system prompt, a private key, password, token, API key, credentials, cookies, or a key file (id_rsa, .ssh, .env, .aws/credentials, .netrc…)"},
	{AddsDestination, "new text names a URL, host, IP address, e-mail address or file path the locked text did not"},
	{ReferencesTool, "new text names another tool (of this server, or a well-known tool of another)"},
	{SchemaWidened, "the input or output schema (or a prompt's arguments) accepts more: a new property or argument, a dropped required, a wider type or enum, a dropped const, pattern or format, additionalProperties opened, a bound loosened, a new x-mcp-header"},
	{AnnotationWeakened, "an annotation now promises less: readOnlyHint true→false, destructiveHint false→true, idempotentHint true→false, openWorldHint false→true (an absent hint counts as its default)"},
	{Added, "the item, or the instructions, did not exist when locked"},
	{Changed, "any other change of a definition: a schema's default, examples, enum, const, pattern, format, type or required list changed without widening it, annotations that promise more, _meta, icons, a MIME type (never descriptive, whatever its words)"},
	{Reworded, "wording with new words (or a dropped \"not\"): descriptions or titles say something the locked text did not, and no rule above fired"},
	{Removed, "the item, or the instructions, no longer exist"},
	{Descriptive, "wording that cannot carry a new instruction: only whitespace, letter case or punctuation changed, sentences were reordered, or words were deleted (never a \"not\"); nothing else changed"},
}

// Rank is a label's place in Labels (most dangerous first); an unknown
// label ranks last.
func Rank(label string) int {
	if i := slices.IndexFunc(Labels, func(l LabelInfo) bool { return l.Label == label }); i >= 0 {
		return i
	}
	return len(Labels)
}

// SortLabels orders labels most dangerous first, without duplicates.
func SortLabels(labels []string) []string {
	slices.SortStableFunc(labels, func(a, b string) int { return Rank(a) - Rank(b) })
	return slices.Compact(labels)
}

// Top is the most dangerous of labels ("" for none).
func Top(labels []string) string {
	top := ""
	for _, l := range labels {
		if top == "" || Rank(l) < Rank(top) {
			top = l
		}
	}
	return top
}

// OnlyDescriptive reports whether labels are all Descriptive (and there is
// at least one).
func OnlyDescriptive(labels []string) bool {
	if len(labels) == 0 {
		return false
	}
	for _, l := range labels {
		if l != Descriptive {
			return false
		}
	}
	return true
}
