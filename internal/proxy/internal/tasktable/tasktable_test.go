package tasktable

import (
	"context"
	"testing"
)

type req struct{ key string }

type table = Table[string, *req, error]

func newTable(max, maxQueued int, refused *[]*req) *table {
	return New[string, *req, error](max, maxQueued, func(r []*req) { *refused = append(*refused, r...) })
}

func park(t *table, task string) bool {
	return t.Park(task, func(key string) *req { return &req{key: key} })
}

// Past max tasks the oldest is forgotten, and the open requests of its
// input wait are refused.
func TestRememberForgetsOldest(t *testing.T) {
	var refused []*req
	tb := newTable(2, 4, &refused)
	tb.Remember("a", "call a")
	if _, created := tb.InputFor("a"); !created || !park(tb, "a") {
		t.Fatal("no input wait for a")
	}
	tb.Remember("b", "call b")
	tb.Remember("b", "call b again") // known: nothing forgotten
	if len(refused) != 0 {
		t.Fatalf("refused %d before the cap", len(refused))
	}
	tb.Remember("c", "call c")
	if _, ok := tb.Info("a"); ok || len(refused) != 1 || refused[0].key != "mcpsum-task-1" || tb.Inputs() != 0 {
		t.Errorf("a not forgotten: refused %v, %d input waits", refused, tb.Inputs())
	}
	if info, _ := tb.Info("b"); info != "call b again" {
		t.Errorf("Info(b) = %q", info)
	}
	if ids := tb.IDs(); len(ids) != 2 || ids[0] != "b" || ids[1] != "c" {
		t.Errorf("IDs = %v", ids)
	}
}

// A task keeps at most maxQueued requests; each is taken once; a finished
// wait takes no more and is cleared when the waits are full.
func TestInputWait(t *testing.T) {
	var refused []*req
	tb := newTable(1, 2, &refused)
	if park(tb, "x") {
		t.Fatal("parked for a task nobody waits on")
	}
	ti, _ := tb.InputFor("x")
	first, second, third := park(tb, "x"), park(tb, "x"), park(tb, "x")
	if !first || !second || third {
		t.Fatal("the per-task cap of 2 does not hold")
	}
	open := tb.Open("x")
	if !tb.Take(open[0]) || tb.Take(open[0]) || len(tb.Open("x")) != 1 {
		t.Error("a request was taken twice")
	}
	if other, _ := tb.InputFor("y"); other != nil {
		t.Error("a second wait past max")
	}
	tb.Finished(ti, []byte(`{}`), nil)
	if reqs, done, _ := tb.State(ti); !done || len(reqs) != 1 {
		t.Errorf("State = %d requests, done %v", len(reqs), done)
	}
	if res, err, ok := tb.Result("x"); !ok || string(res) != `{}` || err != nil {
		t.Errorf("Result = %s %v %v", res, err, ok)
	}
	if park(tb, "x") {
		t.Error("parked for a finished task")
	}
	if y, created := tb.InputFor("y"); y == nil || !created {
		t.Error("the finished wait was not cleared for a new one")
	}
	tb.DropInput("y")
	if tb.Inputs() != 0 || len(refused) != 0 {
		t.Errorf("%d waits left, %d refused", tb.Inputs(), len(refused))
	}
}

// A client reusing a running request's id ends the older request.
func TestCrossWaits(t *testing.T) {
	var refused []*req
	tb := newTable(1, 1, &refused)
	ctx1, cancel1 := context.WithCancel(context.Background())
	tb.Wait("1", cancel1)
	ctx2, cancel2 := context.WithCancel(context.Background())
	tb.Wait("1", cancel2)
	if ctx1.Err() == nil {
		t.Error("the older request under the same id still runs")
	}
	tb.Waited("1", ctx1) // the older one's end leaves the newer entry
	if !tb.CancelWait("1") || ctx2.Err() == nil || tb.CancelWait("1") {
		t.Error("the newer request was not cancelled exactly once")
	}
}
