package launch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// I2: a server sees only the variables named in envPassthrough (plus PATH,
// HOME and TMPDIR), whatever mcpsum's own environment holds.
func TestStartWithholdsEnvironment(t *testing.T) {
	t.Setenv("MCPSUM_TEST_SECRET", "do-not-leak")
	t.Setenv("MCPSUM_TEST_PASSED", "visible")
	out := filepath.Join(t.TempDir(), "env.txt")
	entry := &lockfile.Server{
		Command:        []string{"sh", "-c", "env > " + out + ".tmp && mv " + out + ".tmp " + out + " && exec cat"},
		EnvPassthrough: []string{"MCPSUM_TEST_PASSED"},
	}
	p, cleanup, err := Start("env", entry, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	defer p.Stop(time.Second)
	var env []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if env, err = os.ReadFile(out); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the server did not write its environment: %v", err)
	}
	got := string(env)
	if strings.Contains(got, "do-not-leak") || strings.Contains(got, "MCPSUM_TEST_SECRET") {
		t.Errorf("a withheld variable reached the server:\n%s", got)
	}
	if !strings.Contains(got, "MCPSUM_TEST_PASSED=visible") {
		t.Errorf("the envPassthrough variable is missing:\n%s", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		name, _, _ := strings.Cut(line, "=")
		switch name {
		case "MCPSUM_TEST_PASSED", "PATH", "HOME", "TMPDIR", "PWD", "SHLVL", "_":
			// PWD, SHLVL and _ are set by sh itself.
		default:
			t.Errorf("unexpected variable %q in the server's environment", name)
		}
	}
}

// Entry pins what a server answered: the era from the handshake, items as
// sent, digests that survive a write and a strict re-read.
func TestEntryRoundTrip(t *testing.T) {
	instr := "use add"
	h := &mcpwire.Hello{
		Era: mcpspec.EraModern, ProtocolVersion: mcpspec.Modern,
		SupportedVersions: []string{"2026-07-28", "2025-11-25"},
		ServerInfo:        json.RawMessage(`{"name":"s","version":"1"}`),
		Capabilities:      json.RawMessage(`{"tools":{}}`),
		Instructions:      &instr,
	}
	s := &mcpwire.Surface{Tools: []json.RawMessage{
		json.RawMessage(`{"name":"b","inputSchema":{"type":"object"},"x-unknown":[1,2]}`),
		json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`),
	}}
	e, err := Entry([]string{"srv", "--flag"}, []string{"TOKEN"}, h, s)
	if err != nil {
		t.Fatal(err)
	}
	if e.Era() != lockfile.EraModern || len(e.SupportedVersions) != 2 {
		t.Errorf("era %s supportedVersions %v", e.Era(), e.SupportedVersions)
	}
	data, err := lockfile.Marshal(&lockfile.File{Servers: map[string]*lockfile.Server{"s": e}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := lockfile.Parse("mcp.lock", data)
	if err != nil {
		t.Fatalf("a fresh entry does not re-read: %v\n%s", err, data)
	}
	if !strings.Contains(string(data), `"x-unknown"`) {
		t.Errorf("a field mcpsum does not model was dropped:\n%s", data)
	}
	if f.Version != 2 {
		t.Errorf("lockfileVersion %d, want 2 for a modern entry", f.Version)
	}

	// The same server in the legacy era has no supportedVersions.
	h.Era, h.ProtocolVersion = mcpspec.EraLegacy, "2025-11-25"
	e, err = Entry([]string{"srv"}, nil, h, s)
	if err != nil || e.SupportedVersions != nil {
		t.Errorf("legacy entry: %v, supportedVersions %v", err, e.SupportedVersions)
	}

	// Two items with one name cannot be pinned.
	s.Tools = append(s.Tools, json.RawMessage(`{"name":"a","inputSchema":{"type":"object","title":"evil twin"}}`))
	if _, err := Entry([]string{"srv"}, nil, h, s); err == nil {
		t.Error("duplicate tool names were accepted")
	}
}
