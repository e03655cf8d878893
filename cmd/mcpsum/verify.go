package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) verifyCommand() *ffcli.Command {
	fs := a.flagSet("verify")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "verify only this server")
	strict := fs.Bool("strict", false, "treat informational drift (serverInfo, capabilities, versions) as failure")
	asJSON := fs.Bool("json", false, "print one machine-readable result object")
	timeout := fs.Int("timeout-secs", 30, "seconds to wait for each server to answer")
	signature := fs.String("signature", "", "check this Sigstore bundle over the lockfile instead of running servers")
	key := fs.String("key", "", "public key (PEM) the signature must verify with")
	identity := fs.String("certificate-identity", "", "expected signer identity of a keyless signature")
	issuer := fs.String("certificate-oidc-issuer", "", "expected OIDC issuer of a keyless signature")
	root := fs.String("trusted-root", "", "Sigstore trusted_root.json for offline verification")
	_, _, _, _, _, _, _, _, _, _ = lockfile, name, strict, asJSON, timeout, signature, key, identity, issuer, root
	return &ffcli.Command{
		Name:       "verify",
		ShortUsage: "mcpsum verify [--lockfile F] [--name N] [--strict] [--json] [--timeout-secs S]\n       mcpsum verify [--lockfile F] --signature B (--key PUB | --certificate-identity I --certificate-oidc-issuer O) [--trusted-root R]",
		ShortHelp:  "re-check servers (or a signature) against mcp.lock; the CI gate",
		LongHelp: strings.TrimSpace(`
verify loads mcp.lock (checking its digests first), runs every server (or just
N) with its locked command in its locked era, lists its surface again and
compares. It never writes the lockfile.

Exit 1 on definitional drift (a tool, prompt, resource or template added,
removed or changed; instructions; the protocol era), and on informational
drift (serverInfo, capabilities, protocol versions) with --strict. Exit 3 when
a server cannot be started or does not answer.

With --signature, verify checks a Sigstore bundle over the exact bytes of the
lockfile and the lockfile's own digests, without running any server.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum verify")
		},
	}
}
