package lockfile

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name   string
		server bool
		envOK  bool
	}{
		{"time", true, true},
		{"GITHUB_TOKEN", true, true},
		{"_x", false, true},
		{"a.b-c_d", true, false},
		{"9lives", true, false},
		{"", false, false},
		{"-flag", false, false},
		{"has space", false, false},
		{"X=1", false, false},
		{"é", false, false},
		{"a\u202e", false, false},
		{string(make([]byte, 65)), false, false},
	} {
		if got := ValidName(c.name) == nil; got != c.server {
			t.Errorf("ValidName(%q) ok=%v, want %v", c.name, got, c.server)
		}
		if got := ValidEnvName(c.name); got != c.envOK {
			t.Errorf("ValidEnvName(%q) = %v, want %v", c.name, got, c.envOK)
		}
	}
	long := "a"
	for len(long) < 64 {
		long += "b"
	}
	if ValidName(long) != nil || ValidName(long+"c") == nil {
		t.Errorf("server names may have 64 characters, not 65")
	}
}
