package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// A request's POST and its answer: a JSON body or an SSE stream.

// request runs one request's POST until its answer came. A listen stream
// (subscriptions/listen) that ends without an answer is opened again
// (backing off, also while the server cannot be reached: a redeploy), and
// Hooks.Relistened is told (changes meanwhile were not announced). A
// request whose answer did not come is Unanswered, so the caller is not
// left waiting; one the caller cancelled is not.
func (s *Session) request(ctx context.Context, msg []byte, m *envelope) {
	defer s.forget(m.id)
	listen := m.method == "subscriptions/listen"
	backoff := 250 * time.Millisecond
	for again := false; ; again = true {
		var rp resumePoint
		answered, err := s.exchange(ctx, msg, m, again, &rp)
		switch {
		case ctx.Err() != nil || s.ctx.Err() != nil:
			return // cancelled, or the session is over
		case err != nil && (!listen || errors.As(err, new(*AuthError))):
			s.fail(err)
			return
		case err != nil:
			// a listen stream outlives a redeploy: try again, backing off
		case answered:
			return
		case !listen:
			if s.resume(ctx, m, rp) {
				return
			}
			s.sink.Unanswered(m.id, fmt.Errorf("remote server %s ended the answer's stream without answering %s", s.url, what(m)))
			return
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// exchange posts a request once (asking Hooks.Reauth once after a 401,
// renewing an expired legacy session once) and hands its answer to the
// sink. answered reports that the request's answer came, or that it was
// told Unanswered (its POST failed: that request fails, not the session);
// err ends the whole session (a redirect elsewhere, refused credentials,
// a session that could not be renewed) or, for a listen, tries again.
func (s *Session) exchange(ctx context.Context, msg []byte, m *envelope, reopen bool, rp *resumePoint) (answered bool, err error) {
	resp, sid, err := s.post(ctx, msg, m)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && s.reauthorize(ctx, resp.Request.Header.Get("Authorization"), resp.Header.Get("WWW-Authenticate")) {
		drain(resp.Body)
		resp, sid, err = s.post(ctx, msg, m)
	}
	if err == nil && sid != "" && s.sessionGone(ctx, resp, sid) {
		if err := s.renew(sid, resp.StatusCode, m.id); err != nil {
			return false, err
		}
		resp, _, err = s.post(ctx, msg, m)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		var op *net.OpError
		never := !s.reached.Load() && errors.As(err, &op) && op.Op == "dial"
		if m.method != "subscriptions/listen" && !errors.As(err, new(*RedirectError)) && !never {
			// This POST was dropped (a reset, a crashed worker behind a
			// balancer, a restart): the request fails, the session goes
			// on, and the next request opens a new connection. A server
			// that never answered and cannot be dialled ends the session
			// (it looks failed, as directly); a listen tries again.
			s.sink.Unanswered(m.id, err)
			return true, nil
		}
		return false, err
	}
	s.reached.Store(true)
	defer drain(resp.Body)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusForbidden && wantsCredentials(resp) && s.stepUp(resp, m):
		return true, nil
	case wantsCredentials(resp):
		return false, authError(s.url, resp)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return true, s.refused(resp, m)
	case ct == "text/event-stream":
		if reopen && s.hooks.Relistened != nil {
			go s.hooks.Relistened()
		}
		return s.events(resp, m, rp)
	case ct == "application/json" && resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent:
		return true, s.body(resp, m)
	}
	s.sink.Unanswered(m.id, fmt.Errorf("remote server %s answered HTTP %d with Content-Type %s and no answer to %s", s.url, resp.StatusCode, termtext.Quoted(resp.Header.Get("Content-Type"), 100), what(m)))
	return true, nil
}

// refused takes an HTTP error status: a body that is the request's
// JSON-RPC answer (an error sent with an HTTP status) is the answer;
// otherwise the request is Unanswered with an *HTTPStatusError.
func (s *Session) refused(resp *http.Response, m *envelope) error {
	body, _ := readAtMost(resp.Body, 64<<10)
	if _, ok := answers(body, m); ok {
		return s.deliver(oneLine(body))
	}
	s.sink.Unanswered(m.id, &HTTPStatusError{URL: s.url, Method: what(m), Status: resp.StatusCode, Body: body})
	return nil
}

// deliver hands one whole message to the sink; its refusal ends the session.
func (s *Session) deliver(data []byte) error {
	if err := s.sink.Message(data); err != nil {
		s.fail(err)
		return err
	}
	return nil
}

// body hands a JSON body to the sink as one message: whole when it is
// small, else streamed as it arrives (up to MaxMessage). A small body that
// is not the request's answer leaves the request Unanswered.
func (s *Session) body(resp *http.Response, m *envelope) error {
	head, err := readAtMost(resp.Body, int64(s.sink.Small)+1)
	if err != nil {
		s.sink.Unanswered(m.id, fmt.Errorf("remote server %s: reading the answer to %s: %w", s.url, what(m), err))
		return nil
	}
	if len(head) <= s.sink.Small {
		got, ok := answers(head, m)
		if ok && m.method == "initialize" {
			s.initialized(resp, &got)
		}
		if err := s.deliver(oneLine(head)); err != nil || ok {
			return err
		}
		s.sink.Unanswered(m.id, fmt.Errorf("remote server %s answered %s with a JSON body that is not its answer", s.url, what(m)))
		return nil
	}
	if s.sink.Long == nil {
		err := fmt.Errorf("remote server %s: the answer to %s: %w", s.url, what(m), &TooLargeError{Max: s.max})
		s.fail(err)
		return err
	}
	w, end := s.sink.Long()
	lw := &bodyLine{w: w}
	n, buf := 0, make([]byte, 32<<10)
	for chunk := head; ; {
		if n += len(chunk); n > s.max {
			err = &TooLargeError{Max: s.max}
			break
		}
		if _, err = lw.Write(chunk); err != nil {
			break
		}
		k, rerr := resp.Body.Read(buf)
		chunk = buf[:k]
		if rerr == io.EOF && k == 0 {
			end(nil)
			return nil
		}
		if rerr != nil && rerr != io.EOF {
			err = fmt.Errorf("the answer to %s broke off: %w", what(m), rerr)
			break
		}
	}
	// half a message went to the sink: the session cannot go on
	err = fmt.Errorf("remote server %s: %w", s.url, err)
	end(err)
	s.fail(err)
	return err
}

// events hands each event of an SSE stream to the sink until the answer to
// m came (nil m: the GET stream, until it ends). An event longer than
// Sink.Small streams into Sink.Long; answered is then assumed when the
// stream ends cleanly (servers close it after the answer). An event over
// MaxMessage, or one cut while it streamed into the sink, ends the session; a stream
// that ends or breaks otherwise just ends (the request is Unanswered, a
// listen or the GET stream reconnects).
func (s *Session) events(resp *http.Response, m *envelope, rp *resumePoint) (answered bool, err error) {
	st := NewSSEStream(resp.Body, s.max, s.sink.Small, '\t')
	defer st.Release()
	if rp != nil {
		defer func() { rp.id, rp.retry, rp.hasRetry = st.LastID, st.Retry, st.HasRetry }()
	}
	var sid string
	if m == nil { // the GET stream goes on from the last event id it saw
		s.mu.Lock()
		st.LastID, sid = s.sess.lastEvent, s.sess.id
		s.mu.Unlock()
	}
	long := false
	for {
		var end func(error)
		ev, err := st.Next(func(typ string) io.Writer {
			if (typ != "" && typ != "message") || s.sink.Long == nil {
				return nil
			}
			var w io.Writer
			w, end = s.sink.Long()
			return w
		})
		if end != nil && err == nil {
			end(nil)
		}
		if m == nil {
			s.mu.Lock()
			if s.sess.id == sid { // not a renewed session's: its ids are not the old one's
				s.sess.lastEvent = st.LastID
			}
			s.mu.Unlock()
		}
		switch {
		case err != nil && (end != nil || errors.Is(err, ErrTooLarge)):
			err = fmt.Errorf("remote server %s: SSE answer to %s: %w", s.url, what(m), err)
			if end != nil {
				end(err)
			}
			s.fail(err)
			return false, nil
		case err != nil:
			return long, nil // ended (cleanly, or broken off: request answers or reconnects)
		case ev.Spilled:
			long = true
			continue
		case ev.Type != "" && ev.Type != "message":
			continue
		}
		done := false
		if m != nil {
			var got envelope
			if got, done = answers(ev.Data, m); done && m.method == "initialize" {
				s.initialized(resp, &got)
			}
		}
		if s.deliver(ev.Data) != nil || done {
			return done, nil
		}
	}
}

// resumePoint is where an SSE stream the server closed can be resumed: its
// last event id and the reconnection time it set (SEP-1699).
type resumePoint struct {
	id       string
	retry    time.Duration
	hasRetry bool
}

// maxRetryWait bounds the reconnection time a server may set.
const maxRetryWait = time.Minute

// wait is how long to wait before resuming: the server's retry, else 1 s.
func (rp resumePoint) wait() time.Duration {
	if !rp.hasRetry {
		return time.Second
	}
	return min(rp.retry, maxRetryWait)
}

// resume takes a legacy request whose answer's SSE stream the server
// closed before the answer, having given its events ids: as SEP-1699 asks,
// after the stream's retry time (else 1 s) mcpsum GETs the session's stream
// with Last-Event-ID, and the server sends what followed, the answer among
// it, there. It reports whether the request is settled (answered, or
// cancelled meanwhile); false leaves it unanswered. A stream without event
// ids cannot be resumed, nor a 2026-07-28 request (stateless: no session
// to resume it in).
func (s *Session) resume(ctx context.Context, m *envelope, rp resumePoint) bool {
	if _, modern := modernOf(m); rp.id == "" || modern {
		return false
	}
	for attempt := 0; attempt < 5; attempt++ {
		select {
		case <-time.After(rp.wait()):
		case <-ctx.Done():
			return true
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
		if err != nil {
			return false
		}
		s.mu.Lock()
		sid := s.sess.id
		s.mu.Unlock()
		s.setHeaders(req.Header, sid)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", rp.id)
		resp, err := s.client.Do(req)
		if err != nil {
			return ctx.Err() != nil
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			drain(resp.Body)
			return false // no stream to resume (405), or an expired session
		}
		next := rp
		answered, _ := s.events(resp, m, &next)
		drain(resp.Body)
		if answered || ctx.Err() != nil || s.ctx.Err() != nil {
			return true
		}
		if next.id != "" {
			rp = next
		}
	}
	return false
}

// stepUp leaves a request the server refused with 403 Unanswered with
// Hooks.StepUp's error, when it gives one (the session goes on).
func (s *Session) stepUp(resp *http.Response, m *envelope) bool {
	if s.hooks.StepUp == nil {
		return false
	}
	err := s.hooks.StepUp(resp.Header.Get("WWW-Authenticate"))
	if err != nil {
		s.sink.Unanswered(m.id, err)
	}
	return err != nil
}
