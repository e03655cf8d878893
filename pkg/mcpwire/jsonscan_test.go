package mcpwire

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The scanner agrees with encoding/json on valid JSON and never panics on
// anything else.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `null`, `{"a":1,"b":[1,{"c":"}"}],"a":2}`, `[1, "x\"]", {"k":[]} ,null]`,
		`{"n\u0061me":"x"}`, `{"s":"\\"}`, `[{"name":"a"},{"name":"b"}]`, `{"a":tru}`, `[1,,2]`, `{"a" 1}`, `"str"`, `{"a":"\\\""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		elems, aerr := splitArray(b)
		names := map[string][]byte{}
		merr := eachMember(b, func(name string, val []byte) error { names[name] = val; return nil })
		if !json.Valid(b) {
			return
		}
		var wantElems []json.RawMessage
		if json.Unmarshal(b, &wantElems) == nil && wantElems != nil {
			if aerr != nil || len(elems) != len(wantElems) {
				t.Fatalf("splitArray: %d elems, err %v; want %d", len(elems), aerr, len(wantElems))
			}
			for i := range elems {
				if !bytes.Equal(elems[i], wantElems[i]) {
					t.Fatalf("elem %d: %s vs %s", i, elems[i], wantElems[i])
				}
			}
		}
		var wantMembers map[string]json.RawMessage
		if json.Unmarshal(b, &wantMembers) == nil && wantMembers != nil {
			if merr != nil || len(names) != len(wantMembers) {
				t.Fatalf("eachMember: %d names, err %v; want %d", len(names), merr, len(wantMembers))
			}
			for k, v := range wantMembers {
				if !bytes.Equal(names[k], v) {
					t.Fatalf("member %q: %s vs %s", k, names[k], v)
				}
			}
		}
	})
}
