package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// A request's POST and its answer; the legacy GET stream; session renewal.

// request runs one request's POST until its answer came. A listen stream
// (subscriptions/listen) that ends without an answer is opened again
// (backing off, also while the server cannot be reached: a redeploy), and
// the proxy then checks the surface (changes meanwhile were not
// announced). A request whose stream ended without its answer gets an
// error answer, so the client is not left waiting.
func (u *HTTP) request(ctx context.Context, msg []byte, m *mcpwire.Message) {
	defer u.forget(m.ID)
	listen := m.Method == "subscriptions/listen"
	backoff := 250 * time.Millisecond
	for again := false; ; again = true {
		answered, err := u.exchange(ctx, msg, m, again)
		switch {
		case ctx.Err() != nil || u.ctx.Err() != nil:
			return // cancelled, or the session is over
		case err != nil && (!listen || errors.As(err, new(*mcpwire.AuthError))):
			u.fail(err)
			return
		case err != nil:
			// a listen stream outlives a redeploy: try again, backing off
		case answered:
			return
		case !listen:
			u.answerError(m.ID, "the server ended the answer's stream without answering %s", describeMsg(m))
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

func (u *HTTP) forget(id []byte) {
	u.mu.Lock()
	delete(u.inflight, string(id))
	u.mu.Unlock()
}

// exchange posts a request once (renewing an expired legacy session once)
// and hands its answer to the pipe. answered reports that the answer (or an
// error answer of the proxy's own) was delivered; err is the end of the
// whole session (the server cannot be reached, or refused the credentials).
func (u *HTTP) exchange(ctx context.Context, msg []byte, m *mcpwire.Message, reopen bool) (answered bool, err error) {
	resp, sid, err := u.post(ctx, msg, m)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && u.reauthorize(ctx, resp.Request.Header.Get("Authorization"), resp.Header.Get("WWW-Authenticate")) {
		drainBody(resp.Body)
		resp, sid, err = u.post(ctx, msg, m)
	}
	if err == nil && resp.StatusCode == http.StatusNotFound && sid != "" {
		drainBody(resp.Body)
		if err := u.renew(sid, m.ID); err != nil {
			return false, err
		}
		resp, _, err = u.post(ctx, msg, m)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		return false, err
	}
	defer drainBody(resp.Body)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusForbidden && u.stepUp(resp, m):
		return true, nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return false, authError(u.url, resp)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		body, _ := readAtMost(resp.Body, 64<<10)
		if rm, err := mcpwire.Decode(body); err == nil && rm.IsResponse() && bytes.Equal(rm.ID, m.ID) {
			return true, u.deliver(oneLine(body)) // a JSON-RPC error sent with an HTTP error status
		}
		u.answerError(m.ID, "HTTP %d to %s: %s", resp.StatusCode, describeMsg(m), termtext.Quoted(string(body), 200))
		return true, nil
	case ct == "text/event-stream":
		if reopen && u.hooks.Relistened != nil {
			go u.hooks.Relistened()
		}
		return u.events(ctx, resp, m)
	case ct == "application/json" && resp.StatusCode == http.StatusOK:
		return true, u.copyBody(resp, m)
	}
	u.answerError(m.ID, "HTTP %d with Content-Type %s and no answer to %s", resp.StatusCode, termtext.Quoted(resp.Header.Get("Content-Type"), 100), describeMsg(m))
	return true, nil
}

// oneLine turns the line breaks of a JSON text into tabs: the same
// whitespace between tokens, and still invalid inside a string.
func oneLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			b[i] = '\t'
		}
	}
	return b
}

// copyBody hands a JSON body to the pipe as one message: whole when it is
// small, else streamed as it arrives (bounded by the message limit).
func (u *HTTP) copyBody(resp *http.Response, m *mcpwire.Message) error {
	head, err := readAtMost(resp.Body, smallEvent+1)
	if err != nil {
		u.answerError(m.ID, "reading the answer to %s: %v", describeMsg(m), err)
		return nil
	}
	if len(head) <= smallEvent {
		if got, err := mcpwire.Decode(head); err == nil && m.Method == "initialize" && got.IsResponse() {
			u.initialized(resp, got)
		}
		return u.deliver(oneLine(head))
	}
	u.pipeMu.Lock()
	defer u.pipeMu.Unlock()
	n, buf := 0, make([]byte, 32<<10)
	for chunk := head; ; {
		if n += len(chunk); n > u.max {
			err = &mcpwire.LineTooLongError{Max: u.max}
			break
		}
		if _, werr := u.pw.Write(oneLine(chunk)); werr != nil {
			return nil // the session is over
		}
		k, rerr := resp.Body.Read(buf)
		chunk = buf[:k]
		if rerr == io.EOF && k == 0 {
			u.pw.Write(jsonline.Newline)
			return nil
		}
		if rerr != nil && rerr != io.EOF {
			err = fmt.Errorf("the answer to %s broke off: %w", describeMsg(m), rerr)
			break
		}
	}
	// half a message is in the pipe: the session cannot go on
	u.pw.CloseWithError(fmt.Errorf("remote server %s: %w", u.url, err))
	return nil
}

// events hands each event of an SSE answer to the pipe until the answer to
// m came (nil m: the GET stream, until it ends). An event too long to look
// at streams into the pipe; answered is then assumed when the stream ends
// cleanly (servers close it after the answer).
func (u *HTTP) events(ctx context.Context, resp *http.Response, m *mcpwire.Message) (answered bool, err error) {
	s := mcpwire.NewSSEStream(resp.Body, u.max, smallEvent, '\t')
	defer s.Release()
	long := false
	for {
		held := false
		ev, err := s.Next(func(typ string) io.Writer {
			if typ != "" && typ != "message" {
				return nil
			}
			u.pipeMu.Lock()
			held = true
			return u.pw
		})
		if held {
			if err == nil {
				_, err = u.pw.Write(jsonline.Newline)
			} else {
				u.pw.CloseWithError(fmt.Errorf("remote server %s: SSE answer to %s: %w", u.url, describeMsg(m), err))
			}
			u.pipeMu.Unlock()
		}
		if m == nil {
			u.mu.Lock()
			u.sess.lastEvent = s.LastID
			u.mu.Unlock()
		}
		switch {
		case err != nil && (held || errors.Is(err, mcpwire.ErrSSECut)):
			return false, nil // the pipe carries the error to the core
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
			if got, derr := mcpwire.Decode(ev.Data); derr == nil && got.IsResponse() && bytes.Equal(got.ID, m.ID) {
				done = true
				if m.Method == "initialize" {
					u.initialized(resp, got)
				}
			}
		}
		if u.deliver(ev.Data) != nil || done {
			return done, nil
		}
	}
}

// initialized records the session a legacy server assigned in its answer
// to initialize, and the version it negotiated.
func (u *HTTP) initialized(resp *http.Response, res *mcpwire.Message) {
	if res.Result == nil {
		return
	}
	f, _ := jsonscan.Fields(res.Result, "protocolVersion")
	v, _ := jsonscan.String(f[0])
	sid := resp.Header.Get("Mcp-Session-Id")
	if !mcpwire.ValidSessionID(sid) {
		sid = ""
	}
	u.mu.Lock()
	u.sess.id, u.sess.version = sid, v
	u.mu.Unlock()
}
