package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/review"
)

func (a *app) lockCommand() *ffcli.Command {
	fs := a.flagSet("lock")
	lockfilePath := lockfileFlag(fs)
	name := fs.String("name", "", "server entry to add, replace or re-lock")
	var envs stringList
	fs.Var(&envs, "env", "name of an environment variable passed to the server (repeatable, or a comma-separated list; values are never stored)")
	url := fs.String("url", "", "URL of a remote (Streamable HTTP) server to lock instead of a command")
	var headers stringList
	fs.Var(&headers, "header", "with --url: NAME=ENVVAR, a header sent to the server with its value from the environment variable ENVVAR (repeatable; values are never stored)")
	timeout := fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started (era probe, handshake, each list page)")
	start := startTimeoutFlag(fs)
	accept := fs.String("accept", "", "with no command: re-lock only when every change of each entry is of this kind (descriptive: wording only), printing the changes; otherwise exit 1 and write nothing")
	strict := fs.Bool("strict", false, "refuse to write (exit 1) when an entry shadows another server's tools: the same or a look-alike name, or text naming them")
	remove := fs.String("remove", "", "remove the server entry N from the lockfile (its command, surface and policy)")
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "mcpsum lock [--lockfile F] --name N [--env VAR]... [--timeout-secs S] [--start-timeout-secs S] [--strict] -- COMMAND [ARG]...\n  or   mcpsum lock [--lockfile F] --name N --url URL [--header NAME=ENVVAR]... [--strict]\n  or   mcpsum lock [--lockfile F] [--name N] [--accept descriptive] [--strict]\n  or   mcpsum lock [--lockfile F] --remove N",
		ShortHelp:  "run servers and pin their command and surface in mcp.lock",
		LongHelp: strings.TrimSpace(`
With a command after --, lock runs it, detects its protocol era, lists its
tools, prompts, resources and templates, and adds or replaces the entry N.
Without a command, lock re-locks the existing entries (or just N) with their
locked command and environment names, in their locked era first, several in
parallel. A server's policy is kept; taint labels of tools that no longer exist
are dropped and printed. When some servers fail, the others are still
re-locked and written, the failed ones keep their old entry, and lock exits
non-zero naming them. A failed lock of a new entry leaves mcp.lock
untouched. --remove N deletes the entry N.

With --url, lock pins a remote server that speaks Streamable HTTP: the exact
URL (https, or http to this machine only), the header names given with
--header and the variables their values come from (never the values), its
era and its surface. mcpsum connects only to that URL's origin: redirects
elsewhere are refused, and a host name must resolve to public addresses.

The server sees only the variables named with --env, plus PATH, HOME and
TMPDIR. mcpsum declares one fixed set of client capabilities (roots,
sampling, elicitation) while locking, verifying and proxying, so the surface
pinned is the one the proxy's server session sees (some servers add tools
for clients that declare them).

A server gets --start-timeout-secs to write its first line (a first npx run
downloads the package), then --timeout-secs for each answer. A server that
times out or fails to start is reported with its last stderr lines.

After writing, lock warns about what a reviewer could miss, shadowing included:
a tool or prompt of the entry with the same or a look-alike name as another
server's, or text of one server naming another's tool (each pair once). With
--strict shadowing is an error (exit 1) and nothing is written.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if *remove != "" {
				if len(args) > 0 || *name != "" || len(envs) > 0 || *accept != "" || *url != "" || len(headers) > 0 {
					return usageErr("--remove takes only the entry's name: mcpsum lock --lockfile %s --remove %s", quoteArg(*lockfilePath), quoteArg(*remove))
				}
				return a.removeEntry(*lockfilePath, *remove)
			}
			if err := checkTimeouts(*timeout, *start); err != nil {
				return err
			}
			a.strictShadow, a.accept = *strict, *accept
			if *accept != "" && !slices.Contains(acceptKinds, *accept) {
				return usageErr("--accept %s: the one kind lock can accept on its own is descriptive (wording only)", quoteArg(*accept))
			}
			opts := pin.Options{Lockfile: *lockfilePath, Timeout: time.Duration(*timeout) * time.Second,
				StartTimeout: time.Duration(*start) * time.Second, Note: a.noter("lock"), Authorize: a.authorizer("lock")}
			if *url != "" || len(headers) > 0 {
				if *accept != "" {
					return usageErr("--accept re-locks existing entries: give no --url (mcpsum lock --accept %s --name NAME)", *accept)
				}
				target, err := remoteTarget(*url, headers, envs, args)
				if err != nil {
					return err
				}
				return a.lockNew(ctx, *lockfilePath, *name, target, opts)
			}
			if len(args) == 0 {
				if len(envs) > 0 {
					return usageErr("--env applies to a new entry: give the server command after --")
				}
				return a.relock(ctx, *lockfilePath, *name, opts)
			}
			if *accept != "" {
				return usageErr("--accept re-locks existing entries: give no command (mcpsum lock --accept %s --name NAME)", *accept)
			}
			return a.lockCommandEntry(ctx, *lockfilePath, *name, envs, args, opts)
		},
	}
}

// lockCommandEntry adds or replaces one entry with an explicit command.
func (a *app) lockCommandEntry(ctx context.Context, path, name string, envs, command []string, opts pin.Options) error {
	for _, e := range envs {
		if !lockfile.ValidEnvName(e) {
			return usageErr("--env %s: give the name of an environment variable, not its value", quoteArg(e))
		}
		if _, ok := os.LookupEnv(e); !ok {
			fmt.Fprintf(a.stderr, "lock: note: %s is not set here; the server will start without it\n", e)
		}
	}
	slices.Sort(envs)
	envs = slices.Compact(envs)
	return a.lockNew(ctx, path, name, &lockfile.Server{Command: command, EnvPassthrough: envs}, opts)
}

// lockNew adds or replaces one entry with an explicit target (a command, or
// a remote server's URL).
func (a *app) lockNew(ctx context.Context, path, name string, target *lockfile.Server, opts pin.Options) error {
	if name == "" {
		return usageErr("lock needs --name for the new entry (the name you will pass to proxy and verify)")
	}
	if err := lockfile.ValidName(name); err != nil {
		return usageErr("--name %s: %v", quoteArg(name), err)
	}
	// Keep the locked era and policy of an entry locked with the same target.
	prefer := ""
	var policy *lockfile.Policy
	old, err := lockfile.Load(path)
	broken, replaced := "", ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case brokenEntry(err, name):
		// The explicit recovery: this entry is replaced by the fresh lock
		// below if every other entry is valid (checked when writing).
		broken = brokenProblem(err)
		fmt.Fprintf(a.stderr, "lock: %s: the entry in %s is broken (%s); locking it afresh to replace it\n", name, path, brokenProblem(err))
	case err != nil:
		return err
	default:
		if e := old.Servers[name]; e != nil {
			policy = e.Policy
			if e.Remote() == target.Remote() && slices.Equal(e.Command, target.Command) && e.URL == target.URL {
				prefer = e.Era()
			} else {
				replaced = fmt.Sprintf("lock: %s: replaced the locked %s\n", name, replacedTarget(e, target))
			}
			if !e.Remote() && !target.Remote() && !slices.Equal(e.EnvPassthrough, target.EnvPassthrough) {
				replaced += fmt.Sprintf("lock: %s: envPassthrough was [%s], now [%s]\n", name, strings.Join(e.EnvPassthrough, ", "), strings.Join(target.EnvPassthrough, ", "))
			}
		}
	}
	if policy != nil && policy.Sandbox != nil && target.Remote() {
		return usageErr("%s: the entry has a sandbox policy, and a remote server has no process to confine: remove policy.sandbox from the entry in %s first", name, path)
	}
	target.Policy = policy
	p := newProgress(a.stderr, []string{name})
	entry, err := pin.LockTarget(ctx, name, target, prefer, opts)
	p.done(name, entry, err)
	p.stop()
	if err != nil {
		return withCode(err, fmt.Errorf("lock failed for %s; %s", name, untouched(path)))
	}
	if err := a.checkLog(ctx, "lock", map[string]*lockfile.Server{name: entry}); err != nil {
		return fmt.Errorf("%w\n%s", err, untouched(path))
	}
	if broken != "" {
		return a.replaceBroken(path, name, entry, broken)
	}
	if err := a.write(path, old, map[string]*lockfile.Server{name: entry}); err != nil {
		return err
	}
	fmt.Fprint(a.stderr, replaced)
	return nil
}

// brokenEntry reports whether err is entry name failing to parse or to
// match its digests (and nothing else wrong with the file).
func brokenEntry(err error, name string) bool {
	var ie *lockfile.IntegrityError
	var fe *lockfile.FormatError
	return errors.As(err, &ie) && ie.Server == name || errors.As(err, &fe) && fe.Server == name
}

// brokenProblem is what is wrong with a broken entry, without the advice
// the error gives a user who has not started the recovery yet.
func brokenProblem(err error) string {
	var ie *lockfile.IntegrityError
	var fe *lockfile.FormatError
	switch {
	case errors.As(err, &ie):
		return ie.Problem()
	case errors.As(err, &fe):
		return fe.Problem()
	}
	return err.Error()
}

// replaceBroken writes entry in place of the broken entry name, when every
// other entry is valid, and says what it discarded. first is the problem
// reported when the lock started.
func (a *app) replaceBroken(path, name string, entry *lockfile.Server, first string) error {
	var shadows []review.Shadow
	var refused error
	discarded, err := lockfile.UpdateDiscarding(path, name, func(f *lockfile.File) error {
		f.Servers[name] = entry
		f.Generator = "mcpsum " + moduleVersion()
		shadows = a.shadowsOf(f, map[string]*lockfile.Server{name: entry})
		refused = a.strictShadows(shadows)
		return refused
	})
	if err != nil {
		if refused != nil {
			return refused // --strict refused the shadowing; it says so itself
		}
		return fmt.Errorf("%w (the broken entry %s can only be replaced when every other entry is valid; %s)", err, name, untouched(path))
	}
	if discarded != nil {
		fmt.Fprintf(a.stderr, "lock: %s: discarded the broken entry (its command, surface and any policy are gone; 'git diff HEAD -- %s' shows them)\n", name, quoteArg(path))
		if p := brokenProblem(discarded); p != first {
			// The file changed between the two reads: say what was discarded.
			fmt.Fprintf(a.stderr, "lock: %s: the discarded entry: %s\n", name, p)
		}
	}
	fmt.Fprintf(a.stderr, "lock: wrote %s\n", path)
	a.printLockWarnings(path, map[string]*lockfile.Server{name: entry}, shadows)
	return nil
}

// relock re-pins existing entries with their locked command, in parallel.
// The servers that lock are written even when others fail: one dead server
// does not hold back the rest; the failed ones keep their entry and the
// error names them.
func (a *app) relock(ctx context.Context, path, name string, opts pin.Options) error {
	f, err := lockfile.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return noLockfile(path, name)
	}
	if err != nil {
		return err
	}
	names, err := selectServers(f, path, name)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageErr("%s has no servers yet: add one with mcpsum lock --lockfile %s --name NAME -- COMMAND [ARG]...", path, quoteArg(path))
	}
	p := newProgress(a.stderr, names)
	results := pin.Each(ctx, names, func(ctx context.Context, n string) (*lockfile.Server, error) {
		e := f.Servers[n]
		entry, err := pin.LockTarget(ctx, n, e, e.Era(), opts)
		p.done(n, entry, err)
		return entry, err
	})
	p.stop()
	entries := map[string]*lockfile.Server{}
	var failed []string
	for i, r := range results {
		if r.Err != nil {
			failed = append(failed, names[i])
			continue
		}
		entries[names[i]] = r.Entry
	}
	if err := a.acceptOnly(path, f, entries); err != nil {
		return err
	}
	if err := a.checkLog(ctx, "lock", entries); err != nil {
		return fmt.Errorf("%w\n%s", err, untouched(path))
	}
	if len(failed) == 0 {
		return a.write(path, f, entries)
	}
	kept := untouched(path)
	if len(entries) > 0 {
		if err := a.write(path, f, entries); err != nil {
			return err
		}
		kept = "their entries were left as they were; the others were re-locked"
	}
	return withCode(results[slices.Index(names, failed[0])].Err,
		fmt.Errorf("lock failed for %s (see above); %s. Once it starts again: mcpsum lock --lockfile %s --name %s; or, if it is gone for good: mcpsum lock --lockfile %s --remove %s",
			strings.Join(failed, ", "), kept, quoteArg(path), quoteArg(failed[0]), quoteArg(path), quoteArg(failed[0])))
}

// write merges entries into the lockfile under its file lock, keeping each
// server's policy and printing the taint labels that had to be dropped.
// loaded is the file as read before the servers ran (nil if none): unless
// it changed meanwhile, it is not parsed again.
func (a *app) write(path string, loaded *lockfile.File, entries map[string]*lockfile.Server) error {
	shadows, err := a.writeEntries(path, loaded, entries)
	if err != nil {
		return err
	}
	a.printLockWarnings(path, entries, shadows)
	return nil
}

// writeEntries is write without the warnings; it returns the shadowing
// (pkg/review) between the entries written and the lock's other servers.
func (a *app) writeEntries(path string, loaded *lockfile.File, entries map[string]*lockfile.Server) ([]review.Shadow, error) {
	var notes []string
	var shadows []review.Shadow
	err := lockfile.UpdateFrom(path, loaded, func(f *lockfile.File) error {
		notes = notes[:0]
		for n, e := range entries {
			if old := f.Servers[n]; old != nil {
				keepLogProof(old, e)
				if old.Era() != e.Era() {
					notes = append(notes, fmt.Sprintf("lock: %s: the protocol era changed from %s (%s) to %s (%s); the entry now records the new era", n, old.Era(), old.ProtocolVersion, e.Era(), e.ProtocolVersion))
				}
				for _, d := range lockfile.KeepPolicy(old, e) {
					notes = append(notes, fmt.Sprintf("lock: %s: dropped taint label %s: the tool no longer exists (label its new name again if it was renamed)", n, d))
				}
			}
			f.Servers[n] = e
		}
		f.Generator = "mcpsum " + moduleVersion()
		shadows = a.shadowsOf(f, entries)
		return a.strictShadows(shadows)
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(notes)
	for _, n := range notes {
		fmt.Fprintln(a.stderr, n)
	}
	fmt.Fprintf(a.stderr, "lock: wrote %s\n", path)
	return shadows, nil
}

// defaultTimeoutSecs and defaultStartTimeoutSecs: each answer, and the
// start-up allowance (until the server's first line on stdout; a cold npx
// download took up to ~60 s on CI runners).
const (
	defaultTimeoutSecs      = 30
	defaultStartTimeoutSecs = 60
)

func startTimeoutFlag(fs *flag.FlagSet) *int {
	return fs.Int("start-timeout-secs", defaultStartTimeoutSecs, "seconds a server may take from its start to its first answer (a first npx run downloads the package)")
}

func checkTimeouts(timeout, start int) error {
	if timeout <= 0 {
		return usageErr("--timeout-secs must be positive, got %d", timeout)
	}
	if start <= 0 {
		return usageErr("--start-timeout-secs must be positive, got %d", start)
	}
	return nil
}

// noter returns a pin.Options.Note that prints "cmd: note: server: msg".
func (a *app) noter(cmd string) func(server, msg string) {
	var mu sync.Mutex
	return func(server, msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(a.stderr, "%s: note: %s: %s\n", cmd, server, msg)
	}
}

// untouched says what a failed lock did to the lockfile: nothing.
func untouched(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "nothing was written"
	}
	return path + " was left untouched"
}
