package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Options are shared by every server start.
type Options struct {
	Lockfile string        // path of mcp.lock (protected from sandbox write paths)
	Timeout  time.Duration // per answer: probe, handshake and each list call
	// StartTimeout is the start-up allowance: how long after it was started
	// a server may take to write its first line on stdout (0: Timeout).
	StartTimeout time.Duration
	// InstallTimeout is how long installing a locked npx command's
	// package may take before its start (npxinstall.go); it is not part
	// of the start allowance (0: DefaultInstallTimeout).
	InstallTimeout time.Duration
	MaxLine        int       // stdout line limit; 0 = mcpspec.MaxMessage
	Stderr         io.Writer // raw copy of the server's stderr; nil = captured tail only
	// Note, if set, gets remarks about a server that do not fail it (for
	// example a list it advertised but answered with method-not-found). It
	// may be called from several goroutines at once.
	Note func(server, msg string)
	// Authorize, if set, shows the user an OAuth authorization URL (a
	// remote server that asks for a sign-in); nil: no interactive sign-in,
	// only kept tokens are used.
	Authorize func(server, authURL string) error
	// Step, if set, hears what is being done with a server while it runs
	// ("starting", "listing tools: 400 so far"): progress for a terminal.
	// It may be called from several goroutines at once.
	Step func(server, step string)
	// ClientMetadataURL is the Client ID Metadata Document mcpsum signs in
	// with where an authorization server supports them ("": dynamic
	// registration).
	ClientMetadataURL string
	// Era, when set (lockfile.EraLegacy or EraModern; lock --era), is the
	// one era a lock speaks to a server: no probe, no fallback to another
	// era, and a server that does not answer in it fails the lock with an
	// *EraRefusedError. "" detects the era (LOCKFILE.md, "Protocol era").
	Era string

	bearer string // an OAuth access token for a remote entry (signIn)
}

// stopGrace is how long a server gets to exit after its stdin closes.
const stopGrace = 2 * time.Second

// Start starts a locked entry: exactly entry.Command, only the variables
// named in entry.EnvPassthrough (plus PATH, HOME, TMPDIR), and the sandbox
// when the entry's policy asks for one, waiting until a sandboxed server is
// up and running the command, so a sandbox that cannot be built is reported
// as such. cleanup must run after the process has stopped.
func Start(name string, entry *lockfile.Server, opts Options) (*process.Process, func(), error) {
	if entry.Remote() {
		return nil, nil, fmt.Errorf("server %q is a remote server (%s): there is no process to start", name, entry.URL)
	}
	spec, ready, cleanup, err := launch(name, entry, opts)
	if err != nil {
		return nil, nil, err
	}
	p, err := process.Start(spec)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if ready != nil {
		if err := ready(); err != nil {
			p.Stop(stopGrace)
			cleanup()
			return nil, nil, err
		}
	}
	return p, cleanup, nil
}

func launch(name string, entry *lockfile.Server, opts Options) (process.Spec, func() error, func(), error) {
	dir, err := WorkDir(opts.Lockfile)
	if err != nil {
		return process.Spec{}, nil, nil, err // about the lockfile's folder, not the server
	}
	if entry.Policy == nil || entry.Policy.Sandbox == nil {
		if err := installNpx(name, entry, dir, opts); err != nil {
			return process.Spec{}, nil, nil, err
		}
	}
	spec := process.Spec{
		Argv:   entry.Command,
		Name:   entry.Command[0],
		Env:    process.Environ(entry.EnvPassthrough),
		Dir:    dir,
		Stderr: opts.Stderr,
	}
	if entry.Policy == nil || entry.Policy.Sandbox == nil {
		return spec, nil, func() {}, nil
	}
	return sandboxed(name, entry.Policy.Sandbox, spec, opts)
}

// WorkDir is the working directory of every server of the lockfile at
// lockPath ("" means mcp.lock): the lockfile's folder, wherever mcpsum itself
// was started. A relative path in a locked command ("./server", "python3
// server.py") therefore names the same file for lock, verify and the proxy.
func WorkDir(lockPath string) (string, error) {
	if lockPath == "" {
		lockPath = "mcp.lock"
	}
	abs, err := filepath.Abs(lockPath)
	if err != nil {
		return "", fmt.Errorf("working directory of the lockfile %q: %w", lockPath, err)
	}
	dir := filepath.Dir(abs)
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", hint.Wrap(fmt.Errorf("the lockfile's folder %s does not exist (it is the servers' working directory)", termtext.Quoted(dir, -1)),
			fmt.Sprintf("create it first: mkdir -p %s", termtext.ShellArg(dir)))
	}
	if err != nil {
		return "", fmt.Errorf("the lockfile's folder %s is the servers' working directory and cannot be used: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the lockfile's folder %s is not a directory", dir)
	}
	return dir, nil
}

