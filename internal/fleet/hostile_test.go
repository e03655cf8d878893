//go:build unix

package fleet

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The public key a trust file names is as much the organisation's word as
// the trust file: whoever can replace it names their own signer. A key
// others may write, or one in a folder they may write, is refused before
// anything is fetched, like a trust file.
func TestSyncRefusesInsecureSignerKey(t *testing.T) {
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 1, o.key)
	key := filepath.Join(filepath.Dir(o.to), "org.pub")
	must(t, os.Chmod(key, 0o666))
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "writable by group or others") || !strings.Contains(err.Error(), "org.pub") {
		t.Fatalf("sync with a world-writable signer key: %v", err)
	}
	must(t, os.Chmod(key, 0o644))
	// The key elsewhere, in a folder anyone may write.
	open := filepath.Join(t.TempDir(), "keys")
	must(t, os.MkdirAll(open, 0o777))
	must(t, os.Chmod(open, 0o777))
	write(t, filepath.Join(open, "org.pub"), read(t, key), 0o644)
	write(t, o.trust, []byte(`{"name": "eng", "signers": [{"name": "org-release", "key": "`+filepath.Join(open, "org.pub")+`"}]}`), 0o644)
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("sync with a signer key in a world-writable folder: %v", err)
	}
	if _, err := os.Stat(o.to); !os.IsNotExist(err) {
		t.Errorf("a refused sync installed %s", o.to)
	}
	// A symbolic link to the key is refused too: whoever owns the link's
	// target folder could change it.
	write(t, o.trust, []byte(`{"name": "eng", "signers": [{"name": "org-release", "key": "org.pub"}]}`), 0o644)
	must(t, os.Rename(key, key+".real"))
	must(t, os.Symlink(filepath.Join(open, "org.pub"), key))
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("sync with a signer key that is a symbolic link: %v", err)
	}
	must(t, os.Remove(key))
	must(t, os.Rename(key+".real", key))
	if _, err := o.sync(); err != nil {
		t.Fatalf("sync with the key restored: %v", err)
	}
}

// A symbolic link on the way to the lock's folder is as much the folder as
// the folder itself: one another user owns, or one in a folder others may
// write (without the sticky bit), can be pointed elsewhere between sync's
// checks and its writes, though the folder it points to is root's.
func TestSyncRefusesLinkOthersControl(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a symbolic link to another user needs root")
	}
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 1, o.key)
	etc := filepath.Dir(o.to)
	for _, tc := range []struct {
		name  string
		setup func(dir string) string
	}{
		{"a link another user owns", func(dir string) string {
			l := filepath.Join(dir, "link")
			must(t, os.Symlink(etc, l))
			must(t, os.Lchown(l, 4242, 4242))
			return l
		}},
		{"a link in a folder others may write", func(dir string) string {
			open := filepath.Join(dir, "open")
			must(t, os.Mkdir(open, 0o777))
			must(t, os.Chmod(open, 0o777))
			l := filepath.Join(open, "link")
			must(t, os.Symlink(etc, l))
			return l
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.setup(t.TempDir())
			to := filepath.Join(l, "org.lock")
			_, err := Sync(t.Context(), SyncOptions{From: o.url, To: to, Helper: o.c})
			if err == nil || !strings.Contains(err.Error(), "link") && !strings.Contains(err.Error(), "writable by group or others") {
				t.Fatalf("sync through %s: %v", tc.name, err)
			}
			if _, err := os.Stat(o.to); !os.IsNotExist(err) {
				t.Errorf("a refused sync installed %s", o.to)
			}
		})
	}
}

