package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/verify"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// runAdd: mcpsum-log add --dir D --lockfile F [--name N]... [--witness-policy P].
func runAdd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dir, storage := flags("add", stderr, true)
	lf := fs.String("lockfile", "mcp.lock", "the lockfile whose entries to log")
	wp := fs.String("witness-policy", "", "ask the witnesses of this policy file to cosign; publish only checkpoints its quorum cosigned (kept in D: every later add needs it too)")
	timeout := fs.Int("timeout-secs", 30, "per answer of a server")
	start := fs.Int("start-timeout-secs", 60, "how long a server may take from its start to its first answer, as mcpsum verify's")
	publish := fs.Int("publish-timeout-secs", 120, "how long to wait for a signed (and cosigned) checkpoint")
	var ns names
	fs.Var(&ns, "name", "an entry to log (repeatable; default: every entry)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *dir == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "mcpsum-log add: want --dir D --lockfile F [--name N]...\n")
		return 2
	}
	if *timeout <= 0 || *start <= 0 {
		fmt.Fprintf(stderr, "mcpsum-log add: --timeout-secs and --start-timeout-secs must be positive, got %d and %d\n", *timeout, *start)
		return 2
	}
	o := sumlog.Options{Storage: *storage, PublishTimeout: time.Duration(*publish) * time.Second}
	if *wp != "" {
		var err error
		if o.WitnessPolicy, err = safeio.ReadRegular(*wp, "witness policy", 1<<20); err != nil {
			fmt.Fprintf(stderr, "mcpsum-log add: --witness-policy: %v\n", err)
			return 2
		}
	}
	lo := launch.Options{Lockfile: *lf, Timeout: time.Duration(*timeout) * time.Second, StartTimeout: time.Duration(*start) * time.Second}
	return add(ctx, *dir, o, ns, lo, stdout, stderr)
}

// add verifies the entries against their live servers, as mcpsum verify
// does, and logs every keyed one that matches.
func add(ctx context.Context, dir string, st sumlog.Options, ns []string, lo launch.Options, stdout, stderr io.Writer) int {
	lf := lo.Lockfile
	f, err := lockfile.Load(lf)
	if err != nil {
		fmt.Fprintf(stderr, "mcpsum-log add: %s\n", hint.Lines(err, "mcpsum-log: "))
		var ie *lockfile.IntegrityError
		if errors.As(err, &ie) {
			return 1
		}
		return 3
	}
	if len(ns) == 0 {
		for n := range f.Servers {
			ns = append(ns, n)
		}
		sort.Strings(ns)
	}
	var keyed []string
	var entries []sumlog.Entry
	for _, n := range ns {
		e, ok := f.Servers[n]
		if !ok {
			fmt.Fprintf(stderr, "mcpsum-log add: %s has no server %q\n", lf, n)
			return 2
		}
		key, ok := launch.LogKey(e)
		if !ok {
			fmt.Fprintf(stderr, "skip   %s: private (its command pins no registry package at an exact version)\n", n)
			continue
		}
		keyed = append(keyed, n)
		entries = append(entries, sumlog.Entry{Key: key, Surface: launch.LogSurface(e)})
	}
	if len(keyed) == 0 {
		fmt.Fprintln(stderr, "mcpsum-log add: no entry has a key; nothing to log")
		return 0
	}
	rep := verify.Verify(ctx, f, keyed, false, lo)
	for _, s := range rep.Servers {
		switch s.Status {
		case verify.StatusOK, verify.StatusInformational:
		case verify.StatusDrift:
			fmt.Fprintf(stderr, "mcpsum-log add: %s: the live server differs from %s (%d findings); nothing was appended: re-lock it and review the change first\n", s.Name, lf, len(s.Findings))
			return 1
		default:
			fmt.Fprintf(stderr, "mcpsum-log add: %s: could not be checked: %v; nothing was appended\n", s.Name, s.Error)
			return 3
		}
	}
	added, err := sumlog.Add(ctx, dir, st, entries)
	if err != nil {
		return fail(stderr, "add", err)
	}
	for i, a := range added {
		verb := "logged"
		if !a.New {
			verb = "already"
		}
		fmt.Fprintf(stdout, "%-7s %s %s (record %d)\n", verb, keyed[i], a.Key, a.Index)
	}
	return 0
}
