package jsonscan

import "testing"

// Without drops members by their decoded key, exactly: a case-variant twin
// or an escaped spelling of another key is not the key.
func TestWithout(t *testing.T) {
	cases := []struct {
		in, drop, want string
		kept           int
	}{
		{`{"a":1,"b":[1,2],"c":"x"}`, "b", `{"a":1,"c":"x"}`, 2},
		{`{"b":1}`, "b", `{}`, 0},
		{`{ "a" : 1 , "B":2}`, "b", `{"a" : 1,"B":2}`, 2},
		{`{"\u0062":1,"a":2}`, "b", `{"a":2}`, 1},
		{`{"a":{"b":1}}`, "b", `{"a":{"b":1}}`, 1},
	}
	for _, c := range cases {
		got, kept, err := Without([]byte(c.in), 0, func(k string) bool { return k == c.drop })
		if err != nil || string(got) != c.want || kept != c.kept {
			t.Errorf("Without(%s, %q) = %s, %d, %v; want %s, %d", c.in, c.drop, got, kept, err, c.want, c.kept)
		}
	}
	if _, _, err := Without([]byte(`{"a":1,`), 0, func(string) bool { return false }); err == nil {
		t.Error("a truncated object passed")
	}
}