// An argv policy admits `MCPSUM proxy --lockfile ORG --name N` by its
// paths alone: whoever can replace the mcpsum binary at MCPSUM, or edit
// ORG, runs anything under the allowlist (a Homebrew /usr/local/bin on
// macOS belongs to a user). --install on this machine refuses a policy
// naming such a path, and status reports it (and installed release files
// others may write) as drift.
func TestPolicyPathsUsersCanChange(t *testing.T) {
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	release := orgLock + ReleaseSuffix
	write(t, release, []byte("{}"), 0o644)
	bin := filepath.Join(root, "opt", "bin", "mcpsum")
	write(t, bin, []byte("#!/bin/sh\n"), 0o755)
	must(t, os.Chmod(filepath.Dir(bin), 0o755))
	must(t, os.Chmod(filepath.Join(root, "opt"), 0o755))
	env := Env{Root: root, GOOS: "linux"}
	c, _ := ClientByName("codex")
	o := emitOpts(orgLock, ModeArgv)
	o.Mcpsum = bin
	policy, _ := c.Emit(entries(t, lock, o), ModeArgv)
	status := func() ClientStatus {
		r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Required: []string{"codex"}, Env: env})
		cs := r.Clients[slices.IndexFunc(r.Clients, func(cs ClientStatus) bool { return cs.Client == "codex" })]
		cs.Problems = append(cs.Problems, r.Problems...)
		return cs
	}
	if _, err := c.Install(policy, o, env); err != nil {
		t.Fatalf("install with root's binary and lock: %v", err)
	}
	if cs := status(); cs.State != StateInPlace || strings.Contains(strings.Join(cs.Problems, "\n"), "writable") {
		t.Fatalf("status: %+v", cs)
	}
	for _, tc := range []struct {
		name string
		path string
		mode os.FileMode
	}{
		{"a binary others may write", bin, 0o777},
		{"a binary in a folder others may write", filepath.Dir(bin), 0o777},
		{"an org lock others may write", orgLock, 0o666},
		{"a release statement others may write", release, 0o666},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi, err := os.Stat(tc.path)
			must(t, err)
			must(t, os.Chmod(tc.path, tc.mode))
			defer os.Chmod(tc.path, fi.Mode().Perm())
			if _, err := c.Install(policy, o, env); tc.path != release && (err == nil || !strings.Contains(err.Error(), "writable by group or others")) {
				t.Errorf("install: %v", err)
			}
			if cs := status(); !strings.Contains(strings.Join(cs.Problems, "\n"), "writable by group or others") {
				t.Errorf("status: %+v", cs)
			}
		})
	}
}

// One key (or one keyless identity) under two names is a trust file that
// cannot say who signed: status reports the first name, and removing the
// other name (revoking that signer) would not revoke the key. It is
// refused, the same key copied to another file too.
func TestTrustNamesOneSignerTwice(t *testing.T) {
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 1, o.key)
	dir := filepath.Dir(o.trust)
	write(t, filepath.Join(dir, "copy.pub"), read(t, filepath.Join(dir, "org.pub")), 0o644)
	id := `"certificateIdentity": "https://github.com/acme/agents/.github/workflows/release.yml@refs/heads/main", "certificateOidcIssuer": "https://token.actions.githubusercontent.com"`
	for _, tc := range []struct{ name, signers string }{
		{"the same key file", `{"name": "org-release", "key": "org.pub"}, {"name": "old", "key": "./org.pub"}`},
		{"a copy of the key", `{"name": "org-release", "key": "org.pub"}, {"name": "old", "key": "copy.pub"}`},
		{"the same identity", `{"name": "ci", ` + id + `}, {"name": "org-release", "key": "org.pub"}, {"name": "ci2", ` + id + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, o.trust, []byte(`{"name": "eng", "signers": [`+tc.signers+`]}`), 0o644)
			if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "same signer") {
				t.Fatalf("sync: %v", err)
			}
			if _, err := os.Stat(o.to); !os.IsNotExist(err) {
				t.Errorf("a refused sync installed %s", o.to)
			}
		})
	}
	write(t, o.trust, []byte(`{"name": "eng", "signers": [{"name": "org-release", "key": "org.pub"}, {"name": "ci", `+id+`}]}`), 0o644)
	if _, err := o.sync(); err != nil {
		t.Fatalf("sync with two signers: %v", err)
	}
}

