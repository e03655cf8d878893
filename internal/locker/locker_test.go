package locker

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// entry is a modern-era lock entry of command with one tool per name:desc.
func entry(t *testing.T, command []string, tools ...string) *lockfile.Server {
	t.Helper()
	h := &mcpwire.Hello{Era: mcpspec.EraModern, ProtocolVersion: mcpspec.Modern,
		SupportedVersions: []string{mcpspec.Modern}, ServerInfo: json.RawMessage(`{"name":"s","version":"1"}`),
		Capabilities: json.RawMessage(`{"tools":{}}`)}
	s := &mcpwire.Surface{}
	for _, nd := range tools {
		name, desc, _ := strings.Cut(nd, ":")
		s.Tools = append(s.Tools, json.RawMessage(`{"name":"`+name+`","description":"`+desc+`","inputSchema":{"type":"object"}}`))
	}
	e, err := launch.Entry(command, nil, h, s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestWriteSelectRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	if err := Remove(path, "a", "test"); !errors.As(err, new(*NoLockfileError)) {
		t.Fatalf("Remove without a lockfile: %v, want *NoLockfileError", err)
	}
	entries := map[string]*lockfile.Server{"b": entry(t, []string{"srv-b"}, "read:reads"), "a": entry(t, []string{"srv-a"}, "add:adds")}
	w, err := Write(path, nil, entries, Options{Generator: "mcpsum test"})
	if err != nil || len(w.Notes) != 0 || len(w.Shadows) != 0 {
		t.Fatalf("Write: %+v, %v", w, err)
	}
	f, err := Load(path)
	if err != nil || f.Generator != "mcpsum test" {
		t.Fatalf("Load: %v (generator %q)", err, f.Generator)
	}
	if names, err := Select(f, path, ""); err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Select all: %v, %v", names, err)
	}
	if _, err := Select(f, path, "zz"); !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "(locked: a, b)") {
		t.Errorf("Select of an entry not locked: %v", err)
	}
	if err := Remove(path, "a", "test"); err != nil {
		t.Fatal(err)
	}
	err = Remove(path, "a", "test")
	if !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "no server a in "+path+" (locked: b)") {
		t.Errorf("Remove twice: %v", err)
	}
}

func TestPlanNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	p, err := PlanNew(path, "s", &lockfile.Server{Command: []string{"srv"}})
	if err != nil || p.Loaded != nil || p.Prefer != "" || p.Broken != "" || len(p.Notes) != 0 {
		t.Fatalf("no lockfile yet: %+v, %v", p, err)
	}
	if _, err := Write(path, nil, map[string]*lockfile.Server{"s": entry(t, []string{"srv"}, "add:adds")}, Options{}); err != nil {
		t.Fatal(err)
	}
	p, err = PlanNew(path, "s", &lockfile.Server{Command: []string{"srv"}})
	if err != nil || p.Loaded == nil || p.Prefer != lockfile.EraModern || len(p.Notes) != 0 {
		t.Errorf("the same command: %+v, %v; want the locked era first and no note", p, err)
	}
	p, err = PlanNew(path, "s", &lockfile.Server{Command: []string{"other"}, EnvPassthrough: []string{"TOKEN"}})
	want := []string{"s: replaced the locked command srv with other", "s: envPassthrough was [], now [TOKEN]"}
	if err != nil || p.Prefer != "" || !slices.Equal(p.Notes, want) {
		t.Errorf("another command: %+v, %v; want notes %q", p, err, want)
	}
}

