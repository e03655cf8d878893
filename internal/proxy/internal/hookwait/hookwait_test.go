package hookwait

import (
	"slices"
	"testing"
)

// fakeIDs is an id map of requests to the client.
type fakeIDs struct {
	next int64
	open map[int64]*req
}

type req struct{ answered func() }

func newFake() *fakeIDs { return &fakeIDs{open: map[int64]*req{}} }

func (f *fakeIDs) Ask(r *req) int64 { f.next++; f.open[f.next] = r; return f.next }

func (f *fakeIDs) TakeDown(d int64) *req { r := f.open[d]; delete(f.open, d); return r }

func (f *fakeIDs) TakeDowns(ds []int64) (open []int64, reqs []*req) {
	for _, d := range ds {
		if r, ok := f.open[d]; ok {
			delete(f.open, d)
			open, reqs = append(open, d), append(reqs, r)
		}
	}
	return open, reqs
}

func ask(w *Waits[*req], c *Call) (int64, bool) {
	return w.Ask(c, func(unask func()) *req { return &req{answered: unask} })
}

// A cancelled call's open questions leave the id map and come back to be
// withdrawn; it asks nothing more, and its verdict is moot.
func TestCancelTakesQuestions(t *testing.T) {
	ids := newFake()
	w := New[*req](ids)
	var c Call
	w.Add("7", &c)
	d1, _ := ask(w, &c)
	d2, _ := ask(w, &c)
	got, reqs, ok := w.Cancel("7")
	slices.Sort(got)
	if !ok || !slices.Equal(got, []int64{d1, d2}) || len(reqs) != 2 || len(ids.open) != 0 {
		t.Fatalf("Cancel = %v, %d requests, %v; %d left in the id map", got, len(reqs), ok, len(ids.open))
	}
	if _, ok := ask(w, &c); ok {
		t.Error("a cancelled call asked a question")
	}
	if !w.Decided("7", &c) || w.Count() != 0 {
		t.Error("the verdict of a cancelled call was not moot")
	}
	if _, _, ok := w.Cancel("7"); ok {
		t.Error("a call was cancelled twice")
	}
}

// An answered question leaves the call; an unsent one leaves the id map
// too; a decided call's questions are taken out.
func TestQuestionsEnd(t *testing.T) {
	ids := newFake()
	w := New[*req](ids)
	var c Call
	w.Add("a", &c)
	d1, _ := ask(w, &c)
	d2, _ := ask(w, &c)
	d3, _ := ask(w, &c)
	ids.TakeDown(d1).answered() // the client answered d1
	w.Unask(&c, d2, true)       // d2 could not be sent
	if _, ok := ids.open[d2]; ok {
		t.Error("an unsent question stayed in the id map")
	}
	if w.Decided("a", &c) {
		t.Error("a call nobody cancelled was reported cancelled")
	}
	if got := w.TakeAsks(&c); !slices.Equal(got, []int64{d3}) {
		t.Errorf("open questions %v, want [%d]", got, d3)
	}
	if len(ids.open) != 0 || w.Count() != 0 {
		t.Errorf("left: %d in the id map, %d calls", len(ids.open), w.Count())
	}
}
