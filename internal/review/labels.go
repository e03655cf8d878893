package review

// Drift labels: what kind of change a definitional finding is. A finding
// gets one or more; every finding gets at least one (an item change no rule
// explains is Changed), so a label never hides a change. Only a finding
// whose labels are all Descriptive is wording only.
const (
	Descriptive        = "descriptive"
	AddsDestination    = "adds-destination"
	AddressesModel     = "addresses-model"
	ReferencesTool     = "references-tool"
	HiddenText         = "hidden-text"
	SchemaWidened      = "schema-widened"
	AnnotationWeakened = "annotation-weakened"
	Added              = "added"
	Removed            = "removed"
	Changed            = "changed"
)

// LabelInfo describes one label for people (verify's legend, the docs).
type LabelInfo struct {
	Label, Meaning string
}

// Labels is every label with its meaning, in the order verify lists them.
var Labels = []LabelInfo{
	{Added, "the item, or the instructions, did not exist when locked"},
	{Removed, "the item, or the instructions, no longer exist"},
	{AddsDestination, "new text names a URL, host, IP address, e-mail address or file path the locked text did not"},
	{AddressesModel, "new text gives the model orders: \"ignore previous…\", \"do not tell the user\", \"always call…\", <IMPORTANT> tags"},
	{ReferencesTool, "new text names another tool (of this server, or a well-known tool of another)"},
	{HiddenText, "new text holds bidi, zero-width, tag or control characters, or a word mixing scripts"},
	{SchemaWidened, "the input or output schema (or a prompt's arguments) accepts more: a new property or argument, a dropped required, a wider type or enum, additionalProperties opened, a bound loosened, a new x-mcp-header"},
	{AnnotationWeakened, "an annotation now promises less: readOnlyHint true→false, destructiveHint false→true, idempotentHint true→false, openWorldHint false→true (an absent hint counts as its default)"},
	{Changed, "any other change of a definition (a field no rule above explains)"},
	{Descriptive, "wording only: descriptions or titles changed, and no rule above matched the new text"},
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
