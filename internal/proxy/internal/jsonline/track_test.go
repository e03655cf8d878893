package jsonline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Cut a streamed message anywhere: what the tracker let through plus its
// closer plus an id member is always one valid JSON object, and a message
// fed whole comes out byte for byte (the final brace aside).
func TestTrackerCloserAlwaysValid(t *testing.T) {
	docs := []string{
		`{"content":[{"type":"text","text":"a\"b\\c\u00e9\n"}],"isError":false,"n":-12.5e+3,"z":0,"x":null,"t":true}`,
		`[1,[2,[3,{"k":[]}]],{},"s"]`,
		`"just a string with \ud83d\ude00"`,
		`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"evil","v":[1,2]},"other":1},"a":0.5E-2}`,
		`-0.0e5`,
	}
	for _, d := range docs {
		for cut := 0; cut <= len(d); cut++ {
			tr := NewTracker([]string{"jsonrpc"}, []byte(`{"name":"locked"}`))
			var out bytes.Buffer
			if err := tr.Feed([]byte(d[:cut]), func(b []byte) { out.Write(b) }); err != nil {
				t.Fatalf("%s cut at %d: %v", d, cut, err)
			}
			msg := `{"jsonrpc":"2.0","result":` + out.String() + string(tr.Closer()) + `,"id":"v"}`
			if !json.Valid([]byte(msg)) {
				t.Fatalf("%s cut at %d: not valid JSON: %s", d, cut, msg)
			}
			if strings.Contains(msg, "evil") {
				t.Fatalf("%s cut at %d: the server's serverInfo got through: %s", d, cut, msg)
			}
		}
		tr := NewTracker(nil, nil)
		var out bytes.Buffer
		if err := tr.Feed([]byte(d+"}  "), func(b []byte) { out.Write(b) }); err != nil || !tr.done || out.String() != d {
			t.Errorf("%s whole: %q done=%v err=%v", d, out.String(), tr.done, err)
		}
	}
	for _, bad := range []string{`{"a":1}} {"id":2}`, `{"a":01}`, `{"a":tru}`, `{"a" 1}`, `{"a":"x` + "\x01" + `"}`, `[1,]`, `{"a":1}},"result":2}`} {
		tr := NewTracker([]string{"jsonrpc", "id"}, nil)
		if err := tr.Feed([]byte(bad), func([]byte) {}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
