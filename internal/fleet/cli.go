package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// What `mcpsum fleet` prints, and the checks of its options, as values the
// command writes (the library never prints).

// PolicyFlags are emit's and status's flags as given: how the policies
// should name mcpsum.
type PolicyFlags struct{ Lockfile, Mode, ServeURL, Mcpsum string }

// Options resolves the flags: the lock's absolute path, and in argv mode
// mcpsum's (self, when --mcpsum was not given), checked (a *UsageError).
func (p PolicyFlags) Options(self func() (string, error)) (EmitOptions, error) {
	lock, err := filepath.Abs(p.Lockfile)
	if err != nil {
		return EmitOptions{}, err
	}
	o := EmitOptions{Lockfile: lock, Mode: p.Mode, ServeURL: p.ServeURL, Mcpsum: p.Mcpsum}
	if o.Mcpsum == "" && o.Mode == ModeArgv {
		if o.Mcpsum, err = self(); err != nil {
			return o, err
		}
	}
	return o, o.Check()
}

// EmitRequest is one fleet emit: a client's policy for the org lock, on
// stdout, into Out, or installed where the client reads it.
type EmitRequest struct {
	Client  string
	Policy  PolicyFlags
	Self    func() (string, error) // this mcpsum's path (argv mode without --mcpsum)
	Out     string
	Install bool
	Env     Env
	Note    func(string) // says where --install wrote the policy
}

// Emit builds the client's policy for the org lock and writes it to Out or
// installs it; it returns the policy when it is for stdout (neither).
func Emit(req EmitRequest) (stdout []byte, err error) {
	c, ok := ClientByName(req.Client)
	if req.Client == "" {
		return nil, usage("fleet emit needs --client C, one of: %s", strings.Join(ClientNames(), ", "))
	}
	if !ok {
		return nil, usage("--client %s: unknown client; one of: %s", termtext.Quoted(req.Client, 40), strings.Join(ClientNames(), ", "))
	}
	if req.Out != "" && req.Install {
		return nil, usage("give --out or --install, not both")
	}
	o, err := req.Policy.Options(req.Self)
	if err != nil {
		return nil, err
	}
	f, err := lockfile.Load(o.Lockfile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, hint.Errorf("install it with 'mcpsum fleet sync', or name it with --lockfile", "no org lock at %s", quote(o.Lockfile))
	}
	if err != nil {
		return nil, err
	}
	es, err := Entries(f, o)
	if err != nil {
		return nil, err
	}
	policy, err := c.Emit(es, o.Mode)
	switch {
	case err != nil:
		return nil, err
	case req.Install:
		p, err := c.Install(policy, o, req.Env)
		if err != nil {
			return nil, err
		}
		if req.Note != nil {
			req.Note(fmt.Sprintf("wrote %s's policy to %s (%d server%s)", c.Title, p, len(es), plural(len(es))))
		}
		return nil, nil
	case req.Out != "":
		if err := statefile.WriteOutput(req.Out, policy, 0o644); err != nil {
			return nil, fmt.Errorf("writing --out: %w", err)
		}
		return nil, nil
	}
	return policy, nil
}

// StatusOf is Status of the org lock the flags name, checked against the
// policies as they describe them (o's Lockfile and Emit are set from them).
func StatusOf(pf PolicyFlags, self func() (string, error), o StatusOptions) (*Report, error) {
	eo, err := pf.Options(self)
	if err != nil {
		return nil, err
	}
	o.Lockfile, o.Emit = eo.Lockfile, eo
	return Status(o), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Text is the line fleet sync prints for what it did.
func (r *SyncResult) Text() string {
	until := "valid until " + r.Expires.UTC().Format(time.RFC3339)
	if !r.Changed {
		return fmt.Sprintf("unchanged  %s is release %d of %s (signed by %s; %s)\n", r.Path, r.Serial, r.Name, r.Signer, until)
	}
	was := "no release before"
	if r.Previous > 0 {
		was = fmt.Sprintf("was %d", r.Previous)
	}
	return fmt.Sprintf("installed  %s: release %d of %s (signed by %s; %s; %s)\n", r.Path, r.Serial, r.Name, r.Signer, was, until)
}

// ReleasedText is the line fleet release prints for r, released from the
// lock at path.
func ReleasedText(path string, r Release) string {
	return fmt.Sprintf("released  %s as %s %d (%s), valid until %s: publish it with %s%s and %s%s beside it\n",
		path, r.Name, r.Serial, r.Lockfile, r.Expires.Format(time.RFC3339), path, ReleaseSuffix, path, BundleSuffix)
}

// LocalEnv is this machine's: the clients' system paths as they are.
func LocalEnv() Env { return Env{GOOS: runtime.GOOS, Getenv: os.Getenv} }
