package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// Exit codes of monitor --once (besides 2 usage): nothing new, a log that
// is not consistent with what the monitor checked before (a security
// verdict, as everywhere in mcpsum), the log could not be read, new records
// for watched keys.
const (
	monNothing      = 0
	monInconsistent = 1
	monUnreachable  = 3
	monNew          = 4
)

// runMonitor: mcpsum-log monitor --log "KEY URL" [--watch PATTERN]... [--json] [--once].
func runMonitor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, _, _ := flags("monitor", stderr, false)
	logFlag := fs.String("log", os.Getenv("MCPSUMDB"), `the log to follow: "VERIFIER-KEY URL" (as MCPSUMDB)`)
	var watch names
	fs.Var(&watch, "watch", "report new records whose ECOSYSTEM/PACKAGE matches this glob (repeatable; as MCPSUM_NOSUMDB's patterns; default: every record)")
	asJSON := fs.Bool("json", false, "one JSON object per line on stdout")
	once := fs.Bool("once", false, "check up to the current checkpoint and exit (0 nothing new, 4 new records, 1 inconsistent, 3 unreachable)")
	policy := fs.String("witness-policy", os.Getenv("MCPSUM_WITNESS_POLICY"), "accept only checkpoints this witness policy's quorum cosigned")
	state := fs.String("state", "", "file holding the last checkpoint checked (default: in mcpsum's state folder, per log)")
	every := fs.Int("interval-secs", 60, "without --once: seconds between checks")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *logFlag == "" || fs.NArg() > 0 || *every < 1 {
		fmt.Fprint(stderr, "mcpsum-log monitor: want --log \"VERIFIER-KEY URL\" [--watch PATTERN]... [--json] [--once]\n")
		return 2
	}
	cfg, err := sumdb.ParseConfig(*logFlag, "")
	if err != nil || cfg == nil {
		fmt.Fprintf(stderr, "mcpsum-log monitor: --log: %v\n", err)
		return 2
	}
	if *policy != "" {
		data, err := safeio.ReadRegular(*policy, "witness policy", 1<<20)
		if err == nil {
			err = cfg.WithWitnesses(*policy, data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcpsum-log monitor: --witness-policy: %v\n", err)
			return 2
		}
	}
	if *state == "" {
		dir, err := statefile.Dir()
		if err != nil {
			return fail(stderr, "monitor", err)
		}
		sum := sha256.Sum256([]byte(cfg.VerifierKey))
		*state = filepath.Join(dir, "monitor", hex.EncodeToString(sum[:8]), "checkpoint")
	}
	m := &monitor{c: &sumdb.Client{Config: cfg}, watch: watch, json: *asJSON, state: *state, stdout: stdout, stderr: stderr}
	for {
		code := m.check(ctx)
		if *once || code == monInconsistent {
			return code
		}
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(time.Duration(*every) * time.Second):
		}
	}
}

type monitor struct {
	c      *sumdb.Client
	watch  []string
	json   bool
	state  string
	stdout io.Writer
	stderr io.Writer
}

// check follows the log once and reports what it found.
func (m *monitor) check(ctx context.Context) int {
	prev, err := safeio.ReadOwn(m.state, "last checked checkpoint", 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		prev, err = nil, nil
	}
	if err != nil {
		return m.problem(monUnreachable, err, nil)
	}
	found := 0
	step, err := m.c.Follow(ctx, prev, func(r sumdb.Logged) error {
		if len(m.watch) > 0 && !sumdb.MatchModule(m.watch, r.Key) {
			return nil
		}
		found++
		if m.json {
			return m.line(map[string]any{"event": "record", "index": r.Index, "key": r.Key, "module": sumdb.Module(r.Key), "surface": r.Surface})
		}
		_, err := fmt.Fprintf(m.stdout, "new     %s %s (record %d)\n", termtext.Quoted(r.Key, 300), r.Surface, r.Index)
		return err
	})
	if err != nil {
		if sumdb.IsSecurity(err) {
			return m.problem(monInconsistent, err, step)
		}
		return m.problem(monUnreachable, err, nil)
	}
	if err := statefile.MkdirPrivate(filepath.Dir(m.state)); err != nil {
		return m.problem(monUnreachable, err, nil)
	}
	if err := statefile.WriteAtomic(m.state, step.New, statefile.WriteOptions{Perm: 0o600, Sync: true}); err != nil {
		return m.problem(monUnreachable, err, nil)
	}
	if m.json {
		m.line(map[string]any{"event": "checkpoint", "log": m.c.Config.URL, "from": step.From.N, "size": step.Tree.N, "new": found})
	} else {
		fmt.Fprintf(m.stderr, "monitor: %s: %d records (checked from %d): consistent; %d new %s\n", m.c.Config.URL, step.Tree.N, step.From.N, found, plural(found, "record"))
	}
	if found > 0 {
		return monNew
	}
	return monNothing
}

// problem reports a log that is inconsistent (with both signed checkpoints,
// the evidence to publish) or could not be read.
func (m *monitor) problem(code int, err error, step *sumdb.Step) int {
	if m.json {
		ev := map[string]any{"event": "unreachable", "log": m.c.Config.URL, "error": err.Error()}
		if code == monInconsistent {
			ev["event"] = "inconsistent"
			if step != nil {
				ev["checked"], ev["now"] = string(step.Old), string(step.New)
			}
		}
		m.line(ev)
		return code
	}
	fmt.Fprintf(m.stderr, "mcpsum-log monitor: %v\n", err) // a rollback or fork error carries both signed checkpoints
	return code
}

func (m *monitor) line(v map[string]any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = m.stdout.Write(append(termtext.InertJSON(b), '\n'))
	return err
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
