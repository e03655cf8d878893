package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/attest"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Environment variables for the private key's passphrase (never a flag, so
// it stays out of shell history and process listings).
const (
	envKeyPassword    = "MCPSUM_KEY_PASSWORD"
	envCosignPassword = "COSIGN_PASSWORD"
)

func (a *app) signCommand() *ffcli.Command {
	fs := a.flagSet("sign")
	lockfilePath := lockfileFlag(fs)
	key := fs.String("key", "", "private key (PEM, as cosign writes it) to sign with; without it, sign keyless with the OIDC token from the environment")
	bundle := fs.String("bundle", "", "where to write the Sigstore bundle (default: <lockfile>.sigstore.json)")
	fulcio := fs.String("fulcio-url", attest.DefaultFulcioURL, "Fulcio URL for keyless signing")
	rekor := fs.String("rekor-url", attest.DefaultRekorURL, "Rekor URL for keyless signing")
	tsa := fs.String("tsa-url", "", "RFC 3161 timestamp authority URL for keyless signing (optional)")
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
			data, err := readCheckedLock(*lockfilePath)
			if err != nil {
				return err
			}
			var out []byte
			if *key != "" {
				keyPEM, err := os.ReadFile(*key)
				if err != nil {
					return usageErr("--key: %v", err)
				}
				pass := os.Getenv(envKeyPassword)
				if pass == "" {
					pass = os.Getenv(envCosignPassword)
				}
				out, err = attest.SignWithKey(ctx, data, keyPEM, []byte(pass))
				if err != nil {
					return err
				}
			} else {
				token, source, err := attest.IDTokenFromEnv(ctx, os.Getenv)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "sign: keyless, identity token from %s\n", source)
				out, err = attest.SignKeyless(ctx, data, attest.KeylessOptions{IDToken: token, FulcioURL: *fulcio, RekorURL: *rekor, TSAURL: *tsa})
				if err != nil {
					return err
				}
			}
			dst := bundlePath(*lockfilePath, *bundle)
			if err := writeAtomic(dst, out); err != nil {
				return fmt.Errorf("write bundle: %w", err)
			}
			fmt.Fprintf(a.stderr, "sign: wrote %s for %s\n", dst, *lockfilePath)
			return nil
		},
	}
}

// writeAtomic replaces path with data through a synced temporary file in
// the same directory and a rename, so a reader sees the old or the new
// bundle, never a torn one.
func writeAtomic(path string, data []byte) error {
	return statefile.WriteAtomic(path, data, statefile.WriteOptions{Perm: 0o644, Sync: true})
}

func bundlePath(lockPath, bundle string) string {
	if bundle != "" {
		return bundle
	}
	return lockPath + ".sigstore.json"
}

// maxBundleSize caps a Sigstore bundle (they are a few KiB).
const maxBundleSize = 16 << 20

// readCheckedLock reads the exact bytes of the lockfile and checks its
// digests (I3): a signature over a file that does not match itself is useless.
func readCheckedLock(path string) ([]byte, error) {
	data, err := lockfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no lockfile at %s: create one with mcpsum lock --lockfile %s --name NAME -- COMMAND [ARG]... (or pass --lockfile)", path, quoteArg(path))
	}
	if err != nil {
		return nil, err
	}
	if _, err := lockfile.Parse(path, data); err != nil {
		return nil, err
	}
	return data, nil
}

// sigFlags are the signature-checking flags of verify and proxy.
type sigFlags struct {
	bundle, key, identity, issuer, identityRE, issuerRE, trusted *string
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
	}
}

func (s sigFlags) any() bool {
	return *s.key != "" || *s.identity != "" || *s.issuer != "" || *s.identityRE != "" || *s.issuerRE != "" || *s.trusted != ""
}

// check verifies the bundle over the lockfile's exact bytes and the
// lockfile's own digests, without running any server.
func (s sigFlags) check(lockPath string) (*attest.Result, error) {
	hasIdentity := *s.identity != "" || *s.identityRE != ""
	hasIssuer := *s.issuer != "" || *s.issuerRE != ""
	if *s.key == "" && (!hasIdentity || !hasIssuer) {
		return nil, usageErr("checking a signature needs --key PUB, or --certificate-identity and --certificate-oidc-issuer (or their -regexp forms)")
	}
	if *s.key != "" && (hasIdentity || hasIssuer) {
		return nil, usageErr("give either --key or --certificate-identity/--certificate-oidc-issuer, not both")
	}
	data, err := readCheckedLock(lockPath)
	if err != nil {
		return nil, err
	}
	bundlePath := bundlePath(lockPath, *s.bundle)
	bundle, err := safeio.ReadRegular(bundlePath, "signature bundle", maxBundleSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, verdict(fmt.Errorf("no signature: %s does not exist (sign the lockfile with mcpsum sign)", bundlePath))
	}
	if err != nil {
		return nil, err
	}
	opts := attest.VerifyOptions{
		CertificateIdentity: *s.identity, CertificateOIDCIssuer: *s.issuer,
		CertificateIdentityRegexp: *s.identityRE, CertificateOIDCIssuerRegexp: *s.issuerRE,
	}
	if *s.key != "" {
		if opts.PublicKeyPEM, err = os.ReadFile(*s.key); err != nil {
			return nil, usageErr("--key: %v", err)
		}
	}
	if *s.trusted != "" {
		if opts.TrustedRootJSON, err = os.ReadFile(*s.trusted); err != nil {
			return nil, usageErr("--trusted-root: %v", err)
		}
	}
	return attest.Verify(data, bundle, opts)
}

func describeSigner(r *attest.Result) string {
	if !r.Keyless {
		return "the given key"
	}
	s := fmt.Sprintf("%s (issuer %s)", oneLine(r.Identity, 100), oneLine(r.Issuer, 100))
	for _, t := range r.Timestamps {
		s += fmt.Sprintf(", %s time %s", t.Source, t.Time.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return s
}
