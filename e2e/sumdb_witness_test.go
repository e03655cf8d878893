package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog/logtest"
)

// A witness policy set after first use, end to end with a real witness
// (omniwitness): a user locked against the log before it was witnessed, so
// the checkpoint their machine remembers has no cosignature. Once the
// operator adds with a witness policy and the user sets
// MCPSUM_WITNESS_POLICY, lookups still work (the new, cosigned checkpoint
// extends the remembered one); a proof stored before the policy fails
// verify --offline with the way out, which is run: lock the entry again.
func TestSumdbWitnessPolicyAfterFirstUse(t *testing.T) {
	t.Parallel()
	honest := npmProject(t, false)
	offline := []string{"npm_config_offline=true"} // mcpsum-log add's servers run the installed copies too
	run := func(dir string, env []string, args ...string) (string, string, int) {
		t.Helper()
		return mcpsum(t, dir, append([]string{"npm_config_offline=true"}, env...), args...)
	}
	operatorLock(t, honest, "mcp.lock", false) // mem and seq, locked with no log
	logDir := filepath.Join(t.TempDir(), "log")
	vkey, se, code := mcpsumLog(t, honest, "init", "--dir", logDir, "--origin", "witness.e2e/mcp")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s", code, se)
	}
	vkey = strings.TrimSpace(vkey)
	if so, se, code := mcpsumLogEnv(t, honest, offline, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--name", "mem"); code != 0 {
		t.Fatalf("add mem: exit %d\n%s%s", code, so, se)
	}
	url, _ := serveLog(t, logDir)

	// First use, no witnesses yet.
	user := npmProject(t, false)
	env := []string{"MCPSUMDB=" + vkey + " " + url, "XDG_STATE_HOME=" + t.TempDir()}
	if _, se, code := run(user, env, "lock", "--name", "mem", "--env", "npm_config_offline", "--", "npx", "-y", memSpec); code != 0 || !strings.Contains(se, "mem: matches the transparency log") {
		t.Fatalf("first lock: exit %d\n%s", code, se)
	}

	// The operator has the log witnessed from now on.
	w := logtest.StartWitness(t, "witness.e2e", vkey)
	policy := filepath.Join(t.TempDir(), "witnesses")
	must(t, os.WriteFile(policy, []byte(w.PolicyLine()+"quorum witness.e2e\n"), 0o644))
	if so, se, code := mcpsumLogEnv(t, honest, offline, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--name", "seq", "--witness-policy", policy); code != 0 {
		t.Fatalf("add seq under the witness policy: exit %d\n%s%s", code, so, se)
	}
	if cp := readFile(t, filepath.Join(logDir, "tiles", "checkpoint")); !strings.Contains(cp, "\n— witness.e2e ") {
		t.Fatalf("the log's checkpoint is not cosigned:\n%s", cp)
	}

	// The user sets the policy: not locked out.
	env = append(env, "MCPSUM_WITNESS_POLICY="+policy)
	if _, se, code := run(user, env, "lock", "--name", "seq", "--env", "npm_config_offline", "--", "npx", "-y", seqSpec); code != 0 || !strings.Contains(se, "seq: matches the transparency log") {
		t.Fatalf("lock under a witness policy set after first use: exit %d\n%s", code, se)
	}
	// mem's proof predates the policy: verify --offline says how to renew it.
	so, _, code := run(user, env, "verify", "--offline")
	if code != 1 || !strings.Contains(so, "not cosigned") || !strings.Contains(so, "lock the entry again with MCPSUMDB and MCPSUM_WITNESS_POLICY set") {
		t.Fatalf("verify --offline of a proof from before the policy: exit %d, want 1 with the way out\n%s", code, so)
	}
	if _, se, code := run(user, env, "lock", "--name", "mem"); code != 0 {
		t.Fatalf("lock mem again under the policy: exit %d\n%s", code, se)
	}
	if so, _, code := run(user, env, "verify", "--offline"); code != 0 || !strings.Contains(so, "2 transparency-log proofs check against the log's key (offline)") {
		t.Fatalf("verify --offline after locking again: exit %d\n%s", code, so)
	}
}