// Program is the file a locked entry's argv[0] runs, resolved as Start
// resolves it (process.LookPath's rule, working directory WorkDir, the PATH
// the server gets). It is what `show` prints; it touches no server.
func Program(entry *lockfile.Server, lockPath string) (string, error) {
	dir, err := WorkDir(lockPath)
	if err != nil {
		return "", err
	}
	if len(entry.Command) == 0 {
		return "", fmt.Errorf("empty command")
	}
	return process.LookPath(entry.Command[0], process.Environ(entry.EnvPassthrough), dir)
}

// Entry turns what a server answered into a lock entry with digests.
func Entry(command, env []string, h *mcpwire.Hello, s *mcpwire.Surface) (*lockfile.Server, error) {
	return EntryFor(&lockfile.Server{Command: command, EnvPassthrough: env}, h, s)
}

// EntryFor is Entry for any target: target's command and envPassthrough,
// or its url and headers (a remote server).
func EntryFor(target *lockfile.Server, h *mcpwire.Hello, s *mcpwire.Surface) (*lockfile.Server, error) {
	e := &lockfile.Server{
		ProtocolVersion:   h.ProtocolVersion,
		ServerInfo:        h.ServerInfo,
		Instructions:      h.Instructions,
		Capabilities:      h.Capabilities,
		Tools:             s.Tools,
		Prompts:           s.Prompts,
		Resources:         s.Resources,
		ResourceTemplates: s.ResourceTemplates,
	}
	if target.Remote() {
		e.URL, e.OAuth = target.URL, target.OAuth
		e.Headers = make(map[string]string, len(target.Headers))
		for k, v := range target.Headers {
			e.Headers[k] = v
		}
	} else {
		e.Command = append([]string{}, target.Command...)
		e.EnvPassthrough = append([]string{}, target.EnvPassthrough...)
	}
	if h.Era == lockfile.EraModern {
		e.SupportedVersions = append([]string{}, h.SupportedVersions...)
	}
	if len(e.ServerInfo) == 0 {
		e.ServerInfo = json.RawMessage(`{}`)
	}
	if len(e.Capabilities) == 0 {
		e.Capabilities = json.RawMessage(`{}`)
	}
	if err := lockfile.NewServer(e); err != nil {
		return nil, err
	}
	return e, nil
}

// Lock runs command with the named environment variables and returns its lock
// entry. prefer is the era to try first ("" probes as the seed says: modern
// first, then legacy); a failed preferred era falls back to the probe.
// opts.Era, when set, is the only era tried.
func Lock(ctx context.Context, name string, command, env []string, prefer string, policy *lockfile.Policy, opts Options) (*lockfile.Server, error) {
	return LockTarget(ctx, name, &lockfile.Server{Command: command, EnvPassthrough: env, Policy: policy}, prefer, opts)
}

// LockTarget is Lock for any target: a command with its environment, or a
// remote server's url and headers (target's policy is honoured).
func LockTarget(ctx context.Context, name string, target *lockfile.Server, prefer string, opts Options) (*lockfile.Server, error) {
	h, s, signedIn, err := observeRemote(ctx, name, target, prefer, opts, true)
	if err != nil {
		return nil, err
	}
	if signedIn == nil && target.OAuth != nil && target.OAuth.Issuer == "" {
		return nil, fmt.Errorf("server %q did not ask for an OAuth sign-in: --oauth-client-id applies only to a server that does; lock it without", name)
	}
	e, err := EntryFor(withOAuth(target, signedIn), h, s)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	if err := noCredential(name, e); err != nil {
		return nil, err
	}
	return e, nil
}

// noCredential refuses an entry whose surface holds a credential mcpsum
// sent the server (a header value, a token): a server that reflects one
// must not get it committed in mcp.lock.
func noCredential(name string, e *lockfile.Server) error {
	if !redact.Any() {
		return nil
	}
	b, err := lockfile.Marshal(&lockfile.File{Servers: map[string]*lockfile.Server{name: e}})
	if err != nil {
		return err
	}
	if label, found := redact.Find(b); found {
		return fmt.Errorf("server %q sent back a credential mcpsum sent it (%s) in its surface (a description, a schema, its instructions): refusing to write it into mcp.lock, which is committed. Report it to the server's operator", name, label)
	}
	return nil
}

// Observe runs a locked entry in its locked era first and returns what it
// serves now, as an entry to compare with the lock (lockfile.Compare).
func Observe(ctx context.Context, name string, entry *lockfile.Server, opts Options) (*lockfile.Server, error) {
	h, s, signedIn, err := observeRemote(ctx, name, entry, entry.Era(), opts, false)
	if err != nil {
		return nil, err
	}
	e, err := EntryFor(withOAuth(entry, signedIn), h, s)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	if signedIn != nil {
		opts.bearer = signedIn.bearer
	}
	explainAdded(ctx, name, entry, e, opts)
	return e, nil
}

