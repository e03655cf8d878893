package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// The legacy session: the session id and version initialize set, the GET
// stream for the server's own messages, and renewal of an expired session.

// initialized records the session a legacy server assigned in its answer
// to initialize, and the version it negotiated.
func (s *Session) initialized(resp *http.Response, res *envelope) {
	if res.result == nil {
		return
	}
	sid := resp.Header.Get(HeaderSessionID)
	if !validSessionID(sid) {
		sid = ""
	}
	v := resultVersion(res.result)
	s.mu.Lock()
	s.sess.id, s.sess.version = sid, v
	if s.sess.first == nil {
		s.sess.first = bytes.Clone(res.result)
	}
	s.mu.Unlock()
}

// resultVersion is an InitializeResult's protocolVersion ("" when it has none).
func resultVersion(result []byte) string {
	f, err := jsonscan.Fields(result, "protocolVersion")
	if err != nil {
		return ""
	}
	v, _ := jsonscan.String(f[0])
	return v
}

// openGet starts the GET stream once a legacy session is initialized. It
// returns once the server answered the stream's first GET (or refused it,
// or getWait passed): the stream is open before the session's next
// request, so what the server sends on it from then on is not missed, and
// a server that answers on the GET stream what a closed POST stream left
// (SEP-1699) finds this stream there first.
func (s *Session) openGet() {
	s.mu.Lock()
	open := s.sess.id != "" && !s.sess.getOpen
	s.sess.getOpen = s.sess.getOpen || open
	s.mu.Unlock()
	if !open {
		return
	}
	answered := make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.getLoop(answered)
	}()
	t := time.NewTimer(getWait)
	defer t.Stop()
	select {
	case <-answered:
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// getWait bounds how long openGet waits for the GET stream's first answer.
const getWait = 2 * time.Second

// getLoop keeps the GET stream open: it reconnects (Last-Event-ID, so a
// server with an event store replays what was missed) when the stream
// ends, renews an expired session, and stops when the server offers no
// GET stream (405) or the session ends.
func (s *Session) getLoop(answered chan struct{}) {
	var once sync.Once
	first := func() { once.Do(func() { close(answered) }) }
	defer first()
	defer func() {
		s.mu.Lock()
		s.sess.getOpen, s.sess.getCancel = false, nil
		s.mu.Unlock()
	}()
	for backoff := time.Second; s.ctx.Err() == nil; {
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		sid, last := s.sess.id, s.sess.lastEvent
		s.sess.getCancel = cancel
		s.mu.Unlock()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
		if err != nil {
			cancel()
			return
		}
		s.setHeaders(req.Header, sid)
		req.Header.Set("Accept", "text/event-stream")
		if last != "" {
			req.Header.Set(HeaderLastEventID, last)
		}
		resp, err := s.client.Do(req)
		first()
		switch {
		case err != nil:
		case sid != "" && s.sessionGone(s.ctx, resp, sid):
			cancel()
			if err := s.renew(sid, resp.StatusCode, nil); err != nil {
				s.fail(err)
				return
			}
			continue // the new session's stream
		case resp.StatusCode != http.StatusOK:
			drain(resp.Body)
			cancel()
			return // no GET stream (405), or not one mcpsum can use
		default:
			ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if ct != "text/event-stream" {
				drain(resp.Body)
				cancel()
				return
			}
			var rp resumePoint
			s.events(resp, nil, &rp)
			drain(resp.Body)
			if rp.hasRetry { // the server says when to come back (SEP-1699)
				backoff = rp.wait()
			}
		}
		renewed := ctx.Err() != nil && s.ctx.Err() == nil // a renewal ended it: reconnect at once
		cancel()
		if renewed {
			continue
		}
		select {
		case <-s.ctx.Done():
		case <-time.After(backoff):
		}
	}
}

// sessionGone reports whether resp, the answer to a request of the legacy
// session sid, says the session no longer exists: HTTP 404 (the
// specification's signal), or HTTP 400 that a ping of the session confirms
// (the TypeScript SDK's servers answer an unknown session id so, after a
// restart): the ping is refused too, with 400 or 404. Any other answer
// leaves resp for its caller; a gone session's resp is drained.
func (s *Session) sessionGone(ctx context.Context, resp *http.Response, sid string) bool {
	switch resp.StatusCode {
	case http.StatusNotFound:
		drain(resp.Body)
		return true
	case http.StatusBadRequest:
	default:
		return false
	}
	// the 400 may be the request's own fault: is the session alive?
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pm, _ := readEnvelope(sessionProbe)
	presp, psid, err := s.post(pctx, sessionProbe, &pm)
	if err != nil {
		return false
	}
	drain(presp.Body)
	if psid == sid && presp.StatusCode != http.StatusBadRequest && presp.StatusCode != http.StatusNotFound {
		return false
	}
	// refused too, or the session was renewed meanwhile (renew then takes
	// that renewal's outcome)
	drain(resp.Body)
	return true
}

// sessionProbe is the ping that asks whether a legacy session still exists
// (its answer is not the caller's: it goes nowhere).
var sessionProbe = []byte(`{"jsonrpc":"2.0","id":"mcpsum-session-probe","method":"ping"}`)

// renewLimit bounds a renewal (the replayed initialize, its answer and
// notifications/initialized): a server that expires sessions and then
// does not answer cannot hold the caller's requests forever.
var renewLimit = 30 * time.Second

// renew replaces an expired legacy session (the server answered status,
// 404 or a confirmed 400, to a request of session expired): initialize is
// replayed (its answer goes to Hooks.Renewed, not to the sink),
// notifications/initialized follows, the GET stream moves to the new
// session, and Hooks.Renewed checks the new session (a server that changed
// while the session was away is the caller's to refuse). A request of the
// caller (id, not Own) goes on only once the check's wait passed. One
// renewal at a time: a request that finds the session renewed meanwhile
// takes that renewal's outcome.
func (s *Session) renew(expired string, status int, id []byte) error {
	s.renewMu.Lock()
	s.mu.Lock()
	if s.sess.id != expired { // renewed meanwhile: its outcome holds
		err, wait := s.sess.renewErr, s.sess.wait
		s.mu.Unlock()
		s.renewMu.Unlock()
		return s.waitRenewed(err, wait, id)
	}
	initReq, first := s.sess.initReq, s.sess.first
	s.sess.renewals++
	s.mu.Unlock()
	var wait func() error
	ctx, cancel := context.WithTimeout(s.ctx, renewLimit)
	res, err := s.reinitialize(ctx, initReq)
	cancel()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && s.ctx.Err() == nil {
			err = fmt.Errorf("no new session within %s", renewLimit)
		}
		err = fmt.Errorf("remote server %s: the session expired (HTTP %d) and a new one could not be started: %w", s.url, status, err)
	} else {
		s.regetAfterRenewal()
		if s.hooks.Renewed != nil {
			wait, err = s.hooks.Renewed(first, res)
		}
	}
	s.mu.Lock()
	s.sess.renewErr, s.sess.wait = err, wait
	s.mu.Unlock()
	s.renewMu.Unlock()
	return s.waitRenewed(err, wait, id)
}

