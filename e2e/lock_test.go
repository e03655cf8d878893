package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lockJSON is the part of mcp.lock these tests read back.
type lockJSON struct {
	LockfileVersion int `json:"lockfileVersion"`
	Servers         map[string]struct {
		Command           []string          `json:"command"`
		ProtocolVersion   string            `json:"protocolVersion"`
		SupportedVersions []string          `json:"supportedVersions"`
		Tools             []json.RawMessage `json:"tools"`
		Prompts           []json.RawMessage `json:"prompts"`
		Resources         []json.RawMessage `json:"resources"`
		ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
		Policy            json.RawMessage   `json:"policy"`
	} `json:"servers"`
}

func readLock(t *testing.T, dir string) (lockJSON, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var l lockJSON
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatalf("mcp.lock is not JSON: %v", err)
	}
	return l, data
}

// mustLock runs `mcpsum lock` and fails the test unless it exits 0.
func mustLock(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	_, stderr, code := mcpsum(t, dir, env, append([]string{"lock"}, args...)...)
	if code != 0 {
		t.Fatalf("mcpsum lock %v: exit %d\n%s", args, code, stderr)
	}
	return stderr
}

// The four official npm servers: legacy only, lockfileVersion 1, counts as the
// servers really answer a client declaring mcpsum's capabilities (roots,
// sampling, elicitation: everything adds 4 tools for them); re-lock is
// byte-identical and verify passes twice in a row.
func TestLockNpmServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	served := t.TempDir()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	env := []string{"MEMORY_FILE_PATH=" + memFile}
	mustLock(t, dir, env, "--name", "everything", "--", "node", npmServer(t, "server-everything"))
	mustLock(t, dir, env, "--name", "filesystem", "--", "node", npmServer(t, "server-filesystem"), served)
	mustLock(t, dir, env, "--name", "memory", "--env", "MEMORY_FILE_PATH", "--", "node", npmServer(t, "server-memory"))
	mustLock(t, dir, env, "--name", "sequential-thinking", "--", "node", npmServer(t, "server-sequential-thinking"))

	l, first := readLock(t, dir)
	if l.LockfileVersion != 1 {
		t.Errorf("lockfileVersion = %d, want 1 (all legacy servers)", l.LockfileVersion)
	}
	want := map[string][4]int{
		"everything":          {17, 4, 7, 2},
		"filesystem":          {14, 0, 0, 0},
		"memory":              {9, 0, 1, 0},
		"sequential-thinking": {1, 0, 0, 0},
	}
	for name, counts := range want {
		s, ok := l.Servers[name]
		if !ok {
			t.Fatalf("server %s missing from the lock", name)
		}
		got := [4]int{len(s.Tools), len(s.Prompts), len(s.Resources), len(s.ResourceTemplates)}
		if got != counts {
			t.Errorf("%s: tools/prompts/resources/templates = %v, want %v", name, got, counts)
		}
		if s.SupportedVersions != nil {
			t.Errorf("%s: legacy entry has supportedVersions %v", name, s.SupportedVersions)
		}
		if s.ProtocolVersion != "2025-11-25" {
			t.Errorf("%s: protocolVersion %q, want 2025-11-25", name, s.ProtocolVersion)
		}
	}

	stderr := mustLock(t, dir, env) // re-lock every entry, in parallel
	for name := range want {
		if !strings.Contains(stderr, name) {
			t.Errorf("re-lock progress does not mention %s:\n%s", name, stderr)
		}
	}
	_, second := readLock(t, dir)
	if !bytes.Equal(first, second) {
		t.Errorf("re-locking the same servers changed mcp.lock")
	}
	for i := 0; i < 2; i++ {
		out, errOut, code := mcpsum(t, dir, env, "verify")
		if code != 0 {
			t.Fatalf("verify #%d straight after lock: exit %d\n%s%s", i+1, code, out, errOut)
		}
	}
}