func observe(ctx context.Context, name string, entry *lockfile.Server, prefer string, opts Options) (*mcpwire.Hello, *mcpwire.Surface, error) {
	if opts.Step != nil {
		ctx = mcpwire.WithSteps(ctx, func(s string) { opts.Step(name, s) })
	}
	mcpwire.Step(ctx, "starting; no answer yet (a first npx or uvx run downloads its package)")
	// Every process started here is stopped before observe returns (the
	// client's Close, or Probe/Handshake on failure); the sandboxes' cleanups
	// run after that.
	var cleanups []func()
	defer func() {
		for _, c := range cleanups {
			c()
		}
	}()
	start := func() (mcpwire.Transport, error) {
		p, cleanup, err := Connect(name, entry, opts)
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, cleanup)
		return p, nil
	}

	var (
		c   *mcpwire.Client
		h   *mcpwire.Hello
		err error
	)
	if opts.Era != "" {
		c, h, err = handshake(ctx, start, opts.Era, opts.clientOptions())
		if err != nil {
			return nil, nil, eraRefused(name, entry, opts, err)
		}
	} else if prefer != "" {
		c, h, err = handshake(ctx, start, prefer, opts.clientOptions())
		var ee *mcpwire.EraError
		if prefer == lockfile.EraModern && errors.As(err, &ee) && ee.LacksModern {
			// It answers server/discover but no longer lists 2026-07-28: it
			// cannot be spoken to as locked, and no fallback may hide that.
			return nil, nil, &VersionDroppedError{Server: name, Locked: entry.ProtocolVersion, Supported: ee.Supported}
		}
		var to *mcpwire.TimeoutError
		var ie *InstallError
		if errors.As(err, &to) || errors.As(err, &ie) {
			// No answer in its own era: probing would start it a second
			// time (a cold npx download killed twice, its cache left
			// half-written); an install that failed fails the same again.
			// A server is started once per command.
			return nil, nil, fmt.Errorf("server %q: %w", name, Explain(name, entry, opts, err))
		}
	}
	if c == nil {
		c, h, err = mcpwire.ProbeWithOptions(ctx, start, opts.clientOptions())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("server %q: %w", name, Explain(name, entry, opts, err))
	}
	defer c.Close(stopGrace)
	mcpwire.Step(ctx, fmt.Sprintf("answered (%s %s); listing its surface", h.Era, termtext.TruncateQuote(h.ProtocolVersion, 40)))
	s, err := mcpwire.ListAll(ctx, c, h)
	if err != nil {
		return nil, nil, fmt.Errorf("server %q: %w", name, Explain(name, entry, opts, err))
	}
	if opts.Note != nil {
		for _, m := range s.NotFound {
			opts.Note(name, fmt.Sprintf("%s answered -32601 (method not found) although its capabilities advertise it; counted as an empty list", m))
		}
	}
	return h, s, nil
}

// VersionDroppedError is a 2026-07-28 server whose server/discover no longer
// lists the locked protocolVersion: definitional drift (verify exit 1).
type VersionDroppedError struct {
	Server, Locked string
	Supported      []string
}

func (e *VersionDroppedError) Error() string {
	return fmt.Sprintf("server %q no longer lists the locked protocol version %s in server/discover (it lists %q): it cannot be spoken to as locked", e.Server, e.Locked, e.Supported)
}

// handshake speaks the locked era directly. On failure it returns a nil
// client, so the caller falls back to the full probe.
func handshake(ctx context.Context, start func() (mcpwire.Transport, error), era string, copts *mcpwire.ClientOptions) (*mcpwire.Client, *mcpwire.Hello, error) {
	t, err := start()
	if err != nil {
		return nil, nil, err
	}
	c := mcpwire.NewClient(t, copts)
	h, err := mcpwire.Handshake(ctx, c, era)
	if err != nil {
		c.Close(stopGrace)
		return nil, nil, err
	}
	return c, h, nil
}

func (o Options) clientOptions() *mcpwire.ClientOptions {
	t := o.Timeout
	if t <= 0 {
		t = mcpwire.DefaultTimeout
	}
	return &mcpwire.ClientOptions{Timeout: t, StartTimeout: o.StartTimeout}
}

// protectedPaths are what a sandbox write path may never cover.
func protectedPaths(lockPath string) []string {
	var out []string
	if abs, err := filepath.Abs(lockPath); err == nil {
		out = append(out, abs, filepath.Dir(abs))
	}
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	return out
}
