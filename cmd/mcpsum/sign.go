package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/process"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func (a *app) signCommand() *ffcli.Command {
	fs := a.flagSet("sign")
	lockfilePath := lockfileFlag(fs)
	sf := registerSignerFlags(fs)
	bundle := fs.String("bundle", "", "where to write the Sigstore bundle (default: <lockfile>.sigstore.json)")
	helper := attestHelperFlag(fs)
	return &ffcli.Command{
		Name:       "sign",
		ShortUsage: "mcpsum sign [--lockfile F] [--key K] [--bundle B]",
		ShortHelp:  "write a Sigstore bundle over the exact bytes of mcp.lock",
		LongHelp: strings.TrimSpace(`
sign checks the lockfile's digests, then writes a Sigstore bundle (v0.3, as
'cosign verify-blob --bundle' accepts) over its exact bytes, atomically, beside
it (mcp.lock.sigstore.json).

Keyless (the default) gets a short-lived Fulcio certificate for the OIDC
identity in SIGSTORE_ID_TOKEN, or GitHub Actions' token (permissions:
id-token: write), and records the signature in Rekor. With --key it signs
with a long-lived key; its passphrase comes from MCPSUM_KEY_PASSWORD (or
COSIGN_PASSWORD).`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("sign takes no arguments (got %q)", args[0])
			}
			c := attestClient(*helper)
			dst, err := locker.Sign(ctx, c, *lockfilePath, *bundle, sf.args(), func(n string) { fmt.Fprintf(a.stderr, "sign: %s\n", n) })
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "sign: wrote %s for %s\n", dst, *lockfilePath)
			return nil
		},
	}
}

// signerFlags are the signing flags of sign and fleet release.
type signerFlags struct{ key, fulcio, rekor, tsa *string }

func registerSignerFlags(fs *flag.FlagSet) signerFlags {
	return signerFlags{
		key:    fs.String("key", "", "private key (PEM, as cosign writes it) to sign with; without it, sign keyless with the OIDC token from the environment"),
		fulcio: fs.String("fulcio-url", attestproto.DefaultFulcioURL, "Fulcio URL for keyless signing"),
		rekor:  fs.String("rekor-url", attestproto.DefaultRekorURL, "Rekor URL for keyless signing"),
		tsa:    fs.String("tsa-url", "", "RFC 3161 timestamp authority URL for keyless signing (optional)"),
	}
}

// args are the helper's sign flags.
func (s signerFlags) args() []string {
	out := []string{"--fulcio-url", *s.fulcio, "--rekor-url", *s.rekor, "--tsa-url", *s.tsa}
	if *s.key != "" {
		out = append(out, "--key", *s.key)
	}
	return out
}

// sigFlags are the signature-checking flags of verify and proxy.
type sigFlags struct {
	bundle, key, identity, issuer, identityRE, issuerRE, trusted *string
	helper                                                       *string
}

func registerSigFlags(fs *flag.FlagSet, bundleFlag, bundleHelp string) sigFlags {
	return sigFlags{
		bundle:     fs.String(bundleFlag, "", bundleHelp),
		key:        fs.String("key", "", "public key (PEM) the lockfile's signature must verify with"),
		identity:   fs.String("certificate-identity", "", "expected signer identity (certificate SAN) of a keyless signature"),
		issuer:     fs.String("certificate-oidc-issuer", "", "expected OIDC issuer of a keyless signature"),
		identityRE: fs.String("certificate-identity-regexp", "", "like --certificate-identity, a Go regular expression that must match the whole identity"),
		issuerRE:   fs.String("certificate-oidc-issuer-regexp", "", "like --certificate-oidc-issuer, a Go regular expression that must match the whole issuer"),
		trusted:    fs.String("trusted-root", "", "Sigstore trusted_root.json for offline verification of a keyless signature"),
		helper:     attestHelperFlag(fs),
	}
}

func (s sigFlags) any() bool {
	return *s.key != "" || *s.identity != "" || *s.issuer != "" || *s.identityRE != "" || *s.issuerRE != "" || *s.trusted != ""
}

// check verifies the lockfile's bundle (locker.ReadSigned).
func (s sigFlags) check(ctx context.Context, lockPath string) (*attestproto.Signer, *lockfile.File, error) {
	req := attestproto.VerifyRequest{Bundle: attestproto.BundlePath(lockPath, *s.bundle), Key: *s.key,
		Identity: *s.identity, Issuer: *s.issuer, IdentityRegexp: *s.identityRE, IssuerRegexp: *s.issuerRE, TrustedRoot: *s.trusted}
	return locker.ReadSigned(ctx, attestClient(*s.helper), req, lockPath)
}

// describeSigner says who signed, escaped.
var describeSigner = (*attestproto.Signer).Describe

// attestHelperFlag registers --attest-helper on the commands that run the
// helper.
func attestHelperFlag(fs *flag.FlagSet) *string {
	return fs.String("attest-helper", "", "absolute path of the "+attestproto.Command+" signing helper (default: the one beside mcpsum; never taken from PATH)")
}

// attestClient runs the signing helper at path (the attest protocol); it
// starts that helper only once the guard is up (process.Before).
func attestClient(helper string) attestproto.Client {
	process.Settle()
	return attestproto.Client{Helper: helper, Version: moduleVersion()}
}
