package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fleet sync of an org lock served over HTTP, with the transparency log
// checking its surfaces (the real npm servers locked through npx, a real
// mcpsum-log): a logged lock installs, and a second sync of its serial
// changes nothing; a surface the log does not hold, one that differs from
// the logged one (a tampered install's), a lower serial and an unknown
// signer are each refused with exit 1 and every installed file unchanged.
// status --json validates against docs/fleet-status.schema.json and names
// the log's checkpoint.
func TestFleetSyncWithLog(t *testing.T) {
	t.Parallel()
	honest := npmProject(t, false)
	run := func(dir string, env []string, args ...string) (string, string, int) {
		t.Helper()
		return mcpsum(t, dir, append([]string{"npm_config_offline=true"}, env...), args...)
	}
	operatorLock(t, honest, "mcp.lock", false) // mem and seq, locked with no log
	both := filepath.Join(honest, "mcp.lock")
	memOnly := filepath.Join(honest, "mem-only.lock")
	must(t, os.WriteFile(memOnly, []byte(readFile(t, both)), 0o644))
	if _, se, code := run(honest, nil, "lock", "--lockfile", memOnly, "--remove", "seq"); code != 0 {
		t.Fatalf("lock --remove seq: exit %d\n%s", code, se)
	}
	// The log's operator logged server-memory only.
	logDir := filepath.Join(t.TempDir(), "log")
	vkey, se, code := mcpsumLog(t, honest, "init", "--dir", logDir, "--origin", "e2e.test/fleet")
	if code != 0 {
		t.Fatalf("mcpsum-log init: exit %d\n%s", code, se)
	}
	if so, se, code := mcpsumLog(t, honest, "add", "--dir", logDir, "--lockfile", memOnly); code != 0 {
		t.Fatalf("mcpsum-log add: exit %d\n%s%s", code, so, se)
	}
	url, _ := serveLog(t, logDir)
	env := []string{"MCPSUMDB=" + strings.TrimSpace(vkey) + " " + url, "XDG_STATE_HOME=" + t.TempDir()}

	o := newFleetOrg(t)
	sync := func(extra ...string) (string, string, int) {
		t.Helper()
		return run(t.TempDir(), append(env, extra...), "fleet", "sync", "--from", o.url, "--to", o.to)
	}
	o.release(t, memOnly, "1", o.key)
	so, se, code := sync()
	if code != 0 || !strings.HasPrefix(so, "installed  "+o.to+": release 1 of eng (signed by acme-release") || !strings.Contains(se, "mem: matches the transparency log") {
		t.Fatalf("first sync: exit %d\n%s%s", code, so, se)
	}
	if readFile(t, o.to) != readFile(t, memOnly) {
		t.Fatal("the installed lock is not the published one")
	}
	before := o.installed(t)
	if so, se, code = sync(); code != 0 || !strings.HasPrefix(so, "unchanged  ") {
		t.Fatalf("second sync of release 1: exit %d\n%s%s", code, so, se)
	}
	unchanged := func(what string) {
		t.Helper()
		for s, b := range o.installed(t) {
			if b != before[s] {
				t.Errorf("%s: %s changed", what, o.to+s)
			}
		}
	}
	unchanged("the second sync of the same serial")

	so, _, code = run(t.TempDir(), env, "fleet", "status", "--lockfile", o.to, "--json")
	if code != 0 {
		t.Fatalf("fleet status: exit %d\n%s", code, so)
	}
	validateStatus(t, so)
	var rep struct {
		Serial int64
		Signer string
		Log    *struct{ Origin string }
	}
	must(t, json.Unmarshal([]byte(so), &rep))
	if rep.Serial != 1 || rep.Signer != "acme-release" || rep.Log == nil || rep.Log.Origin != "e2e.test/fleet" {
		t.Errorf("status --json: %s", so)
	}

	refused := func(what, want string, extra ...string) {
		t.Helper()
		so, se, code := sync(extra...)
		if code != 1 || !strings.Contains(se, want) || !strings.Contains(se, "the installed lock is unchanged") {
			t.Errorf("%s: exit %d, want 1 with %q\n%s%s", what, code, want, so, se)
		}
		unchanged(what)
	}
	// A surface the log does not hold.
	o.release(t, both, "2", o.key)
	refused("an unlogged surface", "npm/"+seqSpec)
	// A surface the log holds otherwise: a tampered install's.
	victim := npmProject(t, true)
	operatorLock(t, victim, "mcp.lock", true) // the tampered install's lock of mem, with no log
	o.release(t, filepath.Join(victim, "mcp.lock"), "3", o.key)
	refused("a surface that differs from the logged one", "SECURITY ERROR")
	// An unknown signer.
	stranger, _ := ecKey(t, t.TempDir())
	o.release(t, both, "4", stranger)
	refused("an unknown signer", "not signed by a signer the organisation trusts")

	// With server-sequential-thinking excluded from the log, release 4 of
	// both servers installs; then release 1 again is a rollback.
	o.release(t, both, "4", o.key)
	nosumdb := "MCPSUM_NOSUMDB=npm/@modelcontextprotocol/server-sequential-thinking"
	if so, se, code = sync(nosumdb); code != 0 || !strings.Contains(so, "release 4") || !strings.Contains(se, "matches MCPSUM_NOSUMDB") {
		t.Fatalf("sync of release 4 with seq excluded: exit %d\n%s%s", code, so, se)
	}
	before = o.installed(t)
	o.release(t, memOnly, "1", o.key)
	refused("a lower serial", "older than the installed release 4")
}

func validateStatus(t *testing.T, out string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "fleet-status.schema.json"))
	must(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	must(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	must(t, c.AddResource("fleet-status.schema.json", doc))
	s, err := c.Compile("fleet-status.schema.json")
	must(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	must(t, err)
	if err := s.Validate(inst); err != nil {
		t.Errorf("fleet status --json does not validate against docs/fleet-status.schema.json: %v\n%s", err, out)
	}
}
