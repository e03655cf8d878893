package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

type verifyFlags struct {
	lockfile, name *string
	strict, asJSON *bool
	timeout, start *int
	sig            sigFlags
}

func (a *app) verifyCommand() *ffcli.Command {
	fs := a.flagSet("verify")
	v := verifyFlags{
		lockfile: lockfileFlag(fs),
		name:     fs.String("name", "", "verify only this server"),
		strict:   fs.Bool("strict", false, "treat informational drift (serverInfo, capabilities, versions) as failure"),
		asJSON:   fs.Bool("json", false, "print one machine-readable result object on stdout"),
		timeout:  fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started"),
		start:    startTimeoutFlag(fs),
		sig:      registerSigFlags(fs, "signature", "check this Sigstore bundle over the lockfile instead of running servers"),
	}
	return &ffcli.Command{
		Name:       "verify",
		ShortUsage: "mcpsum verify [--lockfile F] [--name N] [--strict] [--json] [--timeout-secs S] [--start-timeout-secs S]\n  or   mcpsum verify [--lockfile F] --signature B (--key PUB | --certificate-identity I --certificate-oidc-issuer O) [--trusted-root R]",
		ShortHelp:  "re-check servers (or a signature) against mcp.lock; the CI gate",
		LongHelp: strings.TrimSpace(`
verify loads mcp.lock (checking its digests first), runs every server (or just
N) with its locked command in its locked era, lists its surface again and
compares. Servers run in parallel. It never writes the lockfile.

Exit 1 on definitional drift (a tool, prompt, resource or template added,
removed or changed; instructions; the protocol era), and on informational
drift (serverInfo, capabilities, protocol versions) with --strict. Exit 3 when
a server cannot be started or does not answer (unless another server drifted:
drift wins, exit 1). --json prints one result object for CI bots.

With --signature, verify checks a Sigstore bundle over the exact bytes of the
lockfile and the lockfile's own digests, without running any server.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("verify takes no arguments (got %q); use --name to pick a server", args[0])
			}
			if *v.sig.bundle != "" {
				return a.verifySignature(*v.lockfile, v.sig)
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

// serverResult is one server's verify outcome (also its --json form).
type serverResult struct {
	Status          string           `json:"status"` // ok, informational, drift, error
	Era             string           `json:"era"`
	ProtocolVersion string           `json:"protocolVersion"`
	Error           string           `json:"error,omitempty"`
	Findings        []findingJSON    `json:"findings"`
	Seconds         float64          `json:"seconds"`
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
}

type verifyResult struct {
	Lockfile string                   `json:"lockfile"`
	Strict   bool                     `json:"strict"`
	ExitCode int                      `json:"exitCode"`
	Servers  map[string]*serverResult `json:"servers"`
	order    []string
}

func (a *app) verifyServers(ctx context.Context, v verifyFlags) error {
	f, err := loadLock(*v.lockfile)
	if err != nil {
		return err
	}
	names, err := selectServers(f, *v.lockfile, *v.name)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%s has no servers: nothing to verify (add one with mcpsum lock --lockfile %s --name NAME -- COMMAND)", *v.lockfile, quoteArg(*v.lockfile))
	}
	opts := pin.Options{Lockfile: *v.lockfile, Timeout: time.Duration(*v.timeout) * time.Second, StartTimeout: time.Duration(*v.start) * time.Second, Note: a.noter("verify")}
	res := &verifyResult{Lockfile: *v.lockfile, Strict: *v.strict, Servers: map[string]*serverResult{}, order: names}
	obs := parallel(ctx, names, func(ctx context.Context, n string) (*lockfile.Server, error) {
		return pin.Observe(ctx, n, f.Servers[n], opts)
	})
	for i, n := range names {
		res.Servers[n] = classify(f.Servers[n], obs[i], *v.strict)
	}
	res.ExitCode = res.exitCode()
	if *v.asJSON {
		if err := writeJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		printVerify(a.stdout, res, isTerminal(a.stdout))
	}
	return silent{code: res.ExitCode}
}

func classify(locked *lockfile.Server, o result, strict bool) *serverResult {
	r := &serverResult{Era: locked.Era(), ProtocolVersion: locked.ProtocolVersion, locked: locked, Findings: []findingJSON{}, Seconds: o.took.Round(time.Millisecond).Seconds()}
	var dropped *pin.VersionDroppedError
	switch {
	case errors.As(o.err, &dropped):
		supported, _ := json.Marshal(dropped.Supported)
		r.findings = []lockfile.Finding{{Class: lockfile.Definitional, Kind: lockfile.KindVersionDropped,
			Change: lockfile.Removed, Locked: dropped.Locked, Observed: string(supported)}}
	case o.err != nil:
		r.Status, r.Error = "error", o.err.Error()
		return r
	default:
		r.observed = o.entry
		r.findings = lockfile.Compare(locked, o.entry)
	}
	r.Status = "ok"
	for _, fd := range r.findings {
		r.Findings = append(r.Findings, findingJSON{fd.Class.String(), fd.Kind, fd.Name, fd.Change, fd.Fields, fd.Locked, fd.Observed})
		switch {
		case fd.Class == lockfile.Definitional:
			r.Status = "drift"
		case r.Status == "ok":
			r.Status = "informational"
		}
	}
	return r
}

// exitCode: drift beats could-not-decide beats ok.
func (v *verifyResult) exitCode() int {
	code := exitOK
	for _, s := range v.Servers {
		switch {
		case s.Status == "drift", s.Status == "informational" && v.Strict:
			return exitVerdict
		case s.Status == "error":
			code = exitUndecided
		}
	}
	return code
}
