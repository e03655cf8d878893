package attestproto

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The client side: how mcpsum finds the helper and runs one request.

// Error is a request that did not succeed, with the exit status mcpsum
// gives it: the helper's own verdict (ExitVerdict) or usage error
// (ExitUsage), else ExitUndecided.
type Error struct {
	Exit int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func undecided(format string, args ...any) error {
	return &Error{Exit: ExitUndecided, Err: fmt.Errorf(format, args...)}
}

// Client runs the helper for mcpsum.
type Client struct {
	// Helper is the helper's absolute path (--attest-helper), or "" for
	// the one beside the running executable (see Find).
	Helper string
	// Version is the running mcpsum's version, for the install command an
	// error suggests (see InstallHint).
	Version string
}

// Sign asks the helper for a Sigstore bundle over data, the exact lockfile
// bytes the caller read. args are the sign flags (key, service URLs); the
// passphrase and the OIDC token reach the helper through the environment.
// The response's Notes are for the user, also when err is set.
func (c Client) Sign(ctx context.Context, data []byte, args ...string) (*Response, error) {
	return c.call(ctx, "sign", data, args)
}

// Verify asks the helper to check the bundle of req over data, the exact
// lockfile bytes the caller read and will use, and returns who signed.
func (c Client) Verify(ctx context.Context, data []byte, req VerifyRequest) (*Signer, error) {
	args, err := req.Args()
	if err != nil {
		return nil, err
	}
	resp, err := c.call(ctx, "verify", data, args)
	if err != nil {
		return nil, err
	}
	return resp.Signer, nil
}

// call runs the helper's op with args, giving it data on stdin. A failed
// request comes back as an *Error carrying the exit status.
func (c Client) call(ctx context.Context, op string, data []byte, args []string) (*Response, error) {
	helper, err := Find(c.Helper, c.Version)
	if err != nil {
		return nil, err
	}
	if err := Trusted(helper); err != nil {
		return nil, undecided("%s (%s) not run: %w", Command, quoteArg(helper), err)
	}
	argv := append([]string{op, "--protocol", fmt.Sprint(Version)}, args...)
	cmd := exec.CommandContext(ctx, helper, argv...)
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var resp Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil || resp.Protocol != Version {
		why := fmt.Sprintf("gave no protocol-%d answer", Version)
		if err == nil {
			why = fmt.Sprintf("speaks protocol %d, this mcpsum speaks %d", resp.Protocol, Version)
		} else if runErr != nil {
			why += " (" + runErr.Error() + ")"
		}
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			why += ": " + termtext.FirstLine(tail, 300)
		}
		return nil, c.foreign(helper, why)
	}
	if resp.Exit != ExitOK {
		code := resp.Exit
		if code != ExitVerdict && code != ExitUsage {
			code = ExitUndecided
		}
		return &resp, &Error{Exit: code, Err: errors.New(resp.Error)}
	}
	if op == "verify" && resp.Signer == nil || op == "sign" && len(resp.Bundle) == 0 {
		return nil, c.foreign(helper, "answered "+op+" without its result")
	}
	if op == "verify" {
		// The verdict must be about the bytes mcpsum sent.
		sum := sha256.Sum256(data)
		if want := "sha256:" + hex.EncodeToString(sum[:]); resp.Signer.Digest != want {
			return nil, c.foreign(helper, fmt.Sprintf("verified digest %s, but the lockfile it was given has digest %s", quoteArg(termtext.FirstLine(resp.Signer.Digest, 80)), want))
		}
	}
	if runErr != nil {
		return nil, undecided("%s (%s): %v", Command, quoteArg(helper), runErr)
	}
	return &resp, nil
}

// foreign is the error for a helper that does not speak this mcpsum's
// protocol.
func (c Client) foreign(helper, why string) error {
	return undecided("%s (%s) %s; install mcpsum and %s of the same version with %s",
		Command, quoteArg(helper), why, Command, InstallHint(c.Version))
}

var quoteArg = termtext.ShellArg

// VerifyRequest is what a signature must match: a key, or a keyless
// identity and issuer (exact or as whole-value regular expressions),
// checked offline against TrustedRoot when given.
type VerifyRequest struct {
	Bundle, Key, Identity, Issuer, IdentityRegexp, IssuerRegexp, TrustedRoot string
}

// Args are the helper's verify flags; a request that names neither a key
// nor a whole identity, or both, is a usage error.
func (r VerifyRequest) Args() ([]string, error) {
	hasIdentity := r.Identity != "" || r.IdentityRegexp != ""
	hasIssuer := r.Issuer != "" || r.IssuerRegexp != ""
	if r.Key == "" && (!hasIdentity || !hasIssuer) {
		return nil, &Error{Exit: ExitUsage, Err: errors.New("checking a signature needs --key PUB, or --certificate-identity and --certificate-oidc-issuer (or their -regexp forms)")}
	}
	if r.Key != "" && (hasIdentity || hasIssuer) {
		return nil, &Error{Exit: ExitUsage, Err: errors.New("give either --key or --certificate-identity/--certificate-oidc-issuer, not both")}
	}
	args := []string{"--bundle", r.Bundle}
	for _, fl := range []struct{ name, val string }{
		{"--key", r.Key}, {"--certificate-identity", r.Identity}, {"--certificate-oidc-issuer", r.Issuer},
		{"--certificate-identity-regexp", r.IdentityRegexp}, {"--certificate-oidc-issuer-regexp", r.IssuerRegexp},
		{"--trusted-root", r.TrustedRoot},
	} {
		if fl.val != "" {
			args = append(args, fl.name, fl.val)
		}
	}
	return args, nil
}

// BundlePath is where a lockfile's bundle is: bundle when given, else
// beside the lockfile as LOCKFILE.sigstore.json.
func BundlePath(lockPath, bundle string) string {
	if bundle != "" {
		return bundle
	}
	return lockPath + ".sigstore.json"
}

// Describe says who signed, for a terminal: "the given key", or the
// keyless identity and issuer (escaped) with the verified times.
func (s *Signer) Describe() string {
	if !s.Keyless {
		return "the given key"
	}
	out := fmt.Sprintf("%s (issuer %s)", termtext.FirstLine(s.Identity, 100), termtext.FirstLine(s.Issuer, 100))
	for _, t := range s.Timestamps {
		out += fmt.Sprintf(", %s time %s", termtext.FirstLine(t.Source, 10), t.Time.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return out
}
