package mcphttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// ErrClosed is the end of a session that Stop ended.
var ErrClosed = errors.New("the session was closed")

// HTTPStatusError is a request the server refused with an HTTP error status
// and a body that is not the request's JSON-RPC answer (a legacy server
// refuses server/discover this way). The session goes on.
type HTTPStatusError struct {
	URL    string
	Method string // the request's method, quoted
	Status int
	Body   []byte // as sent, at most 64 KiB (untrusted: Error quotes it)
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("remote server %s answered HTTP %d to %s: %s", e.URL, e.Status, e.Method, termtext.Quoted(string(e.Body), 200))
}

// AuthError is a server that wants credentials mcpsum was not given (HTTP
// 401 or 403), or refused the ones it was given and no Reauth hook gave
// better ones.
type AuthError struct {
	URL       string
	Status    int
	Challenge string // the WWW-Authenticate header, quoted
	Header    string // the same, raw (untrusted: never print it)
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("remote server %s answered HTTP %d: it needs credentials. Pass them from an environment variable with --header NAME=ENVVAR (for example --header Authorization=MY_TOKEN with MY_TOKEN='Bearer …' exported)", e.URL, e.Status)
	if e.Challenge != "" && e.Challenge != `""` {
		msg += "; it asked with WWW-Authenticate: " + e.Challenge
	}
	return msg
}

// wantsCredentials: a 401, or a 403 with an auth challenge (RFC 6750's
// insufficient_scope). A 403 without one is a refusal the server explains
// in its body (Playwright's MCP server says to use localhost): it is an
// *HTTPStatusError that shows the body, not "it needs credentials".
func wantsCredentials(resp *http.Response) bool {
	return resp.StatusCode == http.StatusUnauthorized ||
		(resp.StatusCode == http.StatusForbidden && strings.TrimSpace(resp.Header.Get("WWW-Authenticate")) != "")
}

func authError(url string, resp *http.Response) error {
	h := resp.Header.Get("WWW-Authenticate")
	return &AuthError{URL: url, Status: resp.StatusCode, Challenge: termtext.TruncateQuote(h, 300), Header: h}
}

// TooLargeError is a message longer than the session's limit.
type TooLargeError struct{ Max int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("a message longer than the %s limit", termtext.Size(e.Max))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// readCapped reads all of r, failing with a *TooLargeError past max bytes.
func readCapped(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, &TooLargeError{Max: max}
	}
	return b, nil
}

// readAtMost reads up to n bytes of r (what a refusal's body is quoted from).
func readAtMost(r io.Reader, n int64) ([]byte, error) { return io.ReadAll(io.LimitReader(r, n)) }

// drain reads a little of an answer's body, so its connection can be used
// again, and closes it.
func drain(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
