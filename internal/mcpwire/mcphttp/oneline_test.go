package mcphttp

import (
	"bytes"
	"testing"
)

// A JSON body's closing line breaks are its line's end (mcp-go's encoder
// ends each body with "\n"): they are dropped, never forwarded as a tab;
// a line break inside the body becomes a tab, however the body is split
// into the chunks it arrives in.
func TestBodyLineDropsTheEnd(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"{\"a\":1}\n", "{\"a\":1}"},
		{"{\"a\":1}\r\n", "{\"a\":1}"},
		{"{\"a\":1}", "{\"a\":1}"},
		{"{\n\"a\":1\n}\n\n", "{\t\"a\":1\t}"},
		{"{\"a\":\n1}", "{\"a\":\t1}"},
	} {
		if got := string(oneLine([]byte(tc.body))); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.body, got, tc.want)
		}
		for split := 0; split <= len(tc.body); split++ {
			for split2 := split; split2 <= len(tc.body); split2++ {
				var out bytes.Buffer
				l := &bodyLine{w: &out}
				b := []byte(tc.body)
				for _, c := range [][]byte{b[:split], b[split:split2], b[split2:]} {
					if len(c) > 0 {
						l.Write(bytes.Clone(c))
					}
				}
				if out.String() != tc.want {
					t.Errorf("%q in chunks at %d and %d: %q, want %q", tc.body, split, split2, out.String(), tc.want)
				}
			}
		}
	}
}
