//go:build unix

package fleet

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// emitOpts are the options of the tests' policies: an org lock installed
// at lock, mcpsum in /usr/local/bin.
func emitOpts(lock, mode string) EmitOptions {
	return EmitOptions{Lockfile: lock, Mcpsum: "/usr/local/bin/mcpsum", Mode: mode, ServeURL: "https://mcp.example.com"}
}

func entries(t *testing.T, lock []byte, o EmitOptions) []Entry {
	t.Helper()
	f, err := lockfile.Parse("org.lock", lock)
	if err != nil {
		t.Fatal(err)
	}
	es, err := Entries(f, o)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// Every client, both modes: the emitted policy, installed where the client
// reads it (under a test root), is what status finds in place; one that
// admits a server by hand as well, or leaves one out, is drift naming it;
// no file is missing, which is drift for a client named with --client.
func TestEmitInstallStatus(t *testing.T) {
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	evil := Entry{Name: "evil", Argv: []string{"/usr/bin/evil-mcp"}, URL: ""}
	for _, mode := range []string{ModeArgv, ModeURL} {
		o := emitOpts(orgLock, mode)
		es := entries(t, lock, o)
		if mode == ModeURL {
			evil = Entry{Name: "evil", URL: "https://evil.example/mcp"}
		}
		for _, c := range Clients {
			if !c.Supports(mode) || c.Path(env) == "" {
				continue
			}
			t.Run(c.Name+"/"+mode, func(t *testing.T) {
				status := func() ClientStatus {
					t.Helper()
					r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Required: []string{c.Name}, Env: env})
					i := slices.IndexFunc(r.Clients, func(cs ClientStatus) bool { return cs.Client == c.Name })
					return r.Clients[i]
				}
				policy, err := c.Emit(es, mode)
				if err != nil {
					t.Fatal(err)
				}
				p, err := c.Install(policy, o, env)
				if err != nil {
					t.Fatalf("install: %v", err)
				}
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
					t.Fatalf("installed %s: %v %v, want mode 0644", p, fi, err)
				}
				if cs := status(); cs.State != StateInPlace || len(cs.Problems) > 0 {
					t.Fatalf("status after install: %+v", cs)
				}
				// A server admitted by hand besides the org lock's.
				write(t, p, c.render(append(slices.Clone(es), evil), mode), 0o644)
				cs := status()
				if cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), "evil") {
					t.Errorf("status of a policy admitting evil too: %+v", cs)
				}
				// One of the org lock's servers left out.
				write(t, p, c.render(es[:1], mode), 0o644)
				if cs = status(); cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), "does not admit "+es[1].Name) {
					t.Errorf("status of a policy without %s: %+v", es[1].Name, cs)
				}
				must(t, os.Remove(p))
				if cs = status(); cs.State != StateMissing {
					t.Errorf("status without the policy: %+v", cs)
				}
			})
		}
	}
	r := Status(StatusOptions{Lockfile: orgLock, Emit: emitOpts(orgLock, ModeArgv), Required: []string{"codex"}, Env: env})
	if !r.Drift {
		t.Errorf("a required client without its policy is not drift: %+v", r)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Claude Code merges managed-settings.json and every drop-in: another
// file's allowlist entry, a later drop-in turning allowManagedMcpServersOnly
// off, or a managed-mcp.json beside them is drift, though mcpsum's own
// drop-in is intact.
func TestClaudeCodeMergedSettings(t *testing.T) {
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	o := emitOpts(orgLock, ModeArgv)
	c, _ := ClientByName("claude-code")
	policy, _ := c.Emit(entries(t, lock, o), ModeArgv)
	if _, err := c.Install(policy, o, env); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "etc", "claude-code")
	check := func(want string) {
		t.Helper()
		r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Env: env})
		cs := r.Clients[0]
		if cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), want) || !r.Drift {
			t.Errorf("want drift naming %q, got %+v", want, cs)
		}
	}
	write(t, filepath.Join(dir, "managed-settings.json"), []byte(`{"allowedMcpServers": [{"serverName": "github"}], "model": "x"}`), 0o644)
	check(`name "github"`)
	must(t, os.Remove(filepath.Join(dir, "managed-settings.json")))
	write(t, filepath.Join(dir, "managed-settings.d", "zz-team.json"), []byte(`{"allowManagedMcpServersOnly": false}`), 0o644)
	check("allowManagedMcpServersOnly is not true")
	must(t, os.Remove(filepath.Join(dir, "managed-settings.d", "zz-team.json")))
	write(t, filepath.Join(dir, "managed-mcp.json"), []byte(`{"mcpServers": {}}`), 0o644)
	check("managed-mcp.json")
}

