package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/fleet"
	"github.com/mcpsum/mcpsum/internal/importer"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func (a *app) fleetCommand() *ffcli.Command {
	return &ffcli.Command{
		Name:       "fleet",
		ShortUsage: "mcpsum fleet sync | release | emit | status",
		ShortHelp:  "put an organisation's lock on every machine and make each MCP client enforce it",
		LongHelp: strings.TrimSpace(`
An organisation releases its lock with 'fleet release' (a serial, signed);
every machine installs it with 'fleet sync' (a timer or an MDM script), has
each MCP client's own managed policy admit only the lock's servers through
mcpsum with 'fleet emit --install', and reports compliance with 'fleet
status'. See docs/fleet.md.`),
		FlagSet:     a.flagSet("fleet"),
		Subcommands: []*ffcli.Command{a.fleetSync(), a.fleetRelease(), a.fleetEmit(), a.fleetStatus()},
		Exec: func(ctx context.Context, args []string) error {
			return usageHint("'mcpsum fleet -h' says what each does", "fleet needs a subcommand: sync, release, emit or status")
		},
	}
}

func (a *app) fleetSync() *ffcli.Command {
	fs := a.flagSet("fleet sync")
	from := fs.String("from", "", "URL (https, or http to this machine) or file of the published org lock; its release statement and bundle are beside it")
	to := fs.String("to", fleet.DefaultLock, "where to install the org lock (root-owned; the trust file is beside it)")
	trust := fs.String("trust", "", "the trust file naming the signers the organisation trusts (default: <to>.trust.json)")
	helper := attestHelperFlag(fs)
	return &ffcli.Command{
		Name:       "sync",
		ShortUsage: "mcpsum fleet sync --from URL|FILE [--to PATH] [--trust FILE]",
		ShortHelp:  "install the organisation's signed lock, if it is newer",
		LongHelp: strings.TrimSpace(`
sync fetches the org lock, its release statement (ORG.release.json: a serial
and the lock's digest) and the statement's Sigstore bundle, and installs the
three atomically, mode 0644, at --to, only when a signer of the trust file
signed the statement, the lock is the one it names and matches its own
digests, its serial is higher than the installed one, and, with MCPSUMDB set,
every keyed entry's surface is the one the transparency log holds (a key the
log does not hold is refused too). Each refusal exits 1 and leaves the
installed lock as it was; syncing the installed serial again changes
nothing (exit 0).`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 || *from == "" {
				return usageErr("usage: mcpsum fleet sync --from URL|FILE [--to PATH]")
			}
			cfg, err := logConfig()
			if err != nil {
				return err
			}
			res, err := fleet.Sync(ctx, fleet.SyncOptions{From: *from, To: *to, Trust: *trust, Log: cfg,
				Helper: attestproto.Client{Helper: *helper, Version: moduleVersion()},
				Note:   func(s string) { fmt.Fprintf(a.stderr, "fleet sync: %s\n", s) }})
			if err != nil {
				return err
			}
			if !res.Changed {
				fmt.Fprintf(a.stdout, "unchanged  %s is release %d (signed by %s)\n", res.Path, res.Serial, res.Signer)
				return nil
			}
			was := "no release before"
			if res.Previous > 0 {
				was = fmt.Sprintf("was %d", res.Previous)
			}
			fmt.Fprintf(a.stdout, "installed  %s: release %d (signed by %s; %s)\n", res.Path, res.Serial, res.Signer, was)
			return nil
		},
	}
}

