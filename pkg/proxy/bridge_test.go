package proxy

import "testing"

// A legacy client's capabilities reach a 2026-07-28 server translated, read
// by exact key: a case variant or a duplicate of a member the bridge acts
// on (tasks, roots, extensions, the tasks extension) makes them declare
// nothing, where encoding/json kept "Tasks" after dropping "tasks" (a
// server matching keys case-insensitively read it); "extensions":null on a
// task-augmented call no longer panics (a nil map was written).
func TestModernClientCapsExactKeys(t *testing.T) {
	for _, tc := range []struct {
		in    string
		tasks bool
		want  string
	}{
		{`{"roots":{"listChanged":true},"sampling":{},"tasks":{"requests":{}}}`, false, `{"roots":{},"sampling":{}}`},
		{`{ "sampling" : { "x" : [ 1, 2 ] } , "elicitation":{"form":{}}}`, false, `{"elicitation":{"form":{}},"sampling":{"x":[1,2]}}`},
		{`{"roots":{}}`, true, `{"extensions":{"` + tasksExt + `":{}},"roots":{}}`},
		{`{"extensions":{"x.example/y":{"a":1}}}`, true, `{"extensions":{"` + tasksExt + `":{},"x.example/y":{"a":1}}}`},
		{`{"extensions":null}`, true, `{"extensions":{"` + tasksExt + `":{}}}`},
		{`{"tasks":{},"Tasks":{"requests":{}}}`, false, `{}`},
		{`{"sampling":{},"ROOTS":{"listChanged":true}}`, false, `{}`},
		{`{"roots":{},"roots":{"listChanged":true}}`, false, `{}`},
		{`{"sampling":{},"sampling":{}}`, false, `{}`},
		{`{"extensions":{"IO.modelcontextprotocol/TASKS":{"x":1}}}`, true, `{"extensions":{"` + tasksExt + `":{}}}`},
		{`[]`, false, `{}`},
		{``, true, `{"extensions":{"` + tasksExt + `":{}}}`},
	} {
		if got := string(modernClientCaps([]byte(tc.in), tc.tasks)); got != tc.want {
			t.Errorf("modernClientCaps(%s, %v) = %s, want %s", tc.in, tc.tasks, got, tc.want)
		}
	}
}
