package rootshold

import "sync"

// Hold is the held roots/list of one session (none at first).
type Hold struct {
	mu       sync.Mutex
	line, id []byte
	token    string
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