func (a *app) fleetRelease() *ffcli.Command {
	fs := a.flagSet("fleet release")
	lockfilePath := lockfileFlag(fs)
	serial := fs.Int64("serial", 0, "the release's serial: higher than every earlier release of this lock (a CI run number, a date)")
	sf := registerSignerFlags(fs)
	helper := attestHelperFlag(fs)
	return &ffcli.Command{
		Name:       "release",
		ShortUsage: "mcpsum fleet release [--lockfile F] --serial N [--key K]",
		ShortHelp:  "sign a lock as the organisation's release N",
		LongHelp: strings.TrimSpace(`
release checks the lockfile's digests, then writes its release statement
(<lockfile>.release.json: the serial and the SHA-256 of the lock's exact
bytes) and signs it like 'mcpsum sign' (keyless, or with --key) into
<lockfile>.release.json.sigstore.json. Publish the three files side by side
(a web server, a file share); machines install them with 'fleet sync'.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 || *serial == 0 {
				return usageErr("usage: mcpsum fleet release [--lockfile F] --serial N [--key K]")
			}
			r, err := fleet.Publish(ctx, fleet.PublishOptions{Lockfile: *lockfilePath, Serial: *serial, SignArgs: sf.args(),
				Helper: attestproto.Client{Helper: *helper, Version: moduleVersion()},
				Note:   func(s string) { fmt.Fprintf(a.stderr, "fleet release: %s\n", s) }})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "released  %s as %d (%s): publish it with %s%s and %s%s beside it\n",
				*lockfilePath, r.Serial, r.Lockfile, *lockfilePath, fleet.ReleaseSuffix, *lockfilePath, fleet.BundleSuffix)
			return nil
		},
	}
}

// policyFlags are how emit and status expect the policies to name mcpsum.
type policyFlags struct{ lockfile, mode, serveURL, mcpsum *string }

func registerPolicyFlags(fs *flag.FlagSet) policyFlags {
	return policyFlags{
		lockfile: fs.String("lockfile", fleet.DefaultLock, "the org lock, at the path every machine has it"),
		mode:     fs.String("mode", fleet.ModeArgv, "argv: admit the exact 'mcpsum proxy --lockfile ORG --name N'; url: admit mcpsum serve's /servers/N/mcp"),
		serveURL: fs.String("serve-url", "", "with --mode url: where mcpsum serve answers, https://HOST[:PORT]"),
		mcpsum:   fs.String("mcpsum", "", "mcpsum's absolute path on the machines (default: this mcpsum)"),
	}
}

// options reads the lock's absolute path and mcpsum's.
func (p policyFlags) options() (fleet.EmitOptions, error) {
	lock, err := filepath.Abs(*p.lockfile)
	if err != nil {
		return fleet.EmitOptions{}, err
	}
	o := fleet.EmitOptions{Lockfile: lock, Mode: *p.mode, ServeURL: *p.serveURL, Mcpsum: *p.mcpsum}
	if o.Mcpsum == "" && o.Mode == fleet.ModeArgv {
		if o.Mcpsum, err = importer.SelfPath(); err != nil {
			return o, err
		}
	}
	return o, o.Check()
}

func (a *app) fleetEmit() *ffcli.Command {
	fs := a.flagSet("fleet emit")
	pf := registerPolicyFlags(fs)
	client := fs.String("client", "", "the client: "+strings.Join(fleet.ClientNames(), ", "))
	out := fs.String("out", "", "write the policy to this file instead of stdout")
	install := fs.Bool("install", false, "write the policy where the client reads its managed settings (as root)")
	return &ffcli.Command{
		Name:       "emit",
		ShortUsage: "mcpsum fleet emit --client C [--mode argv|url] [--serve-url URL] [--lockfile ORG] [--out FILE | --install]",
		ShortHelp:  "write a client's own managed policy so that only the org lock's servers run, through mcpsum",
		LongHelp: strings.TrimSpace(`
emit reads the org lock (checking its digests) and prints the client's own
managed policy admitting exactly its servers: in argv mode each entry is the
exact command 'MCPSUM proxy --lockfile ORG --name N' (Claude Code, Copilot
and VS Code allowlists, Gemini CLI's system settings, Codex's
requirements.toml); in url mode it is mcpsum serve's SERVE/servers/N/mcp
(which needs mcpsum serve running there; Claude Desktop takes only these).
--install writes it where the client reads it (docs/fleet.md lists the
places); a file there holding other settings is left alone.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			c, ok := fleet.ClientByName(*client)
			if len(args) > 0 || !ok {
				return usageErr("usage: mcpsum fleet emit --client %s [--mode argv|url] [--out FILE | --install]", strings.Join(fleet.ClientNames(), "|"))
			}
			if *out != "" && *install {
				return usageErr("give --out or --install, not both")
			}
			o, err := pf.options()
			if err != nil {
				return err
			}
			f, err := lockfile.Load(o.Lockfile)
			if errors.Is(err, os.ErrNotExist) {
				return hint.Errorf("install it with 'mcpsum fleet sync', or name it with --lockfile", "no org lock at %s", quoteArg(o.Lockfile))
			}
			if err != nil {
				return err
			}
			es, err := fleet.Entries(f, o)
			if err != nil {
				return err
			}
			policy, err := c.Emit(es, o.Mode)
			switch {
			case err != nil:
				return err
			case *install:
				p, err := c.Install(policy, o, fleetEnv())
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "fleet emit: wrote %s's policy to %s (%d server%s)\n", c.Title, p, len(es), plural(len(es)))
				return nil
			case *out != "":
				if err := statefile.WriteOutput(*out, policy, 0o644); err != nil {
					return fmt.Errorf("writing --out: %w", err)
				}
				return nil
			}
			_, err = a.stdout.Write(policy)
			return err
		},
	}
}

func (a *app) fleetStatus() *ffcli.Command {
	fs := a.flagSet("fleet status")
	pf := registerPolicyFlags(fs)
	var required stringList
	fs.Var(&required, "client", "a client whose policy must be in place (repeatable; default: check the ones present)")
	asJSON := fs.Bool("json", false, "print the report as JSON (docs/fleet-status.schema.json)")
	return &ffcli.Command{
		Name:       "status",
		ShortUsage: "mcpsum fleet status [--lockfile ORG] [--mode argv|url] [--serve-url URL] [--client C]... [--json]",
		ShortHelp:  "report the installed org lock and whether each client's policy enforces it (for MDM)",
		LongHelp: strings.TrimSpace(`
status reports the installed org lock's release serial and signer, where and
when it was synced, the transparency-log checkpoint its surfaces were
checked against, whether it is still the lock its release names, and for
each client whether its managed policy is in place and admits exactly what
'fleet emit' with the same flags would. Exit 1 on drift (an edited lock, a
policy that admits more or less, a --client whose policy is missing), 0
otherwise.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("fleet status takes no arguments (got %q)", args[0])
			}
			o, err := pf.options()
			if err != nil {
				return err
			}
			r := fleet.Status(fleet.StatusOptions{Lockfile: o.Lockfile, Emit: o, Required: required, Env: fleetEnv()})
			if *asJSON {
				if err := writeJSON(a.stdout, r); err != nil {
					return err
				}
			} else {
				r.WriteText(a.stdout)
			}
			if r.Drift {
				return silent{code: exitVerdict}
			}
			return nil
		},
	}
}

// fleetEnv is this machine's: the clients' system paths as they are.
func fleetEnv() fleet.Env {
	return fleet.Env{GOOS: runtime.GOOS, Getenv: os.Getenv}
}
