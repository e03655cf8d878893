package launch

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// LogKey is the transparency-log key of a locked entry (see sumdb.Key):
// its argv, env names, era and the client capabilities mcpsum declares in
// that era. ok is false for an entry without an exact registry pin (private).
func LogKey(e *lockfile.Server) (string, bool) {
	if e.Remote() {
		return "", false // no registry package: a remote server is private
	}
	return sumdb.Key(sumdb.Identity{Argv: e.Command, Env: e.EnvPassthrough, Era: e.Era(), Capabilities: mcpwire.ClientCapabilities(e.Era())})
}

// LogSurface is the definitional part of a locked entry as the log records it.
func LogSurface(e *lockfile.Server) sumdb.Surface {
	s := sumdb.Surface{Era: e.Era()}
	if e.Digests.Instructions != nil {
		s.Instructions = *e.Digests.Instructions
	}
	s.Items = [4]map[string]string{e.Digests.Tools, e.Digests.Prompts, e.Digests.Resources, e.Digests.ResourceTemplates}
	return s
}

// PrivateWhy says why an entry has no transparency-log key (LogKey's ok is
// false): remote is whether it is a remote server.
func PrivateWhy(remote bool) string {
	if remote {
		return "a remote server has no registry package everyone can run"
	}
	return "its command pins no registry package at an exact version"
}

// CheckLog looks every keyed entry up in the transparency log of cfg before
// the caller writes them, and stores each logged entry's proof in it
// (LogProof). A surface the log holds otherwise, a log that rolled back or
// forked, or one that cannot be reached fails the whole write (the error
// names the entry); note is told, per entry in name order, what happened to
// an entry that passed: private, excluded, not logged yet, or matched.
//
// seen is the lockfile the entries go into, as committed (nil when there
// is none): before the first lookup, the checkpoints of its stored proofs
// join the timeline this machine remembers (sumdb.Client.Remember), so a
// fresh machine (a CI runner) catches a log that rolled back or forked
// since the repository last saw it.
func CheckLog(ctx context.Context, cfg *sumdb.Config, seen *lockfile.File, entries map[string]*lockfile.Server, note func(name, what string)) error {
	state, err := StateDir()
	if err != nil {
		return err
	}
	c := &sumdb.Client{Config: cfg, StateDir: state, CacheDir: CacheDir()}
	seeded := false
	for _, n := range slices.Sorted(maps.Keys(entries)) {
		e := entries[n]
		key, ok := LogKey(e)
		switch {
		case !ok:
			note(n, "private ("+PrivateWhy(e.Remote())+"); not looked up in the transparency log")
			continue
		case cfg.Excluded(key):
			note(n, sumdb.Module(key)+" matches MCPSUM_NOSUMDB; not looked up")
			continue
		}
		if !seeded {
			if err := c.Remember(ctx, storedProofs(seen)); err != nil {
				return fmt.Errorf("the log proofs stored in the lockfile: %w", err)
			}
			seeded = true
		}
		res, err := c.Check(ctx, key, LogSurface(e))
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		if !res.Found {
			note(n, key+" is not in the transparency log yet (nothing to compare; its operator adds it with mcpsum-log add)")
			continue
		}
		e.LogProof = string(res.Proof)
		note(n, "matches the transparency log ("+key+")")
	}
	return nil
}

// storedProofs are the log proofs f's entries hold.
func storedProofs(f *lockfile.File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		if p := f.Servers[n].LogProof; p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CacheDir is where the transparency log's tiles are cached:
// $XDG_CACHE_HOME/mcpsum (os.UserCacheDir); "" (no cache) when there is
// no cache folder.
func CacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "mcpsum")
}

// KeepLogProof carries old's log proof over to a re-locked entry e that was
// not looked up, when it still proves the same record.
func KeepLogProof(old, e *lockfile.Server) {
	if e.LogProof != "" || old.LogProof == "" {
		return
	}
	ko, ok1 := LogKey(old)
	ke, ok2 := LogKey(e)
	if ok1 && ok2 && ko == ke && sumdb.Digest(LogSurface(old)) == sumdb.Digest(LogSurface(e)) {
		e.LogProof = old.LogProof
	}
}

// CheckLogProofs checks the stored log proofs of f's entries offline
// against the key of cfg (verify --offline), in name order. It returns the
// first failure, naming the entry; notes list what was not checked (no log
// configured, an entry without a proof).
func CheckLogProofs(cfg *sumdb.Config, f *lockfile.File) (checked int, notes []string, err error) {
	names := slices.Sorted(maps.Keys(f.Servers))
	if cfg == nil {
		stored := 0
		for _, n := range names {
			if f.Servers[n].LogProof != "" {
				stored++
			}
		}
		if stored > 0 {
			notes = append(notes, fmt.Sprintf("%d stored transparency-log proofs not checked: MCPSUMDB (the log's verifier key) is not set", stored))
		}
		return 0, notes, nil
	}
	for _, n := range names {
		e := f.Servers[n]
		key, ok := LogKey(e)
		if !ok || e.LogProof == "" {
			if ok && !cfg.Excluded(key) {
				notes = append(notes, fmt.Sprintf("%s: no transparency-log proof stored (lock it with MCPSUMDB set once the log holds %s)", n, key))
			}
			continue
		}
		if err := cfg.CheckProof(key, LogSurface(e), e.LogProof); err != nil {
			return checked, notes, fmt.Errorf("%s: %w", n, err)
		}
		checked++
	}
	return checked, notes, nil
}
