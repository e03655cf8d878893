package jsonline

import (
	"bytes"
	"encoding/json"

	"github.com/mcpsum/mcpsum/internal/redact"
)

// Error is a JSON-RPC error the proxy sends.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ResultLine builds a response with a raw result.
func ResultLine(id []byte, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// ErrorLine builds an error response; a nil id is written as null.
func ErrorLine(id []byte, e *Error) []byte {
	if id == nil {
		id = []byte("null")
	}
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = AppendJSON(b, e)
	// The proxy's own message may quote what a server sent: a credential
	// the server reflected is not forwarded to the client.
	return redact.Bytes(append(b, '}'))
}

// RequestLine builds a request (id != nil) or a notification.
func RequestLine(id []byte, method string, params []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"method":`...)
	b = AppendJSON(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendJSON appends v as compact JSON without HTML escaping.
func AppendJSON(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