// --install never loses an organisation's own settings: a file there with
// other settings is left as it was and the error names them; one holding
// only what mcpsum writes (an older policy) is replaced.
func TestInstallKeepsOtherSettings(t *testing.T) {
	root := t.TempDir()
	env := Env{Root: root, GOOS: "linux"}
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, testLock(t, "valid.lock"), 0o644)
	o := emitOpts(orgLock, ModeArgv)
	es := entries(t, testLock(t, "valid.lock"), o)
	for _, tc := range []struct{ client, other, ours string }{
		{"gemini", `{"telemetry": {"enabled": true}, "mcp": {"allowed": []}}`, `{"mcp": {"allowed": ["old"]}, "mcpServers": {}}`},
		{"codex", "allowed_approval_policies = [\"on-request\"]\n[mcp_servers.old.identity]\nurl = \"https://x\"\n", "[mcp_servers.old.identity]\nurl = \"https://x\"\n"},
		{"copilot", `{"permissions": {"disableBypassPermissionsMode": "disable"}}`, `{"allowedMcpServers": []}`},
	} {
		c, _ := ClientByName(tc.client)
		p := c.Path(env)
		policy, _ := c.Emit(es, ModeArgv)
		write(t, p, []byte(tc.other), 0o644)
		if _, err := c.Install(policy, o, env); err == nil || !strings.Contains(err.Error(), "settings mcpsum does not write") {
			t.Errorf("%s: install over other settings: %v", tc.client, err)
		}
		if string(read(t, p)) != tc.other {
			t.Errorf("%s: install changed a file holding other settings", tc.client)
		}
		write(t, p, []byte(tc.ours), 0o644)
		if _, err := c.Install(policy, o, env); err != nil || !bytes.Equal(read(t, p), policy) {
			t.Errorf("%s: install over an older policy: %v", tc.client, err)
		}
	}
	desktop, _ := ClientByName("claude-desktop")
	if _, err := desktop.Install([]byte("{}"), EmitOptions{}, env); err == nil || !strings.Contains(err.Error(), "MDM") {
		t.Errorf("claude-desktop --install: %v", err)
	}
}

// The files of the clients that cannot run here validate against their
// published schemas (testdata/schemas/README says where each is from), and
// Codex's is the TOML its documentation describes.
func TestPoliciesMatchPublishedSchemas(t *testing.T) {
	lock := testLock(t, "valid.lock")
	for _, mode := range []string{ModeArgv, ModeURL} {
		es := entries(t, lock, emitOpts("/etc/mcpsum/org.lock", mode))
		for _, c := range Clients {
			if !c.Supports(mode) {
				continue
			}
			policy, _ := c.Emit(es, mode)
			switch c.Name {
			case "copilot", "claude-code":
				validate(t, "copilot-managed-settings.schema.json", policy)
			case "vscode":
				var doc map[string]string
				must(t, json.Unmarshal(policy, &doc))
				validate(t, "vscode-chat-mcp-allowed-servers.schema.json", []byte(doc[vscodePolicy]))
			case "claude-desktop":
				validate(t, "claude-desktop-managed.schema.json", policy)
				var doc map[string]string
				must(t, json.Unmarshal(policy, &doc))
				validateDef(t, "claude-desktop-managed.schema.json", "servers", []byte(doc["managedMcpServers"]))
			case "codex":
				var doc struct {
					MCPServers map[string]struct {
						Identity struct {
							URL     string `toml:"url"`
							Command *struct {
								Executable string `toml:"executable"`
								Args       []struct{ Match, Value string }
							} `toml:"command"`
						} `toml:"identity"`
					} `toml:"mcp_servers"`
				}
				md, err := toml.Decode(string(policy), &doc)
				if err != nil || len(md.Undecoded()) > 0 || len(doc.MCPServers) != len(es) {
					t.Fatalf("codex %s: %v %v\n%s", mode, err, md.Undecoded(), policy)
				}
				id := doc.MCPServers["time"].Identity
				if mode == ModeURL && id.URL != "https://mcp.example.com/servers/time/mcp" ||
					mode == ModeArgv && (id.Command.Executable != "/usr/local/bin/mcpsum" || len(id.Command.Args) != 5 || id.Command.Args[4].Value != "time" || id.Command.Args[4].Match != "exact") {
					t.Errorf("codex %s: identity of time: %+v", mode, id)
				}
			}
		}
	}
}

// compileSchema compiles the JSON schema at path (ref: one of its
// definitions, "" for the whole), with format assertions on.
func compileSchema(t *testing.T, path, ref string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	must(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	name := filepath.Base(path)
	must(t, c.AddResource(name, doc))
	s, err := c.Compile(name + ref)
	must(t, err)
	return s
}

func validate(t *testing.T, file string, data []byte) {
	t.Helper()
	validateDef(t, file, "", data)
}

func validateDef(t *testing.T, file, def string, data []byte) {
	t.Helper()
	ref := ""
	if def != "" {
		ref = "#/$defs/" + def
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	must(t, err)
	if err := compileSchema(t, filepath.Join("testdata", "schemas", file), ref).Validate(inst); err != nil {
		t.Errorf("%s does not validate against %s%s: %v", data, file, ref, err)
	}
}

// What emit refuses: a path the clients would expand, a relative path, a
// serve URL with a path, a client that cannot express the mode.
func TestEmitRefusals(t *testing.T) {
	f, err := lockfile.Parse("org.lock", testLock(t, "valid.lock"))
	must(t, err)
	for _, tc := range []struct {
		o    EmitOptions
		want string
	}{
		{EmitOptions{Lockfile: "/etc/$HOME/org.lock", Mcpsum: "/usr/bin/mcpsum", Mode: ModeArgv}, "holds '$'"},
		{EmitOptions{Lockfile: "org.lock", Mcpsum: "/usr/bin/mcpsum", Mode: ModeArgv}, "absolute path"},
		{EmitOptions{Lockfile: "/o.lock", Mode: ModeURL}, "needs --serve-url"},
		{EmitOptions{Lockfile: "/o.lock", Mode: ModeURL, ServeURL: "https://h/base"}, "want only https://HOST"},
		{EmitOptions{Lockfile: "/o.lock", Mode: ModeURL, ServeURL: "http://example.com"}, "plain http"},
		{EmitOptions{Lockfile: "/o.lock", Mode: "ssh"}, "want argv or url"},
	} {
		if _, err := Entries(f, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	desktop, _ := ClientByName("claude-desktop")
	if _, err := desktop.Emit(nil, ModeArgv); err == nil || !strings.Contains(err.Error(), "--mode url") {
		t.Errorf("claude-desktop in argv mode: %v", err)
	}
}
