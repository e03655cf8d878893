package redact

import (
	"bytes"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	Add("short", "$X") // too short to keep
	Add(`tok/en"with&quote`, "$API_TOKEN")
	Add("eyJhbGciOiJSUzI1NiJ9.access", "OAuth access token")
	for in, want := range map[string]string{
		`server said: tok/en"with&quote`:            `server said: [redacted $API_TOKEN]`,
		`{"message":"tok\/en\"with\u0026quote"}`:    `{"message":"tok\/en\"with\u0026quote"}`, // not a form mcpsum writes
		`{"message":"tok/en\"with\u0026quote"}`:     `{"message":"[redacted $API_TOKEN]"}`,
		`quoted "tok/en\"with&quote"`:               `quoted "[redacted $API_TOKEN]"`,
		`Bearer eyJhbGciOiJSUzI1NiJ9.access, short`: `Bearer [redacted OAuth access token], short`,
		`nothing here`: `nothing here`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	w := Writer{W: &b}
	if n, err := w.Write([]byte("x tok/en\"with&quote y\n")); err != nil || n != 22 || strings.Contains(b.String(), "tok/en") {
		t.Fatalf("Writer: %d %v %q", n, err, b.String())
	}
}
