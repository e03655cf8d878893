package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/verify"
)

type verifyFlags struct {
	lockfile, name, format, sarifFile *string
	strict, asJSON, offline           *bool
	timeout, start                    *int
	sig                               sigFlags
}

func (a *app) verifyCommand() *ffcli.Command {
	fs := a.flagSet("verify")
	v := verifyFlags{
		lockfile:  lockfileFlag(fs),
		name:      cli.NameVar(fs, "name", "verify only this server"),
		strict:    fs.Bool("strict", false, "treat informational drift (serverInfo, capabilities, versions) and shadowing between servers as failure"),
		asJSON:    fs.Bool("json", false, "print one machine-readable result object on stdout (same as --format json)"),
		format:    fs.String("format", "text", "how to print the result: text, json or sarif (SARIF 2.1.0, for code scanning)"),
		sarifFile: fs.String("sarif-file", "", "also write the result as SARIF 2.1.0 to this file"),
		offline:   fs.Bool("offline", false, "check only the lockfile's own integrity (digests, format, policy); start no server"),
		timeout:   fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started"),
		start:     startTimeoutFlag(fs),
		sig:       registerSigFlags(fs, "signature", "check this Sigstore bundle over the lockfile instead of running servers"),
	}
	return &ffcli.Command{
		Name:       "verify",
		ShortUsage: "mcpsum verify [--lockfile F] [--name N] [--strict] [--format text|json|sarif] [--sarif-file F] [--timeout-secs S] [--start-timeout-secs S]\n  or   mcpsum verify --offline [--lockfile F | LOCKFILE...]\n  or   mcpsum verify [--lockfile F] --signature B (--key PUB | --certificate-identity I --certificate-oidc-issuer O) [--trusted-root R]",
		ShortHelp:  "re-check servers (or a signature) against mcp.lock; the CI gate",
		LongHelp: strings.TrimSpace(`
verify loads mcp.lock (checking its digests first), runs every server (or just
N) with its locked command in its locked era, lists its surface again and
compares. Servers run in parallel. It never writes the lockfile.

Exit 1 on definitional drift (a tool, prompt, resource or template added,
removed or changed; instructions; the protocol era), and on informational
drift (serverInfo, capabilities, protocol versions) with --strict. Each
definitional change is labelled with what kind it is, most dangerous
first: hidden-text, addresses-model, sensitive-data, adds-destination,
references-tool, schema-widened, annotation-weakened, added, changed,
reworded (new words), removed or descriptive (only case, punctuation,
reordering or deleted words). The report starts with a summary: each
server's changes counted by label, then every change indexed under its most
dangerous label. verify also reports shadowing between the lock's servers
(the same or a look-alike tool or prompt name, text of one server naming
another's tool in any spelling): a warning, exit 1 with --strict. Exit 3 when
a server cannot be started or does not answer (unless another server drifted:
drift wins, exit 1). --format json (or --json) prints one result object for
CI bots; --format sarif prints SARIF 2.1.0 for code scanning, each result at
the server's entry or item in mcp.lock (--sarif-file writes it beside the
text report).

With --offline, verify starts no server: it checks that each lockfile (the
arguments, or --lockfile) parses and matches its own digests, and with
MCPSUMDB set, that each stored transparency-log proof (logProof) proves the
entry's record under the log's key, with no network. Exit 1 when a digest
or a proof does not match, 3 when a file is malformed or missing. This is
the pre-commit hook.

With --signature, verify checks a Sigstore bundle over the exact bytes of the
lockfile and the lockfile's own digests, without running any server.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if *v.offline {
				return a.verifyOffline(*v.lockfile, args, v)
			}
			if len(args) > 0 {
				return usageHint("use --name to pick a server", "verify takes no arguments (got %q)", args[0])
			}
			if *v.asJSON {
				if *v.format != "text" && *v.format != "json" {
					return usageErr("--json and --format %s disagree; give one", quoteArg(*v.format))
				}
				*v.format = "json"
			}
			if !slices.Contains([]string{"text", "json", "sarif"}, *v.format) {
				return usageErr("--format %s: want text, json or sarif", quoteArg(*v.format))
			}
			if *v.sig.bundle != "" {
				return a.verifySignature(ctx, *v.lockfile, v.sig)
			}
			if v.sig.any() {
				return usageErr("--key, --certificate-identity, --certificate-oidc-issuer and --trusted-root need --signature")
			}
			if err := checkTimeouts(*v.timeout, *v.start); err != nil {
				return err
			}
			return a.verifyServers(ctx, v)
		},
	}
}

func (a *app) verifyServers(ctx context.Context, v verifyFlags) (ret error) {
	opts := launch.Options{Lockfile: *v.lockfile, Timeout: time.Duration(*v.timeout) * time.Second, StartTimeout: time.Duration(*v.start) * time.Second, Note: a.noter("verify")}
	rep, data, err := verify.Lockfile(ctx, *v.name, *v.strict, opts)
	if err != nil {
		return err
	}
	code := outcomeExit(rep.Outcome())
	// The report first: a --sarif-file that cannot be written must not cost
	// the user the verdict of servers already run.
	defer func() {
		if *v.sarifFile == "" {
			return
		}
		if err := rep.WriteSARIFFile(*v.sarifFile, data, code, moduleVersion()); err != nil {
			printErr(a.stderr, err)
			if code != exitVerdict { // drift wins, as for a server that failed
				code = exitUndecided
			}
			ret = silent{code: code}
		}
	}()
	out := &cli.Lines{W: a.stdout} // whole lines, not one write per line
	if err := rep.Write(out, *v.format, isTerminal(a.stdout), data, code, moduleVersion()); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	return silent{code: code}
}

// verifyOffline checks lockfiles without starting servers (the pre-commit hook).
func (a *app) verifyOffline(lockPath string, args []string, v verifyFlags) error {
	if *v.name != "" || *v.strict || *v.asJSON || *v.format != "text" || *v.sarifFile != "" || *v.sig.bundle != "" || v.sig.any() {
		return usageErr("--offline checks lockfiles only; it takes no --name, --strict, --json, --format, --sarif-file or signature flags")
	}
	paths := args
	if len(paths) == 0 {
		paths = []string{lockPath}
	}
	var firstErr error
	for _, p := range paths {
		if err := verify.Offline(a.stdout, p, logConfig); err != nil && (firstErr == nil || exitCode(err) == exitVerdict) {
			firstErr = err // a verdict wins over a file that could not be checked
		}
	}
	if firstErr != nil {
		return silent{code: exitCode(firstErr)}
	}
	return nil
}

// verifySignature checks a Sigstore bundle over the lockfile's exact bytes.
func (a *app) verifySignature(ctx context.Context, lockPath string, s sigFlags) error {
	r, _, err := s.check(ctx, lockPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "ok     %s (%s) is signed by %s; its digests match\n", lockPath, r.Digest, describeSigner(r))
	return nil
}
