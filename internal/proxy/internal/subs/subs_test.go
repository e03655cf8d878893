package subs

import (
	"slices"
	"testing"
)

// The server is subscribed once to each URI either kind of client named,
// and an update goes to the streams that named its URI.
func TestSubscribeOnceAndDeliver(t *testing.T) {
	tb := New()
	tb.Listen(`1`, []string{"a", "b"}, false)
	tb.Listen(`"s"`, []string{"b"}, true)
	tb.SetLegacy("c", true)
	got := tb.Unsubscribed()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("Unsubscribed = %v", got)
	}
	tb.Listen(`2`, []string{"a", "d"}, false)
	if got := tb.Unsubscribed(); !slices.Equal(got, []string{"d"}) {
		t.Errorf("second Unsubscribed = %v, want [d]", got)
	}
	legacy, streams := tb.Updated("b")
	slices.Sort(streams)
	if legacy || !slices.Equal(streams, []string{`"s"`, `1`}) {
		t.Errorf("Updated(b) = %v %v", legacy, streams)
	}
	if legacy, streams := tb.Updated("c"); !legacy || streams != nil {
		t.Errorf("Updated(c) = %v %v", legacy, streams)
	}
	if got := tb.ListChanged(); !slices.Equal(got, []string{`"s"`}) {
		t.Errorf("ListChanged = %v", got)
	}
}

// A cancelled listen and an unsubscribe stop deliveries; a stream ends once.
func TestUnlistenAndUnsubscribe(t *testing.T) {
	tb := New()
	tb.Listen(`1`, []string{"a"}, true)
	tb.SetLegacy("a", true)
	if !tb.Unlisten(`1`) || tb.Unlisten(`1`) {
		t.Error("a stream did not end exactly once")
	}
	tb.SetLegacy("a", false)
	if legacy, streams := tb.Updated("a"); legacy || streams != nil || tb.ListChanged() != nil {
		t.Errorf("after the end: %v %v %v", legacy, streams, tb.ListChanged())
	}
}
