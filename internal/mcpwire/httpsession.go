package mcpwire

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"mime"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// The legacy session of an HTTP transport: the session id and version
// initialize set, the GET stream, renewal of an expired session.

// initialized records the session the server assigned and the negotiated
// version, then opens the GET stream.
func (t *HTTP) initialized(resp *http.Response, res *Message) {
	if res.Result == nil {
		return
	}
	f, _ := jsonscan.Fields(res.Result, "protocolVersion")
	v, _ := jsonscan.String(f[0])
	sid := resp.Header.Get("Mcp-Session-Id")
	if !ValidSessionID(sid) {
		sid = ""
	}
	t.mu.Lock()
	if t.initRes == nil {
		t.initRes = res.Result
	}
	t.session, t.version = sid, v
	open := !t.streaming && sid != ""
	t.streaming = t.streaming || open
	t.mu.Unlock()
	if open {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.getStream()
		}()
	}
}

// ValidSessionID reports whether s can be an Mcp-Session-Id: visible ASCII
// (0x21–0x7E), at most 1024 bytes.
func ValidSessionID(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// getStream opens the legacy GET stream for the server's own messages (a
// server that offers none answers 405).
func (t *HTTP) getStream() {
	time.Sleep(20 * time.Millisecond) // after notifications/initialized is on its way
	req, err := http.NewRequestWithContext(t.ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return
	}
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	t.setHeaders(req.Header, session)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		return
	}
	defer drain(resp.Body)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		return
	}
	if err := t.stream(resp, nil); err != nil && !errors.Is(err, ErrClosed) {
		t.fail(err)
	}
}

// renewSession replaces an expired session: initialize is replayed (its
// response is not handed to the client again) and must answer exactly as
// before, then notifications/initialized is sent.
func (t *HTTP) renewSession(expired string) error {
	t.mu.Lock()
	if t.session != expired { // another request renewed it already
		t.mu.Unlock()
		return nil
	}
	initReq, initRes := t.initReq, t.initRes
	t.session = ""
	t.renewed++
	t.mu.Unlock()
	if initReq == nil {
		return fmt.Errorf("remote server %s: session expired before it was initialized", t.url)
	}
	req, err := http.NewRequestWithContext(t.ctx, http.MethodPost, t.url, bytes.NewReader(initReq))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range t.spec.Header {
		req.Header[k] = vs
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("remote server %s: renewing the expired session: %w", t.url, unwrapURLError(err))
	}
	defer drain(resp.Body)
	res, err := t.renewAnswer(resp)
	if err != nil {
		return fmt.Errorf("remote server %s: the session expired (HTTP 404) and a new one could not be started: %w", t.url, err)
	}
	if !bytes.Equal(res.Result, initRes) {
		return hint.Errorf("run the command again", "remote server %s: the session expired (HTTP 404) and the new session's InitializeResult differs from the first one", t.url)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if !ValidSessionID(sid) {
		return fmt.Errorf("remote server %s: the renewed session has no valid Mcp-Session-Id", t.url)
	}
	t.mu.Lock()
	t.session = sid
	t.mu.Unlock()
	note, _ := encodeRequest(nil, "notifications/initialized", nil)
	nm, _ := Decode(note)
	return t.post(note, nm, false)
}

// renewAnswer reads the InitializeResult of a replayed initialize (JSON or
// the first response event of an SSE stream).
func (t *HTTP) renewAnswer(resp *http.Response) (*Message, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var body []byte
	var err error
	if ct == "text/event-stream" {
		r := newSSEReader(resp.Body, t.max)
		for body == nil && err == nil {
			var ev *sseEvent
			if ev, err = r.next(); err == nil && (ev.Type == "" || ev.Type == "message") {
				if m, derr := Decode(ev.Data); derr == nil && m.IsResponse() {
					body = ev.Data
				}
			}
		}
	} else {
		body, err = readCapped(resp.Body, t.max)
	}
	if err != nil {
		return nil, err
	}
	m, err := Decode(body)
	if err != nil {
		return nil, err
	}
	if m.Result == nil {
		return nil, errors.New("initialize failed")
	}
	return m, nil
}
