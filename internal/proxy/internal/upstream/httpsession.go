package upstream

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// The legacy session of a remote server: the GET stream for the server's
// own messages, and renewal of an expired session followed by a new
// surface check.

// openGet starts the GET stream once a legacy session is initialized.
func (u *HTTP) openGet() {
	u.mu.Lock()
	open := u.sess.id != "" && !u.sess.getOpen
	u.sess.getOpen = u.sess.getOpen || open
	u.mu.Unlock()
	if open {
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			u.getLoop()
		}()
	}
}

// getLoop keeps the GET stream open: it reconnects (Last-Event-ID, so a
// server with an event store replays what was missed) when the stream
// ends, renews an expired session, and stops when the server offers no
// GET stream (405) or the session ends.
func (u *HTTP) getLoop() {
	for backoff := time.Second; u.ctx.Err() == nil; {
		u.mu.Lock()
		sid, last := u.sess.id, u.sess.lastEvent
		u.mu.Unlock()
		req, err := http.NewRequestWithContext(u.ctx, http.MethodGet, u.url, nil)
		if err != nil {
			return
		}
		u.setHeaders(req.Header, sid)
		req.Header.Set("Accept", "text/event-stream")
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := u.client.Do(req)
		switch {
		case err != nil:
		case resp.StatusCode == http.StatusNotFound && sid != "":
			drainBody(resp.Body)
			if err := u.renew(sid, nil); err != nil {
				u.fail(err)
				return
			}
			continue
		case resp.StatusCode != http.StatusOK:
			drainBody(resp.Body)
			return // no GET stream (405), or not one mcpsum can use
		default:
			ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if ct != "text/event-stream" {
				drainBody(resp.Body)
				return
			}
			u.events(u.ctx, resp, nil)
			drainBody(resp.Body)
		}
		select {
		case <-u.ctx.Done():
		case <-time.After(backoff):
		}
	}
}

// renew replaces an expired legacy session (the server answered 404 to a
// request of session expired): initialize is replayed (its answer goes to
// the proxy, not to the client), notifications/initialized follows, and
// the proxy checks the surface of the new session (Hooks.Renewed): a
// server that changed while the session was away is quarantined like any
// other drift. A call of the client (id, not one of the proxy's own) goes
// on only once that check passed.
func (u *HTTP) renew(expired string, id []byte) error {
	u.renewMu.Lock()
	u.mu.Lock()
	if u.sess.id != expired { // renewed meanwhile: its outcome holds
		err, wait := u.sess.renewErr, u.sess.wait
		u.mu.Unlock()
		u.renewMu.Unlock()
		return u.waitRenewed(err, wait, id)
	}
	initReq := u.sess.initReq
	u.mu.Unlock()
	var wait func() error
	res, err := u.reinitialize(initReq)
	if err != nil {
		err = fmt.Errorf("remote server %s: the session expired (HTTP 404) and a new one could not be started: %w", u.url, err)
	} else if u.hooks.Renewed != nil {
		wait, err = u.hooks.Renewed(res.Result)
	}
	u.mu.Lock()
	u.sess.renewErr, u.sess.wait = err, wait
	u.mu.Unlock()
	u.renewMu.Unlock()
	return u.waitRenewed(err, wait, id)
}

func (u *HTTP) waitRenewed(err error, wait func() error, id []byte) error {
	if err != nil || wait == nil || id == nil || (u.hooks.Own != nil && u.hooks.Own(id)) {
		return err
	}
	return wait()
}

// reinitialize replays initialize and sends notifications/initialized on
// the new session.
func (u *HTTP) reinitialize(initReq []byte) (*mcpwire.Message, error) {
	if initReq == nil {
		return nil, errors.New("it expired before it was initialized")
	}
	m, err := mcpwire.Decode(initReq)
	if err != nil {
		return nil, err
	}
	resp, _, err := u.post(u.ctx, initReq, m)
	if err != nil {
		return nil, err
	}
	defer drainBody(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("initialize answered HTTP %d", resp.StatusCode)
	}
	res, err := u.initAnswer(resp, m)
	if err != nil {
		return nil, err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if !mcpwire.ValidSessionID(sid) {
		return nil, errors.New("the new session has no valid Mcp-Session-Id")
	}
	f, _ := jsonscan.Fields(res.Result, "protocolVersion")
	v, _ := jsonscan.String(f[0])
	u.mu.Lock()
	u.sess.id, u.sess.version = sid, v
	u.mu.Unlock()
	note := jsonline.RequestLine(nil, "notifications/initialized", nil)
	nm, _ := mcpwire.Decode(note)
	r2, _, err := u.post(u.ctx, note, nm)
	if err != nil {
		return nil, err
	}
	drainBody(r2.Body)
	if r2.StatusCode < 200 || r2.StatusCode > 299 {
		return nil, fmt.Errorf("notifications/initialized answered HTTP %d", r2.StatusCode)
	}
	return res, nil
}

// initAnswer reads the answer to a replayed initialize (JSON, or the
// answer's event of an SSE stream; small, read whole).
func (u *HTTP) initAnswer(resp *http.Response, m *mcpwire.Message) (*mcpwire.Message, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		body, err := readAtMost(resp.Body, smallEvent)
		if err != nil {
			return nil, err
		}
		return initResult(body, m)
	}
	s := mcpwire.NewSSEStream(resp.Body, smallEvent, 0, '\n')
	defer s.Release()
	for {
		ev, err := s.Next(nil)
		if err != nil {
			return nil, fmt.Errorf("the answer to initialize: %w", err)
		}
		if got, err := initResult(ev.Data, m); err == nil || !errors.Is(err, errNotAnswer) {
			return got, err
		}
	}
}

var errNotAnswer = errors.New("not the answer to initialize")

func initResult(b []byte, m *mcpwire.Message) (*mcpwire.Message, error) {
	got, err := mcpwire.Decode(b)
	switch {
	case err != nil:
		return nil, err
	case !got.IsResponse() || !bytes.Equal(got.ID, m.ID):
		return nil, errNotAnswer
	case got.Result == nil:
		return nil, fmt.Errorf("initialize failed: %v", got.Error)
	}
	return got, nil
}
