package mrtrstate

import (
	"slices"
	"testing"
)

type fakeIDs struct {
	next int64
	open map[int64]string
}

func (f *fakeIDs) Ask(r string) int64 { f.next++; f.open[f.next] = r; return f.next }

func (f *fakeIDs) TakeDowns(ds []int64) (open []int64, reqs []string) {
	for _, d := range ds {
		if r, ok := f.open[d]; ok {
			delete(f.open, d)
			open, reqs = append(open, d), append(reqs, r)
		}
	}
	return open, reqs
}

func start(t *testing.T) (*fakeIDs, *State[string, string], *Bridge[string], []int64) {
	ids := &fakeIDs{open: map[int64]string{}}
	m := New[string, string](ids)
	b := NewBridge("call", []byte(`"c"`), []byte(`"st"`))
	asks := []Ask{{Key: "x", Method: "roots/list"}, {Key: "y", Method: "elicitation/create"}}
	ds := m.Collect(b, asks, func(a Ask) string { return a.Key })
	if len(ds) != 2 || ids.open[ds[0]] != "x" || ids.open[ds[1]] != "y" {
		t.Fatalf("Collect = %v, id map %v", ds, ids.open)
	}
	return ids, m, b, ds
}

// The answers are collected until none is left, then the bridge ends with
// them; a late answer changes nothing.
func TestCollectAndEnd(t *testing.T) {
	_, m, b, ds := start(t)
	if left, ok := m.Answer(b, ds[0], "x", []byte(`{"roots":[]}`)); !ok || left != 1 {
		t.Fatalf("first answer: %d left, %v", left, ok)
	}
	if left, ok := m.Answer(b, ds[1], "y", []byte(`{"action":"accept"}`)); !ok || left != 0 {
		t.Fatalf("second answer: %d left, %v", left, ok)
	}
	got := m.End(b)
	if len(got) != 2 || string(got["x"]) != `{"roots":[]}` {
		t.Errorf("End = %q", got)
	}
	if _, ok := m.Answer(b, ds[1], "y", []byte(`{}`)); ok {
		t.Error("an answer after the end was taken")
	}
	if _, ok := m.Cancel(`"c"`); ok {
		t.Error("an ended bridge was cancelled")
	}
}

// An error answer ends the bridge and voids its other requests; a
// cancellation does the same and returns them.
func TestRefuseAndCancel(t *testing.T) {
	ids, m, b, ds := start(t)
	if !m.Refuse(b, ds[0]) || m.Refuse(b, ds[1]) {
		t.Error("a bridge was refused other than once")
	}
	// d0 stays in the fake (the proxy took it out when the answer came).
	if _, ok := ids.open[ds[1]]; ok {
		t.Error("the other request stayed in the id map")
	}
	ids, m, _, ds = start(t)
	got, ok := m.Cancel(`"c"`)
	slices.Sort(got)
	if !ok || !slices.Equal(got, ds) || len(ids.open) != 0 {
		t.Errorf("Cancel = %v %v, id map %v", got, ok, ids.open)
	}
}

// A token is redeemed once; request keys are distinct.
func TestTokensAndKeys(t *testing.T) {
	m := New[string, string](&fakeIDs{open: map[int64]string{}})
	m.Keep("t", 7)
	if u, ok := m.Redeem("t"); !ok || u != 7 {
		t.Errorf("Redeem = %d %v", u, ok)
	}
	if _, ok := m.Redeem("t"); ok {
		t.Error("a token was redeemed twice")
	}
	if a, b := m.RequestKey(), m.RequestKey(); a == b {
		t.Errorf("two requests named %q", a)
	}
}