// regetAfterRenewal moves the GET stream to the renewed session: the one
// of the expired session is ended (it reconnects at once, with the new
// session id and no Last-Event-ID: the old session's event ids mean
// nothing to the new one), and one is opened when none runs (it had
// stopped when the expired session's GET was refused).
func (s *Session) regetAfterRenewal() {
	s.mu.Lock()
	s.sess.lastEvent = ""
	cancel := s.sess.getCancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.openGet()
}

func (s *Session) waitRenewed(err error, wait func() error, id []byte) error {
	if err != nil || wait == nil || id == nil || (s.hooks.Own != nil && s.hooks.Own(id)) {
		return err
	}
	return wait()
}

// reinitialize replays initialize and sends notifications/initialized on
// the new session; it returns the new InitializeResult.
func (s *Session) reinitialize(ctx context.Context, initReq []byte) ([]byte, error) {
	if initReq == nil {
		return nil, errors.New("it expired before it was initialized")
	}
	m, err := readEnvelope(initReq)
	if err != nil {
		return nil, err
	}
	resp, _, err := s.post(ctx, initReq, &m)
	if err != nil {
		return nil, err
	}
	defer drain(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("initialize answered HTTP %d", resp.StatusCode)
	}
	res, err := s.initAnswer(resp, &m)
	if err != nil {
		return nil, err
	}
	sid := resp.Header.Get(HeaderSessionID)
	if !validSessionID(sid) {
		return nil, errors.New("the new session has no valid Mcp-Session-Id")
	}
	s.mu.Lock()
	s.sess.id, s.sess.version = sid, resultVersion(res)
	s.mu.Unlock()
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	nm, _ := readEnvelope(note)
	r2, _, err := s.post(ctx, note, &nm)
	if err != nil {
		return nil, err
	}
	drain(r2.Body)
	if r2.StatusCode < 200 || r2.StatusCode > 299 {
		return nil, fmt.Errorf("notifications/initialized answered HTTP %d", r2.StatusCode)
	}
	return res, nil
}

// initAnswer reads the InitializeResult of a replayed initialize (a JSON
// body, or the answer's event of an SSE stream).
func (s *Session) initAnswer(resp *http.Response, m *envelope) ([]byte, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		body, err := readCapped(resp.Body, s.max)
		if err != nil {
			return nil, err
		}
		return initResult(body, m)
	}
	st := NewSSEStream(resp.Body, s.max, 0, '\n')
	defer st.Release()
	for {
		ev, err := st.Next(nil)
		if err != nil {
			return nil, fmt.Errorf("the answer to initialize: %w", err)
		}
		if res, err := initResult(ev.Data, m); err == nil || !errors.Is(err, errNotAnswer) {
			return res, err
		}
	}
}

var errNotAnswer = errors.New("not the answer to initialize")

func initResult(b []byte, m *envelope) ([]byte, error) {
	got, ok := answers(b, m)
	switch {
	case !ok:
		return nil, errNotAnswer
	case got.result == nil:
		return nil, errors.New("initialize failed")
	}
	return bytes.Clone(got.result), nil
}
