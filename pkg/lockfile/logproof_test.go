package lockfile

import (
	"strings"
	"testing"
)

// A logProof survives a write and a read byte for byte, sits outside the
// digests (adding one changes no digest), and anything that is not a C2SP
// tlog-proof string is refused with the entry and key named.
func TestLogProofField(t *testing.T) {
	f := mustParse(t, "valid.lock", testdata(t, "lockfiles/valid.lock"))
	s := f.Servers["time"]
	before := s.Digests.Surface
	proof := LogProofHeader + "index 7\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\nlog.example/mcp\n8\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u2014 log.example/mcp AAAA\n"
	s.LogProof = proof
	out, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g := mustParse(t, "written.lock", out)
	if got := g.Servers["time"]; got.LogProof != proof || got.Digests.Surface != before {
		t.Fatalf("read back logProof %q, surface %s; want the proof written and surface %s", got.LogProof, got.Digests.Surface, before)
	}
	if !strings.Contains(string(out), `"logProof": "c2sp.org/tlog-proof@v1\nindex 7\n`) {
		t.Errorf("logProof not written as one JSON string after digests:\n%s", out)
	}
	for _, bad := range []string{`42`, `"index 7\n"`, `"` + strings.Repeat("x", 70<<10) + `"`} {
		data := replaceOnce(t, string(out), `"logProof": "`+strings.ReplaceAll(strings.ReplaceAll(proof, "\n", `\n`), "\u2014", "—")+`"`, `"logProof": `+bad)
		_, err := Parse("bad.lock", []byte(data))
		fe := asFormat(t, err)
		if fe.Server != "time" || fe.Item != "logProof" {
			t.Errorf("logProof %.20s: error names %q %q: %v", bad, fe.Server, fe.Item, err)
		}
	}
}
