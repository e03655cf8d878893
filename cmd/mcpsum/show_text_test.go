package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// JSON output keeps server text's value but never its invisible characters.
func TestWriteJSONEscapesInvisible(t *testing.T) {
	in := map[string]string{"d": "harmless \u202egnp.exe\u202c and\u200b hidden\u2066 \U000e0041 ok é 😀 \x1b[31m"}
	var buf bytes.Buffer
	if err := writeJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u202e", "\u202c", "\u200b", "\u2066", "\U000e0041", "\x1b"} {
		if bytes.Contains(buf.Bytes(), []byte(raw)) {
			t.Errorf("raw %q in output: %s", raw, buf.Bytes())
		}
	}
	if !bytes.Contains(buf.Bytes(), []byte("é 😀")) {
		t.Errorf("printable text was escaped: %s", buf.Bytes())
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["d"] != in["d"] {
		t.Errorf("round trip: %v, %q", err, back["d"])
	}
}
