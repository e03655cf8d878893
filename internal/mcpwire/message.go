package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Message is a decoded copy of one JSON-RPC message, for inspection. Raw fields
// hold copies of the bytes as sent; forwarders keep and forward the original line.
type Message struct {
	// ID is the raw id ("1" and "\"1\"" differ); nil when absent, "null" when null.
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// JSONRPC is the "jsonrpc" member as sent (it should be "2.0").
	JSONRPC string `json:"jsonrpc,omitempty"`

	failed error // the transport's reason the call got no JSON-RPC answer (an HTTP status)
}

// IsRequest reports a request: a method and a non-null id.
func (m *Message) IsRequest() bool { return m.Method != "" && hasID(m.ID) }

// IsNotification reports a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports a response: no method, and a result or an error.
func (m *Message) IsResponse() bool {
	return m.Method == "" && (m.Result != nil || m.Error != nil)
}

func hasID(id json.RawMessage) bool { return id != nil && string(id) != "null" }

// IntID returns the id as an integer when it is a plain JSON integer.
func (m *Message) IntID() (int64, bool) { return intID(m.ID) }

func intID(id json.RawMessage) (int64, bool) {
	if len(id) == 0 || len(id) > 19 {
		return 0, false
	}
	for i, c := range id {
		if (c < '0' || c > '9') && !(i == 0 && c == '-' && len(id) > 1) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return n, err == nil
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("server error %d %s", e.Code, termtext.Quoted(e.Message, 300))
}

// DecodeError reports a line that is not a JSON-RPC message.
type DecodeError struct {
	Reason string // what is wrong, e.g. "not JSON"
	Line   []byte // the offending line (the caller's slice; not copied)
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s", e.Reason, termtext.Quoted(string(e.Line), 200))
}

// ErrNotMessage is matched (errors.Is) by every *DecodeError.
var ErrNotMessage = errors.New("not a JSON-RPC message")

// Is makes errors.Is(err, ErrNotMessage) true.
func (e *DecodeError) Is(target error) bool { return target == ErrNotMessage }

// Decode parses one line into a Message. The result holds copies; line is not
// retained or modified. It rejects invalid UTF-8, anything but a JSON object
// (batches included), an error member that is not a JSON-RPC error object, and
// a message that is neither request, notification nor response.
func Decode(line []byte) (*Message, error) {
	if !utf8.Valid(line) {
		return nil, &DecodeError{Reason: "invalid UTF-8", Line: line}
	}
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &DecodeError{Reason: "empty message", Line: line}
	}
	switch trimmed[0] {
	case '{':
	case '[':
		return nil, &DecodeError{Reason: "JSON-RPC batch (array) is not supported", Line: line}
	default:
		if !json.Valid(line) {
			return nil, &DecodeError{Reason: "not JSON", Line: line}
		}
		return nil, &DecodeError{Reason: "not a JSON object", Line: line}
	}
	if !json.Valid(line) {
		return nil, &DecodeError{Reason: "not JSON", Line: line}
	}
	m, reason := decodeMessage(line)
	if reason != "" {
		return nil, &DecodeError{Reason: reason, Line: line}
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return nil, &DecodeError{Reason: "JSON object is neither a request, a notification nor a response", Line: line}
	}
	return m, nil
}

// decodeMessage reads the JSON-RPC members of a valid JSON object with exact
// keys ("Result" is not "result"); a repeated key refuses the message, so
// mcpsum and the client behind a forwarder cannot read different values.
func decodeMessage(line []byte) (*Message, string) {
	f, err := jsonscan.Fields(line, "jsonrpc", "id", "method", "params", "result", "error")
	if err != nil {
		return nil, "malformed JSON-RPC message (" + err.Error() + ")"
	}
	m := &Message{ID: clone(f[1]), Params: clone(f[3]), Result: clone(f[4])}
	var ok bool
	if f[0] != nil {
		if m.JSONRPC, ok = jsonscan.String(f[0]); !ok {
			return nil, "malformed JSON-RPC message (jsonrpc is not a string)"
		}
	}
	if f[2] != nil {
		if m.Method, ok = jsonscan.String(f[2]); !ok {
			return nil, "malformed JSON-RPC message (method is not a string)"
		}
	}
	if f[5] != nil && string(f[5]) != "null" {
		if m.Error, err = decodeError(f[5]); err != nil {
			return nil, "malformed JSON-RPC message (error: " + err.Error() + ")"
		}
	}
	return m, ""
}

// decodeError reads a JSON-RPC error object with exact keys.
func decodeError(b []byte) (*Error, error) {
	f, err := jsonscan.Fields(b, "code", "message", "data")
	if err != nil {
		return nil, err
	}
	e := &Error{Data: clone(f[2])}
	if f[0] != nil {
		n, ok := intID(f[0])
		if !ok || n < -1<<31 || n >= 1<<31 {
			return nil, errors.New("code is not an integer")
		}
		e.Code = int(n)
	}
	if f[1] != nil {
		var ok bool
		if e.Message, ok = jsonscan.String(f[1]); !ok {
			return nil, errors.New("message is not a string")
		}
	}
	return e, nil
}

// ParseError parses a JSON-RPC error object with exact keys (for a
// forwarder that holds the raw bytes).
func ParseError(b []byte) (*Error, error) { return decodeError(b) }

func clone(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}
