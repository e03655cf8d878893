package policy

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseAnswer: an answer approves only when it is exactly one "action"
// of "accept" and a content object with exactly one "allow" that is true.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"action":"accept","content":{"allow":true}}`,
		`{"action":"accept","content":{"allow":true,"allow":false}}`,
		`{"action":"accept","content":{"Allow":true}}`,
		`{"action":"decline"}`,
		`{"action":"accept","content":{"allow":1}}`,
		`{"action":"acc\u0065pt","content":{"allow":true}}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if ParseAnswer(b) != AnswerAccept {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("approved invalid JSON %q", b)
		}
		var action string
		json.Unmarshal(m["action"], &action)
		var c map[string]json.RawMessage
		json.Unmarshal(m["content"], &c)
		if action != "accept" || string(bytes.TrimSpace(c["allow"])) != "true" {
			t.Fatalf("approved %q", b)
		}
		if bytes.Count(b, []byte(`"allow"`)) > 1 && !bytes.Contains(b, []byte(`\`)) {
			t.Fatalf("approved an answer with two allow keys: %q", b)
		}
	})
}
