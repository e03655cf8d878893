package attest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Serve is the whole mcpsum-attest helper (see internal/attestproto for the
// protocol): it reads the data to sign or verify from stdin, writes exactly
// one attestproto.Response to stdout and returns the exit status. getenv
// supplies the passphrase and OIDC token variables. Serve writes nothing to a
// terminal and never exits.
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) int {
	resp := serve(ctx, args, stdin, getenv)
	resp.Protocol = attestproto.Version
	out, err := json.Marshal(resp)
	if err != nil { // cannot happen for these types
		out = []byte(`{"protocol":1,"exit":3,"error":"mcpsum-attest: cannot encode its answer"}`)
		resp.Exit = attestproto.ExitUndecided
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil && resp.Exit == 0 {
		return attestproto.ExitUndecided
	}
	return resp.Exit
}

func serve(ctx context.Context, args []string, stdin io.Reader, getenv func(string) string) *attestproto.Response {
	if len(args) == 0 || (args[0] != "sign" && args[0] != "verify") {
		return failure(&UsageError{Option: attestproto.Command, Err: errors.New("is mcpsum's signing helper: run `mcpsum sign`, `mcpsum verify --signature` or `mcpsum proxy --require-signature`, which run it")})
	}
	fset := flag.NewFlagSet(attestproto.Command+" "+args[0], flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	protocol := fset.Int("protocol", 0, "protocol version (must be 1)")
	key := fset.String("key", "", "private key (sign) or public key (verify), PEM")
	// sign
	fulcio := fset.String("fulcio-url", attestproto.DefaultFulcioURL, "Fulcio URL")
	rekor := fset.String("rekor-url", attestproto.DefaultRekorURL, "Rekor URL")
	tsa := fset.String("tsa-url", "", "RFC 3161 timestamp authority URL")
	// verify
	bundlePath := fset.String("bundle", "", "Sigstore bundle to check")
	var vo VerifyOptions
	fset.StringVar(&vo.CertificateIdentity, "certificate-identity", "", "expected signer identity")
	fset.StringVar(&vo.CertificateOIDCIssuer, "certificate-oidc-issuer", "", "expected OIDC issuer")
	fset.StringVar(&vo.CertificateIdentityRegexp, "certificate-identity-regexp", "", "expected identity, regexp")
	fset.StringVar(&vo.CertificateOIDCIssuerRegexp, "certificate-oidc-issuer-regexp", "", "expected issuer, regexp")
	trusted := fset.String("trusted-root", "", "trusted_root.json")
	if err := fset.Parse(args[1:]); err != nil {
		return failure(&UsageError{Option: attestproto.Command, Err: err})
	}
	if *protocol != attestproto.Version {
		return failure(&UsageError{Option: "--protocol", Err: fmt.Errorf("this %s speaks protocol %d, the caller asked for %d: install mcpsum and %s of the same version (go install github.com/mcpsum/mcpsum/cmd/...@VERSION)", attestproto.Command, attestproto.Version, *protocol, attestproto.Command)})
	}
	if fset.NArg() > 0 {
		return failure(&UsageError{Option: attestproto.Command, Err: fmt.Errorf("unexpected argument %q (the data comes on stdin)", fset.Arg(0))})
	}
	data, err := io.ReadAll(io.LimitReader(stdin, attestproto.MaxInput+1))
	if err != nil {
		return failure(fmt.Errorf("read the data from stdin: %w", err))
	}
	if len(data) > attestproto.MaxInput {
		return failure(fmt.Errorf("the data on stdin is larger than %d bytes", attestproto.MaxInput))
	}
	if args[0] == "sign" {
		return signRequest(ctx, data, *key, KeylessOptions{FulcioURL: *fulcio, RekorURL: *rekor, TSAURL: *tsa}, getenv)
	}
	return verifyRequest(data, *bundlePath, *key, *trusted, vo)
}

// Environment variables for the private key's passphrase (never a flag, so
// it stays out of shell history and process listings).
const (
	EnvKeyPassword    = "MCPSUM_KEY_PASSWORD"
	EnvCosignPassword = "COSIGN_PASSWORD"
)

func signRequest(ctx context.Context, data []byte, key string, ko KeylessOptions, getenv func(string) string) *attestproto.Response {
	resp := &attestproto.Response{}
	var err error
	if key != "" {
		keyPEM, rerr := os.ReadFile(key)
		if rerr != nil {
			return failure(&UsageError{Option: "--key", Err: rerr})
		}
		pass := getenv(EnvKeyPassword)
		if pass == "" {
			pass = getenv(EnvCosignPassword)
		}
		resp.Bundle, err = SignWithKey(ctx, data, keyPEM, []byte(pass))
	} else {
		var source string
		ko.IDToken, source, err = IDTokenFromEnv(ctx, getenv)
		if err != nil {
			return failure(err)
		}
		resp.Notes = append(resp.Notes, "keyless, identity token from "+source)
		resp.Bundle, err = SignKeyless(ctx, data, ko)
	}
	if err != nil {
		f := failure(err)
		f.Notes = resp.Notes
		return f
	}
	return resp
}

// maxBundleSize caps a Sigstore bundle (they are a few KiB).
const maxBundleSize = 16 << 20

func verifyRequest(data []byte, bundlePath, key, trusted string, vo VerifyOptions) *attestproto.Response {
	if bundlePath == "" {
		return failure(usagef("--bundle", "required: the Sigstore bundle to check"))
	}
	bundle, err := safeio.ReadRegular(bundlePath, "signature bundle", maxBundleSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &attestproto.Response{Exit: attestproto.ExitVerdict, Error: clean(fmt.Sprintf("no signature: %s does not exist (sign the lockfile with mcpsum sign)", bundlePath))}
	}
	if err != nil {
		return failure(err)
	}
	if key != "" {
		if vo.PublicKeyPEM, err = os.ReadFile(key); err != nil {
			return failure(&UsageError{Option: "--key", Err: err})
		}
	}
	if trusted != "" {
		if vo.TrustedRootJSON, err = os.ReadFile(trusted); err != nil {
			return failure(&UsageError{Option: "--trusted-root", Err: err})
		}
	}
	r, err := Verify(data, bundle, vo)
	if err != nil {
		return failure(err)
	}
	s := &attestproto.Signer{Keyless: r.Keyless, KeyHint: r.KeyHint, Identity: r.Identity, Issuer: r.Issuer, Digest: r.Digest}
	for _, t := range r.Timestamps {
		s.Timestamps = append(s.Timestamps, attestproto.Timestamp{Source: t.Source, URI: t.URI, Time: t.Time})
	}
	return &attestproto.Response{Signer: s}
}

// failure maps an error to the response the caller turns into its exit code:
// *VerificationError 1, *UsageError 2, anything else 3.
func failure(err error) *attestproto.Response {
	code := attestproto.ExitUndecided
	var v *VerificationError
	var u *UsageError
	switch {
	case errors.As(err, &v):
		code = attestproto.ExitVerdict
	case errors.As(err, &u):
		code = attestproto.ExitUsage
	}
	return &attestproto.Response{Exit: code, Error: clean(strings.TrimSpace(err.Error()))}
}
