package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// JSON-RPC and MCP error codes mcpsum recognises.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeMissingClientCapability is 2026-07-28's MissingRequiredClientCapability.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedVersion is 2026-07-28's UnsupportedProtocolVersion.
	CodeUnsupportedVersion = -32022
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
	return fmt.Sprintf("server error %d %s", e.Code, quoted(e.Message, 300))
}

// DecodeError reports a line that is not a JSON-RPC message.
type DecodeError struct {
	Reason string // what is wrong, e.g. "not JSON"
	Line   []byte // the offending line (the caller's slice; not copied)
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s", e.Reason, quoted(string(e.Line), 200))
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
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		if !json.Valid(line) {
			return nil, &DecodeError{Reason: "not JSON", Line: line}
		}
		return nil, &DecodeError{Reason: "malformed JSON-RPC message (" + err.Error() + ")", Line: line}
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return nil, &DecodeError{Reason: "JSON object is neither a request, a notification nor a response", Line: line}
	}
	return &m, nil
}
