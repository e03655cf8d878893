//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The real clients enforce the policies fleet emit --install writes: Claude
// Code, Gemini CLI and Codex, each with a user config holding the org lock's
// two servers (through mcpsum proxy, as mcpsum import writes them) and a
// server the user added by hand. With the policies in place, each lists the
// mcpsum entries as running and refuses the hand-added one in its own words
// (Claude Code drops it and will not add another: "not allowed by
// enterprise policy"; Gemini CLI shows it "Blocked"; Codex lists it
// "disabled: requirements"); fleet status finds every policy in place.
// With the policies removed, the hand-added server runs again and status
// reports drift.
//
// Opt-in like TestImportRealClientCLIs (MCPSUM_E2E_CLIENTS: a folder with
// the claude, gemini and codex executables), and root only: Claude Code and
// Codex read their managed policy from fixed system paths
// (/etc/claude-code, /etc/codex), which the test writes and restores;
// Gemini CLI's is relocated with its own GEMINI_CLI_SYSTEM_SETTINGS_PATH,
// into a folder root owns (Gemini CLI refuses system settings any other
// user could change).
func TestFleetRealClients(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("MCPSUM_E2E_CLIENTS")
	if clients == "" {
		t.Skip("set MCPSUM_E2E_CLIENTS to a folder with the claude, gemini and codex CLIs to run this test")
	}
	if os.Getuid() != 0 {
		t.Skip("the clients' managed policies live in system paths (/etc/claude-code, /etc/codex): run as root")
	}
	for _, c := range []string{"claude", "gemini", "codex"} {
		if _, err := os.Stat(filepath.Join(clients, c)); err != nil {
			t.Skipf("no %s in MCPSUM_E2E_CLIENTS: %v", c, err)
		}
	}
	restore(t, "/etc/claude-code/managed-settings.d/mcpsum.json")
	restore(t, "/etc/codex/requirements.toml")
	gemini := filepath.Join(rootOwnedTempDir(t), "settings.json")

	home, env := fakeHome(t)
	proj := filepath.Join(home, "proj")
	must(t, os.MkdirAll(proj, 0o755))
	// The org lock, released and synced as on every machine.
	orgDir := t.TempDir()
	mustLock(t, orgDir, env, "--name", "mem", "--", bin.goMemory)
	mustLock(t, orgDir, env, "--name", "seq", "--", bin.goSeq)
	o := newFleetOrg(t)
	o.release(t, filepath.Join(orgDir, "mcp.lock"), "1", o.key)
	if so, se, code := mcpsum(t, home, env, "fleet", "sync", "--from", o.url, "--to", o.to); code != 0 {
		t.Fatalf("fleet sync: exit %d\n%s%s", code, so, se)
	}
	hand := filepath.Join(home, "bin", "hand-server")
	b, err := os.ReadFile(bin.goSeq)
	must(t, err)
	must(t, os.MkdirAll(filepath.Dir(hand), 0o755))
	must(t, os.WriteFile(hand, b, 0o755))

	proxy := func(n string) []string { return []string{bin.mcpsum, "proxy", "--lockfile", o.to, "--name", n} }
	entry := func(argv []string) string {
		args, _ := json.Marshal(argv[1:])
		return `{"command": ` + jsonStr(argv[0]) + `, "args": ` + string(args) + `}`
	}
	put := func(p, s string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o600))
	}
	put(filepath.Join(home, ".claude.json"), `{"mcpServers": {"mem": `+entry(proxy("mem"))+`, "seq": `+entry(proxy("seq"))+`, "hand": `+entry([]string{hand})+`}}`)
	put(filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"hand": `+entry([]string{hand})+`}}`)
	put(filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+jsonStr(proj)+`: "TRUST_FOLDER"}`)
	toml := func(argv []string) string {
		q := func(s string) string { return `'` + s + `'` }
		args := []string{}
		for _, a := range argv[1:] {
			args = append(args, q(a))
		}
		return "command = " + q(argv[0]) + "\nargs = [" + strings.Join(args, ", ") + "]\n"
	}
	put(filepath.Join(home, ".codex", "config.toml"), "[mcp_servers.mem]\n"+toml(proxy("mem"))+"[mcp_servers.seq]\n"+toml(proxy("seq"))+"[mcp_servers.hand]\n"+toml([]string{hand}))

	clientEnv := append(os.Environ(), append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+gemini)...)
	cli := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(filepath.Join(clients, name), args...)
		cmd.Dir, cmd.Env = proj, clientEnv
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	list := func(name string, args ...string) string {
		t.Helper()
		out, err := cli(name, append([]string{"mcp", "list"}, args...)...)
		if err != nil {
			t.Fatalf("%s mcp list: %v\n%s", name, err, out)
		}
		return out
	}
	fleetEnv := append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+gemini)
	for _, c := range []string{"claude-code", "gemini", "codex"} {
		if so, se, code := mcpsum(t, home, fleetEnv, "fleet", "emit", "--client", c, "--lockfile", o.to, "--install"); code != 0 {
			t.Fatalf("fleet emit --client %s --install: exit %d\n%s%s", c, code, so, se)
		}
	}
	status := func() (string, int) {
		so, _, code := mcpsum(t, home, fleetEnv, "fleet", "status", "--lockfile", o.to, "--client", "claude-code,gemini,codex")
		return so, code
	}
	if so, code := status(); code != 0 || strings.Count(so, " in-place ") != 3 || !lineHas(so, "gemini ", " in-place ", gemini) {
		t.Errorf("fleet status with the policies in place: exit %d\n%s", code, so)
	}

	// Claude Code: the mcpsum entries connected, the hand-added one gone,
	// and a new one refused.
	out := list("claude")
	if !lineHas(out, "mem: "+strings.Join(proxy("mem"), " "), "Connected") || !lineHas(out, "seq: ", "Connected") || strings.Contains(out, "hand:") {
		t.Errorf("claude mcp list with the policy:\n%s", out)
	}
	if out, err := cli("claude", "mcp", "add", "-s", "user", "hand2", "--", hand); err == nil || !strings.Contains(out, "not allowed by enterprise policy") {
		t.Errorf("claude mcp add of a hand-added server with the policy: %v\n%s", err, out)
	}
	// Gemini CLI: the mcpsum entries connected, the hand-added one blocked.
	out = list("gemini")
	if !lineHas(out, "mem: "+strings.Join(proxy("mem"), " "), "Connected") || !lineHas(out, "seq: ", "Connected") || !lineHas(out, "hand: ", "Blocked") {
		t.Errorf("gemini mcp list with the policy:\n%s", out)
	}
	// Codex: the mcpsum entries enabled, the hand-added one disabled by the
	// requirements.
	if got := codexList(t, list("codex", "--json")); got["mem"] != "" || got["seq"] != "" || !strings.HasPrefix(got["hand"], "requirements") {
		t.Errorf("codex mcp list --json with the policy: %v", got)
	}

	// The policies removed: the hand-added server runs again.
	for _, p := range []string{"/etc/claude-code/managed-settings.d/mcpsum.json", "/etc/codex/requirements.toml", gemini} {
		must(t, os.Remove(p))
	}
	if out := list("claude"); !lineHas(out, "hand: "+hand, "Connected") {
		t.Errorf("claude mcp list without the policy:\n%s", out)
	}
	if out := list("gemini"); !lineHas(out, "hand: "+hand, "Connected") {
		t.Errorf("gemini mcp list without the policy:\n%s", out)
	}
	if got := codexList(t, list("codex", "--json")); got["hand"] != "" || len(got) != 3 {
		t.Errorf("codex mcp list --json without the policy: %v", got)
	}
	if so, code := status(); code != 1 || strings.Count(so, " (required)\n") != 3 || !lineHas(so, "codex ", " missing ") {
		t.Errorf("fleet status without the policies: exit %d, want 1 (drift)\n%s", code, so)
	}
}

// lineHas reports whether a line of out holds every part.
func lineHas(out string, parts ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// codexList maps each server of `codex mcp list --json` to why it is
// disabled ("" when enabled).
func codexList(t *testing.T, out string) map[string]string {
	t.Helper()
	var list []struct {
		Name           string  `json:"name"`
		Enabled        bool    `json:"enabled"`
		DisabledReason *string `json:"disabled_reason"`
	}
	if i := strings.IndexByte(out, '['); i >= 0 {
		out = out[i:]
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("codex mcp list --json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, s := range list {
		got[s.Name] = ""
		if !s.Enabled {
			got[s.Name] = "disabled"
			if s.DisabledReason != nil {
				got[s.Name] = *s.DisabledReason
			}
		}
	}
	return got
}

// restore puts back, when the test ends, whatever was at the system path p
// (a file, or nothing: then every folder the test created for it goes too).
func restore(t *testing.T, p string) {
	t.Helper()
	old, err := os.ReadFile(p)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var created []string
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		created = append(created, d)
	}
	t.Cleanup(func() {
		if existed {
			os.WriteFile(p, old, 0o644)
			return
		}
		os.Remove(p)
		for _, d := range created {
			os.Remove(d)
		}
	})
}

// rootOwnedTempDir is a temporary folder none of whose ancestors group or
// others may write (Gemini CLI's rule for system settings; /tmp fails it).
func rootOwnedTempDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{"/var/lib", "/run", "/opt", "/etc"} {
		if !noGroupWrite(base) {
			continue
		}
		d, err := os.MkdirTemp(base, "mcpsum-e2e-")
		if err != nil {
			continue
		}
		must(t, os.Chmod(d, 0o755))
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	t.Skip("no root-owned folder without group or other write permission to hold Gemini CLI's system settings")
	return ""
}

func noGroupWrite(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o022 != 0 {
			return false
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Uid != 0 {
			return false
		}
		if filepath.Dir(d) == d {
			return true
		}
	}
}
