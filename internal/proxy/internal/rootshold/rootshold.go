package rootshold

import "sync"

// Hold is the held roots/list of one session (none at first).
type Hold struct {
	mu       sync.Mutex
	line, id []byte
	token    string
	carried  map[string]Carried // tokens of calls that came with a round of their own
	order    []string           // carried's tokens, oldest first
}

// Carried is what a call asked for roots came with: its requestState and
// inputResponses (raw JSON; Responses nil when none), an input round of
// its own (an approval of mcpsum's, a server's) that its retry goes on
// with once the roots are in.
type Carried struct{ State, Responses []byte }

// maxCarried bounds the carried rounds kept (the oldest go first).
const maxCarried = 64

// Carry makes the token a call that came with c is asked for roots with.
func (h *Hold) Carry(newToken func() string, c Carried) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.carried == nil {
		h.carried = map[string]Carried{}
	}
	t := newToken()
	h.carried[t] = Carried{State: append([]byte(nil), c.State...), Responses: append([]byte(nil), c.Responses...)}
	h.order = append(h.order, t)
	if len(h.order) > maxCarried {
		delete(h.carried, h.order[0])
		h.order = h.order[1:]
	}
	return t
}

// CarriedBy is what the call asked with token came with (false: token is
// not one of Carry's).
func (h *Hold) CarriedBy(token string) (Carried, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.carried[token]
	return c, ok
}

// Keep holds the server's roots/list line (its id: id); false when one is
// held already.
func (h *Hold) Keep(line, id []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.line != nil {
		return false
	}
	h.line = append([]byte(nil), line...)
	h.id = append([]byte(nil), id...)
	return true
}

// Holding reports whether a roots/list is held.
func (h *Hold) Holding() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.line != nil
}

// Release takes the held line out (nil when none), token and all.
func (h *Hold) Release() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	line := h.line
	h.line, h.id, h.token = nil, nil, ""
	return line
}

// Held is the held line (nil when none), its id, and the token the client
// was asked with ("" when none).
func (h *Hold) Held() (line, id []byte, token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.line, h.id, h.token
}

// Token is the token the client is asked with, made by newToken the first
// time.
func (h *Hold) Token(newToken func() string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.token == "" {
		h.token = newToken()
	}
	return h.token
}

// Take takes out the held request with id upID, to be answered (once);
// false when it was answered already. The token stays: a late retry
// carrying it is still the proxy's.
func (h *Hold) Take(upID []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.line == nil || string(h.id) != string(upID) {
		return false
	}
	h.line, h.id = nil, nil
	return true
}
