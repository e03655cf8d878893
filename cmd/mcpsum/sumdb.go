package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// logConfig reads MCPSUMDB, MCPSUM_NOSUMDB and MCPSUM_WITNESS_POLICY; nil
// when no log is configured.
func logConfig() (*sumdb.Config, error) {
	cfg, err := sumdb.ParseConfig(os.Getenv("MCPSUMDB"), os.Getenv("MCPSUM_NOSUMDB"))
	if err != nil || cfg == nil {
		if err != nil {
			err = usageErr("%v", err)
		}
		return nil, err
	}
	if p := os.Getenv("MCPSUM_WITNESS_POLICY"); p != "" {
		data, err := safeio.ReadRegular(p, "witness policy", 1<<20)
		if err != nil {
			return nil, usageErr("MCPSUM_WITNESS_POLICY: %v", err)
		}
		if err := cfg.WithWitnesses(p, data); err != nil {
			return nil, usageErr("MCPSUM_WITNESS_POLICY: %v", err)
		}
	}
	return cfg, nil
}

// checkLog looks every keyed entry up in the transparency log (MCPSUMDB)
// before cmd writes them, and stores each logged entry's proof in it. A
// surface the log holds otherwise, a log that rolled back or forked, or one
// that cannot be reached fails the whole write (nothing is written); a key
// the log does not hold yet, a private entry and an excluded key are said.
func (a *app) checkLog(ctx context.Context, cmd string, entries map[string]*lockfile.Server) error {
	cfg, err := logConfig()
	if err != nil || cfg == nil {
		return err
	}
	state, err := pin.StateDir()
	if err != nil {
		return err
	}
	c := &sumdb.Client{Config: cfg, StateDir: state}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := entries[n]
		key, ok := pin.LogKey(e)
		switch {
		case !ok:
			fmt.Fprintf(a.stderr, "%s: %s: private (%s); not looked up in the transparency log\n", cmd, n, privateWhy(e.Remote()))
			continue
		case cfg.Excluded(key):
			fmt.Fprintf(a.stderr, "%s: %s: %s matches MCPSUM_NOSUMDB; not looked up\n", cmd, n, sumdb.Module(key))
			continue
		}
		res, err := c.Check(ctx, key, pin.LogSurface(e))
		if err != nil {
			return fmt.Errorf("%s: %s: %w", cmd, n, err)
		}
		if !res.Found {
			fmt.Fprintf(a.stderr, "%s: %s: %s is not in the transparency log yet (nothing to compare; its operator adds it with mcpsum-log add)\n", cmd, n, key)
			continue
		}
		e.LogProof = string(res.Proof)
		fmt.Fprintf(a.stderr, "%s: %s: matches the transparency log (%s)\n", cmd, n, key)
	}
	return nil
}

// keepLogProof carries old's log proof over to a re-locked entry that was
// not looked up, when it still proves the same record.
func keepLogProof(old, e *lockfile.Server) {
	if e.LogProof != "" || old.LogProof == "" {
		return
	}
	ko, ok1 := pin.LogKey(old)
	ke, ok2 := pin.LogKey(e)
	if ok1 && ok2 && ko == ke && sumdb.Digest(pin.LogSurface(old)) == sumdb.Digest(pin.LogSurface(e)) {
		e.LogProof = old.LogProof
	}
}

// checkLogProofs checks the stored proofs of the named entries offline
// against MCPSUMDB's key (verify --offline). It returns the first failure;
// entries without a proof are listed in notes.
func checkLogProofs(f *lockfile.File, names []string) (checked int, notes []string, err error) {
	cfg, err := logConfig()
	if err != nil {
		return 0, nil, err
	}
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
		key, ok := pin.LogKey(e)
		if !ok || e.LogProof == "" {
			if ok && !cfg.Excluded(key) {
				notes = append(notes, fmt.Sprintf("%s: no transparency-log proof stored (lock it with MCPSUMDB set once the log holds %s)", n, key))
			}
			continue
		}
		if err := cfg.CheckProof(key, pin.LogSurface(e), e.LogProof); err != nil {
			return checked, notes, fmt.Errorf("%s: %w", n, err)
		}
		checked++
	}
	return checked, notes, nil
}

// verifyLogProofs prints the offline check of path's stored log proofs.
func (a *app) verifyLogProofs(path string, f *lockfile.File) error {
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	checked, notes, err := checkLogProofs(f, names)
	for _, n := range notes {
		fmt.Fprintf(a.stdout, "note   %s: %s\n", quoteArg(path), n)
	}
	if err != nil {
		fmt.Fprintf(a.stdout, "FAIL   %s: %v\n", quoteArg(path), err)
		return err
	}
	if checked > 0 {
		fmt.Fprintf(a.stdout, "ok     %s: %d transparency-log proofs check against the log's key (offline)\n", quoteArg(path), checked)
	}
	return nil
}

// privateWhy says why an entry has no transparency-log key.
func privateWhy(remote bool) string {
	if remote {
		return "a remote server has no registry package everyone can run"
	}
	return "its command pins no registry package at an exact version"
}