// A client's policy holds only while no one but root can change it: one
// owned by another user, in a folder others may write (or own), or a
// symbolic link to a file in such a folder is drift, though its content is
// what fleet emit writes and its own mode is 0644.
func TestStatusPolicyOthersCanChange(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	c, _ := ClientByName("codex")
	o := emitOpts(orgLock, ModeArgv)
	policy, _ := c.Emit(entries(t, lock, o), ModeArgv)
	p, err := c.Install(policy, o, env)
	must(t, err)
	dir := filepath.Dir(p)
	codex := func() ClientStatus {
		r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Required: []string{"codex"}, Env: env})
		return r.Clients[slices.IndexFunc(r.Clients, func(cs ClientStatus) bool { return cs.Client == "codex" })]
	}
	if cs := codex(); cs.State != StateInPlace {
		t.Fatalf("status of root's policy: %+v", cs)
	}
	open := filepath.Join(t.TempDir(), "open")
	must(t, os.MkdirAll(open, 0o755))
	for _, tc := range []struct {
		name, want  string
		spoil, undo func()
	}{
		{"a policy another user owns", "belongs to user id 4242",
			func() { must(t, os.Chown(p, 4242, 4242)) }, func() { must(t, os.Chown(p, 0, 0)) }},
		{"a folder others may write", "writable by group or others",
			func() { must(t, os.Chmod(dir, 0o777)) }, func() { must(t, os.Chmod(dir, 0o755)) }},
		{"a folder another user owns", "belongs to user id 4242",
			func() { must(t, os.Chown(dir, 4242, 4242)) }, func() { must(t, os.Chown(dir, 0, 0)) }},
		{"a link to a file in a folder others may write", "writable by group or others",
			func() {
				write(t, filepath.Join(open, "requirements.toml"), policy, 0o644)
				must(t, os.Chmod(open, 0o777))
				must(t, os.Rename(p, p+".real"))
				must(t, os.Symlink(filepath.Join(open, "requirements.toml"), p))
			}, func() { must(t, os.Remove(p)); must(t, os.Rename(p+".real", p)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spoil()
			defer tc.undo()
			if cs := codex(); cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), tc.want) {
				t.Errorf("status: %+v", cs)
			}
		})
	}
	if cs := codex(); cs.State != StateInPlace {
		t.Fatalf("status after the undos: %+v", cs)
	}
}

// A policy status reads is not mcpsum's own writing: a name in it (or a
// TOML parser's message quoting one) reaches the report, which a person
// reads on a terminal, escaped.
func TestStatusEscapesPolicyNames(t *testing.T) {
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	c, _ := ClientByName("codex")
	o := emitOpts(orgLock, ModeArgv)
	for _, policy := range []string{
		"[mcp_servers.\"\\u001b]0;owned\\u0007\".identity]\ncommand = 1\n",
		"[mcp_servers.\"\\u001b]0;owned\\u0007\".identity]\nurl = \n",
	} {
		write(t, c.Path(env), []byte(policy), 0o644)
		r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Env: env})
		if text := r.Text(); strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("status of %q printed a control character:\n%s", policy, text)
		}
	}
}

// Claude Code merges every managed-settings.d/*.json: a drop-in beside
// mcpsum's that another user owns could add to the allowlist at any time,
// though it admits nothing today.
func TestStatusClaudeDropInOthersOwn(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	c, _ := ClientByName("claude-code")
	o := emitOpts(orgLock, ModeArgv)
	policy, _ := c.Emit(entries(t, lock, o), ModeArgv)
	p, err := c.Install(policy, o, env)
	must(t, err)
	other := filepath.Join(filepath.Dir(p), "zz-team.json")
	write(t, other, []byte("{}"), 0o644)
	claude := func() ClientStatus {
		r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Env: env})
		return r.Clients[slices.IndexFunc(r.Clients, func(cs ClientStatus) bool { return cs.Client == "claude-code" })]
	}
	if cs := claude(); cs.State != StateInPlace {
		t.Fatalf("status with root's drop-in: %+v", cs)
	}
	must(t, os.Chown(other, 4242, 4242))
	if cs := claude(); cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), "belongs to user id 4242") {
		t.Errorf("status with a drop-in another user owns: %+v", cs)
	}
}
