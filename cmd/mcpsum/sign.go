package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) signCommand() *ffcli.Command {
	fs := a.flagSet("sign")
	lockfile := lockfileFlag(fs)
	key := fs.String("key", "", "private key (PEM) to sign with; without it, sign keyless with the OIDC token from the environment")
	bundle := fs.String("bundle", "", "where to write the Sigstore bundle (default: <lockfile>.sigstore.json)")
	_, _, _ = lockfile, key, bundle
	return &ffcli.Command{
		Name:       "sign",
		ShortUsage: "mcpsum sign [--lockfile F] [--key K] [--bundle B]",
		ShortHelp:  "write a Sigstore bundle over the exact bytes of mcp.lock",
		LongHelp: strings.TrimSpace(`
sign checks the lockfile's digests, then writes a Sigstore bundle (v0.3, as
'cosign verify-blob --bundle' accepts) over its exact bytes, atomically, beside
it. Keyless signing (Fulcio + Rekor) uses the OIDC token from the environment,
as in CI; --key signs with a long-lived key.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum sign")
		},
	}
}
