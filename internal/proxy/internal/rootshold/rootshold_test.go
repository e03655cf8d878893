package rootshold

import "testing"

// One request is held at a time and answered once; its token outlives the
// answer, and Release clears everything.
func TestHold(t *testing.T) {
	var h Hold
	if h.Holding() || h.Take([]byte(`1`)) {
		t.Fatal("an empty hold holds something")
	}
	line := []byte(`{"id":1,"method":"roots/list"}`)
	if !h.Keep(line, []byte(`1`)) || h.Keep(line, []byte(`2`)) {
		t.Fatal("not exactly one request held")
	}
	line[0] = 'x' // the hold has its own copy
	made := 0
	newToken := func() string { made++; return "tok" }
	first, second := h.Token(newToken), h.Token(newToken)
	if first != "tok" || second != "tok" || made != 1 {
		t.Errorf("token made %d times", made)
	}
	if got, id, tok := h.Held(); string(got) != `{"id":1,"method":"roots/list"}` || string(id) != `1` || tok != "tok" {
		t.Errorf("Held = %s %s %q", got, id, tok)
	}
	if h.Take([]byte(`2`)) || !h.Take([]byte(`1`)) || h.Take([]byte(`1`)) {
		t.Error("not answered exactly once")
	}
	if _, _, tok := h.Held(); tok != "tok" || h.Holding() {
		t.Error("the token went with the answer")
	}
	h.Keep(line, []byte(`3`))
	if h.Release() == nil || h.Holding() {
		t.Error("Release left the request")
	}
	if _, _, tok := h.Held(); tok != "" {
		t.Error("Release left the token")
	}
}

// A call that came with a round of its own gets a token of its own, which
// gives back what it came with; the oldest go once maxCarried are kept.
func TestCarry(t *testing.T) {
	var h Hold
	n := 0
	newToken := func() string { n++; return "t" + string(rune('0'+n%10)) + string(rune('a'+n/10)) }
	first := h.Carry(newToken, Carried{State: []byte(`"mcpsum-approval.v1.x"`), Responses: []byte(`{"mcpsum-approve":{}}`)})
	if c, ok := h.CarriedBy(first); !ok || string(c.State) != `"mcpsum-approval.v1.x"` || string(c.Responses) != `{"mcpsum-approve":{}}` {
		t.Fatalf("CarriedBy(%s) = %q %q %v", first, c.State, c.Responses, ok)
	}
	if _, ok := h.CarriedBy("other"); ok {
		t.Fatal("a token Carry never made is carried")
	}
	if h.Token(newToken) == first {
		t.Fatal("the held request's token is a carried call's")
	}
	for range maxCarried {
		h.Carry(newToken, Carried{State: []byte(`"s"`)})
	}
	if _, ok := h.CarriedBy(first); ok {
		t.Fatalf("more than %d carried rounds kept", maxCarried)
	}
}
