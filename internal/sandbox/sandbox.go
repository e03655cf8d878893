package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// ErrUnsupported is matched (errors.Is) by Prepare's error on systems other than
// Linux: a server with a sandbox policy does not start there.
var ErrUnsupported = errors.New("sandbox: a server with a sandbox policy cannot run on this operating system (Linux only)")

// Config is one server's sandbox policy plus what the caller must protect.
type Config struct {
	// Read and Write are the policy paths as written in mcp.lock: absolute,
	// "~/..." or "${TMP}/...", without "..". Host paths must exist; "${TMP}/..."
	// paths are created inside the fresh ${TMP}.
	Read, Write []string
	// NetworkAllow holds host:port entries ("api.example.com:443",
	// "*.example.com:443", "10.0.0.5:8080", "[::1]:9000"). Empty means no network
	// at all (only loopback inside the sandbox), as does NoNetwork.
	NetworkAllow []string
	NoNetwork    bool
	// Protected are paths no write path may equal or cover (realpaths or plain
	// absolute paths; they need not exist yet): the lockfile, its directory, the
	// audit log, the taint state directory, the mcpsum binary. $HOME, the running
	// binary and the sandbox runtime directory are always protected.
	Protected []string
	// Sealed are paths no write path may cover or lie inside: mcpsum's state
	// directory (taint state, approval key, audit logs), where a nested write
	// path would let the server clear its client's taint.
	Sealed []string
	// AuditLog is the JSON-lines file that receives one line per egress
	// connection. Required when NetworkAllow is not empty.
	AuditLog string
	// Name is the server's name in mcp.lock, written into audit lines.
	Name string
	// Dir is the server's working directory (default: the current one). It is
	// used to resolve a relative command or script and, when it is visible in
	// the sandbox, as the server's working directory there.
	Dir string
}

// Launch is what the caller runs as the sandboxed server: start it with the MCP
// pipes as stdin and stdout (and a stderr of its choice), in its own process
// group (Setpgid may be set on SysProcAttr), then call Close once it is stopped.
type Launch struct {
	// Argv re-executes the running binary as the sandbox's pid 1; Env is that
	// process's environment (the server's environment travels in the policy).
	Argv, Env []string
	// ExtraFiles must be passed as the child's first extra files (fd 3...).
	ExtraFiles []*os.File
	// SysProcAttr holds the namespaces, id maps, ambient capabilities for pid 1
	// and Pdeathsig. The caller may set Setpgid (and Foreground/Noctty) on it.
	SysProcAttr *syscall.SysProcAttr
	// Ready waits until pid 1 has started the server inside the sandbox (nil)
	// or failed to (an *UnavailableError or an error saying why). Call it only
	// after the process was started; Close ends any wait.
	Ready func() error
	// Close stops the egress proxy, ends the sandbox if it still runs (its
	// lifeline closes), closes the audit log and removes ${TMP}. Idempotent.
	Close func() error
	// Warnings lists write paths that hold files something may later run
	// outside the sandbox (.git hooks, ~/.local/bin, ...). Advisory.
	Warnings []string
	// TmpDir is the host path of the server's private ${TMP} (also TMPDIR).
	TmpDir string
}

// PolicyError reports a policy the sandbox refuses: a malformed or missing path,
// a write path covering a protected path, a bad network entry, npx.
type PolicyError struct {
	Field  string // "filesystem.read", "filesystem.write", "network.allow", "command"
	Value  string // the entry as written
	Reason string
}

func (e *PolicyError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("sandbox policy %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("sandbox policy %s entry %q: %s", e.Field, e.Value, e.Reason)
}

// UnavailableError reports that this machine cannot enforce a sandbox: the
// server does not start. Fix is the one-time step that makes it work.
type UnavailableError struct {
	Reason string
	Fix    string
}

func (e *UnavailableError) Error() string {
	if e.Fix == "" {
		return "sandbox unavailable: " + e.Reason
	}
	return "sandbox unavailable: " + e.Reason + "; fix: " + e.Fix
}

// Report says which confinement a sandboxed server gets on this machine.
type Report struct {
	OS, Arch    string
	Available   bool   // a sandboxed server can start here
	Backend     string // "namespaces+landlock+seccomp" or "none"
	LandlockABI int    // 0 when Landlock is missing
	UserNS      bool   // user namespaces usable (with capabilities inside)
	Seccomp     bool   // seccomp filters available
	Probe       string // result of a real sandbox start, "" when not run
	Reasons     []string
}

// String renders the report for `mcpsum doctor`.
func (r Report) String() string {
	var b strings.Builder
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(&b, "sandbox backend: %s (%s/%s)\n", r.Backend, r.OS, r.Arch)
	fmt.Fprintf(&b, "  available:       %s\n", yes(r.Available))
	if r.LandlockABI > 0 {
		fmt.Fprintf(&b, "  landlock:        ABI %d (mcpsum requires >= 3)\n", r.LandlockABI)
	} else {
		fmt.Fprintf(&b, "  landlock:        missing\n")
	}
	fmt.Fprintf(&b, "  user namespaces: %s\n", yes(r.UserNS))
	fmt.Fprintf(&b, "  seccomp filter:  %s\n", yes(r.Seccomp))
	if r.Probe != "" {
		fmt.Fprintf(&b, "  probe:           %s\n", r.Probe)
	}
	for _, why := range r.Reasons {
		fmt.Fprintf(&b, "  - %s\n", why)
	}
	return b.String()
}