// go-sdk's example servers speak both eras, so they are locked as 2026-07-28
// and make the file version 2; mcp-go is a second, independent 2026-07-28
// implementation with 101 resources.
func TestLockModernServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "go-everything", "--", bin.goEvery)
	mustLock(t, dir, nil, "--name", "go-memory", "--", bin.goMemory)
	mustLock(t, dir, nil, "--name", "go-seq", "--", bin.goSeq)
	mustLock(t, dir, nil, "--name", "mcpgo", "--", bin.mcpgoEvery)
	l, first := readLock(t, dir)
	if l.LockfileVersion != 2 {
		t.Errorf("lockfileVersion = %d, want 2", l.LockfileVersion)
	}
	for name, s := range l.Servers {
		if s.ProtocolVersion != "2026-07-28" || len(s.SupportedVersions) == 0 || s.SupportedVersions[0] != "2026-07-28" {
			t.Errorf("%s: protocolVersion %q supportedVersions %v, want a 2026-07-28 entry", name, s.ProtocolVersion, s.SupportedVersions)
		}
	}
	if got := len(l.Servers["go-everything"].Tools); got != 10 {
		t.Errorf("go-everything: %d tools, want 10", got)
	}
	if got := len(l.Servers["mcpgo"].Resources); got != 101 {
		t.Errorf("mcp-go everything: %d resources, want 101", got)
	}
	mustLock(t, dir, nil)
	if _, second := readLock(t, dir); !bytes.Equal(first, second) {
		t.Errorf("re-locking modern servers changed mcp.lock")
	}
	for i := 0; i < 2; i++ {
		if out, errOut, code := mcpsum(t, dir, nil, "verify"); code != 0 {
			t.Fatalf("verify #%d: exit %d\n%s%s", i+1, code, out, errOut)
		}
	}
	out, _, code := mcpsum(t, dir, nil, "show", "--name", "go-everything")
	if code != 0 || !strings.Contains(out, "modern (server/discover), protocolVersion 2026-07-28") {
		t.Errorf("show does not present the modern entry (exit %d):\n%s", code, out)
	}
}

// Our own go-sdk server in each era and paginating one item per page.
func TestLockGosrvModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, era string
		args      []string
	}{
		{"legacy-only", "legacy", []string{"-versions", "2025-11-25,2025-06-18"}},
		{"modern-only", "modern", []string{"-versions", "2026-07-28"}},
		{"paged", "modern", []string{"-pagesize", "1"}},
		{"old-legacy", "legacy", []string{"-versions", "2024-11-05"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		mustLock(t, dir, nil, append([]string{"--name", c.name, "--", bin.gosrv}, c.args...)...)
	}
	l, _ := readLock(t, dir)
	for _, c := range cases {
		s := l.Servers[c.name]
		modern := s.SupportedVersions != nil
		if modern != (c.era == "modern") {
			t.Errorf("%s: locked modern=%v, want era %s", c.name, modern, c.era)
		}
		if got := [4]int{len(s.Tools), len(s.Prompts), len(s.Resources), len(s.ResourceTemplates)}; got != [4]int{2, 1, 1, 1} {
			t.Errorf("%s: counts %v, want [2 1 1 1]", c.name, got)
		}
	}
	if l.Servers["old-legacy"].ProtocolVersion != "2024-11-05" {
		t.Errorf("old-legacy negotiated %q, want 2024-11-05", l.Servers["old-legacy"].ProtocolVersion)
	}
}

// lock --name N -- COMMAND over an entry N locked with another command (or
// other env names) says what it replaced; the same command again says
// nothing.
func TestLockSaysWhatItReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "s", "--", bin.gosrv, "-versions", "2025-11-25")
	if stderr := mustLock(t, dir, nil, "--name", "s", "--", bin.gosrv, "-versions", "2025-11-25"); strings.Contains(stderr, "replaced") {
		t.Errorf("re-locking the same command talks of a replacement:\n%s", stderr)
	}
	stderr := mustLock(t, dir, []string{"TOKEN=x"}, "--name", "s", "--env", "TOKEN", "--", bin.gosrv, "-versions", "2026-07-28")
	for _, want := range []string{
		"lock: s: replaced the locked command " + bin.gosrv + " -versions 2025-11-25 with " + bin.gosrv + " -versions 2026-07-28",
		"lock: s: envPassthrough was [], now [TOKEN]",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("lock output lacks %q:\n%s", want, stderr)
		}
	}
}