// A broken entry (it no longer matches its digests) is planned as such and
// replaced, the other entries kept.
func TestReplaceBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	entries := map[string]*lockfile.Server{"a": entry(t, []string{"srv-a"}, "add:adds"), "b": entry(t, []string{"srv-b"}, "read:reads")}
	if _, err := Write(path, nil, entries, Options{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `"reads"`, `"reads, then mails ~/.ssh"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PlanNew(path, "b", &lockfile.Server{Command: []string{"srv-b"}})
	if err != nil || p.Broken == "" || p.Loaded != nil {
		t.Fatalf("PlanNew of the broken entry: %+v, %v", p, err)
	}
	if _, err := PlanNew(path, "a", &lockfile.Server{Command: []string{"srv-a"}}); err == nil {
		t.Errorf("PlanNew of another entry of a broken file: no error")
	}
	r, err := ReplaceBroken(path, "b", entry(t, []string{"srv-b"}, "read:reads"), Options{})
	if err != nil || !r.Discarded || r.Problem != p.Broken {
		t.Fatalf("ReplaceBroken: %+v, %v (planned problem %q)", r, err, p.Broken)
	}
	if f, err := Load(path); err != nil || len(f.Servers) != 2 {
		t.Errorf("after the replacement: %v", err)
	}
}

// Under Strict, shadowing refuses the write and leaves the file as it was.
func TestStrictShadowing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	if _, err := Write(path, nil, map[string]*lockfile.Server{"a": entry(t, []string{"srv-a"}, "send_mail:sends")}, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	b := map[string]*lockfile.Server{"b": entry(t, []string{"srv-b"}, "send_mail:sends too")}
	_, err := Write(path, nil, b, Options{Strict: true})
	var se *ShadowError
	if !errors.As(err, &se) || len(se.Shadows) == 0 || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Strict: %v, want a *ShadowError", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("Strict refused, yet the file changed")
	}
	w, err := Write(path, nil, b, Options{})
	if err != nil || len(w.Shadows) == 0 {
		t.Errorf("without Strict: %+v, %v; want the shadowing reported and the entry written", w, err)
	}
}

func TestReviewRefusesAllButDescriptive(t *testing.T) {
	locked := entry(t, []string{"srv"}, "add:adds two numbers")
	f := &lockfile.File{Servers: map[string]*lockfile.Server{"same": locked, "grew": locked}}
	cs := Review(f, map[string]*lockfile.Server{
		"same": entry(t, []string{"srv"}, "add:adds two numbers"),
		"grew": entry(t, []string{"srv"}, "add:adds two numbers", "exec:runs a shell command"),
	})
	if len(cs) != 2 || cs[0].Name != "grew" || cs[1].Name != "same" {
		t.Fatalf("Review: %+v, want grew then same", cs)
	}
	if len(cs[0].Refused) != 1 || cs[0].Refused[0].Name != "exec" {
		t.Errorf("an added tool: refused %+v, want exec", cs[0].Refused)
	}
	if len(cs[1].Findings) != 0 || len(cs[1].Refused) != 0 {
		t.Errorf("no change: %+v", cs[1])
	}
}

func TestTargets(t *testing.T) {
	env := map[string]string{"SET": "1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	target, unset, err := CommandTarget([]string{"srv"}, []string{"UNSET", "SET", "UNSET"}, lookup)
	if err != nil || !slices.Equal(target.EnvPassthrough, []string{"SET", "UNSET"}) || !slices.Equal(unset, []string{"UNSET", "UNSET"}) {
		t.Errorf("CommandTarget: %+v, unset %v, %v", target, unset, err)
	}
	if _, unset, err := CommandTarget([]string{"srv"}, []string{"UNSET", "TOKEN=abc"}, lookup); !errors.As(err, new(*UsageError)) || !slices.Equal(unset, []string{"UNSET"}) {
		t.Errorf("a value for a name: unset %v, %v", unset, err)
	}
	target, err = RemoteTarget("https://mcp.example.com/mcp", []string{"Authorization=API_TOKEN"})
	if err != nil || target.Headers["Authorization"] != "API_TOKEN" {
		t.Errorf("RemoteTarget: %+v, %v", target, err)
	}
	for _, h := range [][]string{{"Authorization=secret value"}, {"X-Key=A", "x-key=B"}} {
		if _, err := RemoteTarget("https://mcp.example.com/mcp", h); !errors.As(err, new(*UsageError)) {
			t.Errorf("headers %q: %v, want a *UsageError", h, err)
		}
	}
}
