package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
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
		name:      fs.String("name", "", "verify only this server"),
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
definitional change is labelled with what kind it is: descriptive (wording
only), adds-destination, addresses-model, references-tool, hidden-text,
schema-widened, annotation-weakened, added, removed or changed. verify also
reports shadowing between the lock's servers (the same or a look-alike tool
or prompt name, text of one server naming another's tool): a warning, exit 1
with --strict. Exit 3 when
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
				return usageErr("verify takes no arguments (got %q); use --name to pick a server", args[0])
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

// serverResult is one server's verify outcome in its --json form (the
// text report reads the same struct).
type serverResult struct {
	Status          string           `json:"status"` // ok, informational, drift, error
	Era             string           `json:"era"`
	ProtocolVersion string           `json:"protocolVersion"`
	Error           string           `json:"error,omitempty"`
	Findings        []findingJSON    `json:"findings"`
	Seconds         float64          `json:"seconds"`
	Unpinned        []string         `json:"unpinned,omitempty"`    // kinds declared data (policy.unpinned): not drift
	DataChanges     []findingJSON    `json:"dataChanges,omitempty"` // how those kinds changed since the lock
	locked          *lockfile.Server `json:"-"`
	observed        *lockfile.Server `json:"-"`
	findings        []lockfile.Finding
}

type findingJSON struct {
	Class    string   `json:"class"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name,omitempty"`
	Change   string   `json:"change"`
	Fields   []string `json:"fields,omitempty"`
	Locked   string   `json:"locked"`
	Observed string   `json:"observed"`
	Labels   []string `json:"labels"`        // what kind of change (pkg/review); never empty
	Why      []string `json:"why,omitempty"` // what fired, server text escaped
}

// shadowJSON is one shadowing finding between two servers of the lock.
type shadowJSON struct {
	Rule    string    `json:"rule"` // tool-shadowing or cross-reference
	Kind    string    `json:"kind"`
	Servers [2]string `json:"servers"`
	Names   [2]string `json:"names"`
	How     string    `json:"how,omitempty"`
	Message string    `json:"message"`
}

type verifyResult struct {
	Lockfile string                   `json:"lockfile"`
	Strict   bool                     `json:"strict"`
	ExitCode int                      `json:"exitCode"`
	Servers  map[string]*serverResult `json:"servers"`
	// Shadowing between the lock's servers (a warning; exit 1 with --strict).
	Shadowing []shadowJSON `json:"shadowing"`
	order     []string
}

func (a *app) verifyServers(ctx context.Context, v verifyFlags) (ret error) {
	data, f, err := readCheckedLock(*v.lockfile) // one read: SARIF locations point into exactly the bytes checked
	if err != nil {
		return err
	}
	names, err := selectServers(f, *v.lockfile, *v.name)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%s has no servers: nothing to verify (add one with mcpsum lock --lockfile %s --name NAME -- COMMAND [ARG]...)", *v.lockfile, quoteArg(*v.lockfile))
	}
	opts := pin.Options{Lockfile: *v.lockfile, Timeout: time.Duration(*v.timeout) * time.Second, StartTimeout: time.Duration(*v.start) * time.Second, Note: a.noter("verify")}
	rep := pin.Verify(ctx, f, names, *v.strict, opts)
	code := outcomeExit(rep.Outcome())
	// The report first: a --sarif-file that cannot be written must not cost
	// the user the verdict of servers already run.
	defer func() {
		if *v.sarifFile == "" {
			return
		}
		if err := writeSARIFFile(*v.sarifFile, rep, data); err != nil {
			fmt.Fprintf(a.stderr, "mcpsum: %v\n", err)
			if code != exitVerdict { // drift wins, as for a server that failed
				code = exitUndecided
			}
			ret = silent{code: code}
		}
	}()
	switch *v.format {
	case "json":
		if err := writeJSON(a.stdout, verifyJSON(rep, code)); err != nil {
			return err
		}
	case "sarif":
		if err := writeSARIF(a.stdout, rep, data); err != nil {
			return err
		}
	default:
		printVerify(a.stdout, verifyJSON(rep, code), isTerminal(a.stdout))
	}
	return silent{code: code}
}

// outcomeExit maps a report's verdict to the exit code.
func outcomeExit(o pin.Outcome) int {
	switch o {
	case pin.Fail:
		return exitVerdict
	case pin.Undecided:
		return exitUndecided
	}
	return exitOK
}

// verifyJSON is the report in its --json shape (also read by the text report).
func verifyJSON(rep *pin.Report, code int) *verifyResult {
	res := &verifyResult{Lockfile: rep.Lockfile, Strict: rep.Strict, ExitCode: code, Servers: map[string]*serverResult{}, Shadowing: []shadowJSON{}}
	for _, sh := range rep.Shadowing {
		res.Shadowing = append(res.Shadowing, shadowJSON{sh.Rule, sh.Kind, sh.Servers, sh.Names, sh.How, sh.String()})
	}
	for _, s := range rep.Servers {
		r := &serverResult{Status: s.Status, Era: s.Locked.Era(), ProtocolVersion: s.Locked.ProtocolVersion,
			Findings: []findingJSON{}, Seconds: s.Took.Round(time.Millisecond).Seconds(),
			locked: s.Locked, observed: s.Observed, findings: s.Findings}
		if s.Locked.Policy != nil {
			r.Unpinned = s.Locked.Policy.Unpinned
			if s.Observed != nil {
				for _, fd := range lockfile.DataChanges(s.Locked, s.Observed) {
					r.DataChanges = append(r.DataChanges, findingJSON{"data", fd.Kind, fd.Name, fd.Change, fd.Fields, fd.Locked, fd.Observed, []string{"data"}, nil})
				}
			}
		}
		if s.Error != nil {
			r.Error = s.Error.Error()
		}
		for _, fd := range s.Findings {
			r.Findings = append(r.Findings, findingJSON{fd.Class.String(), fd.Kind, fd.Name, fd.Change, fd.Fields, fd.Locked, fd.Observed, fd.Labels, fd.Why})
		}
		res.Servers[s.Name] = r
		res.order = append(res.order, s.Name)
	}
	return res
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
		f, err := loadLock(p)
		if err != nil {
			fmt.Fprintf(a.stdout, "FAIL   %s: %v\n", quoteArg(p), err)
			if firstErr == nil || exitCode(err) == exitVerdict {
				firstErr = err
			}
			continue
		}
		fmt.Fprintf(a.stdout, "ok     %s: %d servers, every digest matches (offline: no server was started)\n", quoteArg(p), len(f.Servers))
		if err := a.verifyLogProofs(p, f); err != nil && (firstErr == nil || exitCode(err) == exitVerdict) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return silent{code: exitCode(firstErr)}
	}
	return nil
}
