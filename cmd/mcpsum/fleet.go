package main

import (
	"cmp"
	"context"
	"flag"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/fleet"
	"github.com/mcpsum/mcpsum/internal/importer"
)

// fleetCmd is fleet's subcommand sub (its help is fleet.Help(sub)) running exec.
func (a *app) fleetCmd(sub, short string, fs *flag.FlagSet, subs []*ffcli.Command, exec func(context.Context, []string) error) *ffcli.Command {
	h := fleet.Help(sub)
	return &ffcli.Command{Name: cmp.Or(sub, "fleet"), ShortUsage: h[0], ShortHelp: short, LongHelp: strings.TrimSpace(h[1]), FlagSet: fs, Subcommands: subs, Exec: exec}
}

func (a *app) fleetCommand() *ffcli.Command {
	return a.fleetCmd("", "put an organisation's lock on every machine and make each MCP client enforce it", a.flagSet("fleet"),
		[]*ffcli.Command{a.fleetSync(), a.fleetRelease(), a.fleetEmit(), a.fleetStatus()}, func(context.Context, []string) error {
			return usageHint("'mcpsum fleet -h' says what each does", "fleet needs a subcommand: sync, release, emit or status")
		})
}

func (a *app) fleetSync() *ffcli.Command {
	fs := a.flagSet("fleet sync")
	from := fs.String("from", "", "URL (https, or http to this machine) or file of the published org lock; its release statement and bundle are beside it")
	to := fs.String("to", fleet.DefaultLock, "where to install the org lock (root-owned; the trust file is beside it)")
	trust := fs.String("trust", "", "the trust file naming the org lock and the signers the organisation trusts (default: <to>.trust.json)")
	helper := attestHelperFlag(fs)
	return a.fleetCmd("sync", "install the organisation's signed lock, if it is newer", fs, nil, func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErr("usage: %s", fleet.Help("sync")[0])
		}
		if *from == "" {
			return usageHint("'mcpsum fleet sync -h' explains it", "fleet sync needs --from URL|FILE: where the organisation publishes the org lock")
		}
		cfg, err := logConfig()
		if err != nil {
			return err
		}
		res, err := fleet.Sync(ctx, fleet.SyncOptions{From: *from, To: *to, Trust: *trust, Log: cfg,
			Helper: attestClient(*helper), Note: a.note("fleet sync")})
		return a.text(func() string { return res.Text() }, err)
	})
}

func (a *app) fleetRelease() *ffcli.Command {
	fs := a.flagSet("fleet release")
	lockfilePath := lockfileFlag(fs)
	name := fs.String("name", "", "the org lock's name (\"eng\"): the machines' trust files name the one they install")
	serial := fs.Int64("serial", 0, "the release's serial: higher than every earlier release of this lock (a CI run number, a date)")
	validFor := fs.String("valid-for", "30d", "how long machines accept the release (days \"30d\" or a duration \"12h\", at most 366d)")
	sf := registerSignerFlags(fs)
	helper := attestHelperFlag(fs)
	return a.fleetCmd("release", "sign a lock as the organisation's release N of an org lock", fs, nil, func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErr("usage: %s", fleet.Help("release")[0])
		}
		if *serial == 0 {
			return usageHint("'mcpsum fleet release -h' explains it", "fleet release needs --serial N: a whole number from 1, higher than every earlier release's of this org lock")
		}
		r, err := fleet.Publish(ctx, fleet.PublishOptions{Lockfile: *lockfilePath, Name: *name, Serial: *serial, ValidFor: *validFor, SignArgs: sf.args(),
			Helper: attestClient(*helper), Note: a.note("fleet release")})
		return a.text(func() string { return fleet.ReleasedText(*lockfilePath, r) }, err)
	})
}

// policyFlags registers how emit and status expect the policies to name mcpsum.
func policyFlags(fs *flag.FlagSet) *fleet.PolicyFlags {
	p := &fleet.PolicyFlags{}
	fs.StringVar(&p.Lockfile, "lockfile", fleet.DefaultLock, "the org lock, at the path every machine has it")
	fs.StringVar(&p.Mode, "mode", fleet.ModeArgv, "argv: admit the exact 'mcpsum proxy --lockfile ORG --name N'; url: admit mcpsum serve's /servers/N/mcp")
	fs.StringVar(&p.ServeURL, "serve-url", "", "with --mode url: where mcpsum serve answers, https://HOST[:PORT]")
	fs.StringVar(&p.Mcpsum, "mcpsum", "", "mcpsum's absolute path on the machines (default: this mcpsum)")
	return p
}

func (a *app) fleetEmit() *ffcli.Command {
	fs := a.flagSet("fleet emit")
	pf := policyFlags(fs)
	client := fs.String("client", "", "the client: "+strings.Join(fleet.ClientNames(), ", "))
	out := fs.String("out", "", "write the policy to this file instead of stdout")
	install := fs.Bool("install", false, "write the policy where the client reads its managed settings (as root)")
	return a.fleetCmd("emit", "write a client's own managed policy so that only the org lock's servers run, through mcpsum", fs, nil, func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErr("usage: %s", fleet.Help("emit")[0])
		}
		policy, err := fleet.Emit(fleet.EmitRequest{Client: *client, Policy: *pf, Self: importer.SelfPath, Out: *out, Install: *install,
			Env: fleet.LocalEnv(), Note: a.note("fleet emit")})
		return a.text(func() string { return string(policy) }, err)
	})
}

func (a *app) fleetStatus() *ffcli.Command {
	fs := a.flagSet("fleet status")
	pf := policyFlags(fs)
	var required stringList
	fs.Var(&required, "client", "a client whose policy must be in place (repeatable; default: check the ones present)")
	asJSON := fs.Bool("json", false, "print the report as JSON (docs/fleet-status.schema.json)")
	trust := fs.String("trust", "", "the trust file the installed release must be of (default: <lockfile>.trust.json, unchecked when missing there)")
	return a.fleetCmd("status", "report the installed org lock and whether each client's policy enforces it (for MDM)", fs, nil, func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErr("fleet status takes no arguments (got %q)", args[0])
		}
		r, err := fleet.StatusOf(*pf, importer.SelfPath, fleet.StatusOptions{Trust: *trust, Required: required, Env: fleet.LocalEnv(), Now: time.Now})
		if err != nil {
			return err
		} else if *asJSON {
			err = writeJSON(a.stdout, r)
		} else {
			err = a.text(r.Text, nil)
		}
		if err == nil && r.Drift {
			return silent{code: exitVerdict}
		}
		return err
	})
}
