package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestCIRunsReadmeTestCommand: .ci/run runs the README's test command word
// for word (no -timeout, -count or -p of its own), so what a contributor
// runs is what CI runs and both fit go test's default timeout.
func TestCIRunsReadmeTestCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, l := range strings.Split(string(readme), "\n") {
		if _, cmd, ok := strings.Cut(l, ") && go test"); ok && strings.HasPrefix(l, "(cd e2e && npm ci") {
			want = "go test" + cmd
		}
	}
	if want == "" {
		t.Fatal("README.md has no line `(cd e2e && npm ci) && go test …`")
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(ci), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "go test") {
			got = append(got, l)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf(".ci/run runs %q, want exactly the README's test command %q, once", got, want)
	}
}
