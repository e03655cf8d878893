package idmap

import (
	"errors"
	"strconv"
	"testing"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// call stands for the proxy's record of a call.
type call struct {
	Call
	method string
}

type ask struct{ hook bool }

func newMap() *Map[*call, *ask] { return New[*call, *ask]() }

// The id map holds at most MaxCallsInFlight of the client's calls; the
// proxy's own requests are not counted, and an answered call frees a place.
func TestIDMapCap(t *testing.T) {
	m := newMap()
	for i := range mcpspec.MaxCallsInFlight {
		if _, ok := m.Forward(&call{Call: Call{ClientID: strconv.AppendInt(nil, int64(i), 10)}, method: "tools/call"}); !ok {
			t.Fatalf("call %d refused under the cap", i)
		}
	}
	if _, ok := m.Forward(&call{Call: Call{ClientID: []byte(`"over"`)}, method: "tools/call"}); ok {
		t.Fatal("a call over the cap was recorded")
	}
	m.Own(&call{Call: Call{Own: make(chan Reply, 1)}, method: "ping"})
	if u, c := m.DropClient("7"); c == nil {
		t.Fatal("call 7 not found")
	} else {
		m.Drop(u, c) // a second drop frees nothing more
	}
	if _, ok := m.Forward(&call{Call: Call{ClientID: []byte(`"next"`)}, method: "tools/call"}); !ok {
		t.Fatal("a call was refused after one was answered")
	}
	if _, ok := m.Forward(&call{Call: Call{ClientID: []byte(`"over2"`)}, method: "tools/call"}); ok {
		t.Fatal("a second drop of one call freed two places")
	}
}

// FailAll answers the proxy's own requests with the error, returns the
// client ids of forwarded calls and the hook's questions, and leaves the
// other requests to the client open.
func TestFailAll(t *testing.T) {
	m := newMap()
	own := &call{Call: Call{Own: make(chan Reply, 1)}, method: "ping"}
	m.Own(own)
	m.Forward(&call{Call: Call{ClientID: []byte(`"a"`), LogLevel: true}, method: "tools/call"})
	dropped := &call{Call: Call{ClientID: []byte(`"b"`)}, method: "tools/call"}
	u, _ := m.Forward(dropped)
	m.Drop(u, dropped)
	hook, other := &ask{hook: true}, &ask{}
	m.Ask(hook)
	d := m.Ask(other)
	e := errors.New("ended")
	ids, asks := m.FailAll(e, func(r *ask) bool { return r.hook })
	if len(ids) != 1 || string(ids[0]) != `"a"` {
		t.Errorf("client ids %q, want [\"a\"]", ids)
	}
	if len(asks) != 1 || asks[0] != hook {
		t.Errorf("asks %v, want the hook's", asks)
	}
	if r := <-own.Own; r.Err != e {
		t.Errorf("own request got %v", r.Err)
	}
	if m.Busy() != 0 || m.LogWanters() != 0 || m.AsksOpen() != 1 || m.TakeDown(d) != other {
		t.Errorf("left: busy %d, log wanters %d, asks %d", m.Busy(), m.LogWanters(), m.AsksOpen())
	}
}

// A client's retry under a new id names the same upstream call (Unbind,
// Rebind), and the newest matching call is found by LastCall.
func TestRebindAndLastCall(t *testing.T) {
	m := newMap()
	u1, _ := m.Forward(&call{Call: Call{ClientID: []byte(`1`)}, method: "tools/call"})
	c2 := &call{Call: Call{ClientID: []byte(`2`)}, method: "tools/call"}
	u2, _ := m.Forward(c2)
	if u, c := m.LastCall(func(*call) bool { return true }); u != u2 || c != c2 {
		t.Fatalf("LastCall = %d, want %d", u, u2)
	}
	m.Unbind("2")
	if _, c := m.DropClient("2"); c != nil {
		t.Fatal("an unbound id still names its call")
	}
	m.Rebind("3", u2, true)
	if m.LogWanters() != 1 {
		t.Errorf("log wanters %d, want 1", m.LogWanters())
	}
	if u, c := m.DropClient("3"); u != u2 || c != c2 || !c2.Cancelled {
		t.Errorf("DropClient(3) = %d, want %d, cancelled", u, u2)
	}
	if m.Pending(u1) == nil || m.Busy() != 1 {
		t.Errorf("call 1 lost: busy %d", m.Busy())
	}
}
