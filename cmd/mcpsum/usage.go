package main

import "github.com/mcpsum/mcpsum/internal/cli"

// help renders a command's help the way mcpsum's flags are spelled: long
// --flags, each with its MCPSUM_ environment twin, and examples last.
var help = cli.Help{Prefix: "MCPSUM", Placeholders: placeholders, Examples: examples}

// placeholders name the argument of each flag.
func placeholders() map[string]string {
	return map[string]string{
		"lockfile": "FILE", "name": "NAME", "env": "VAR", "timeout-secs": "SECS",
		"start-timeout-secs": "SECS", "approval-timeout-secs": "SECS",
		"sarif-file": "FILE", "format": "FORMAT", "client": "NAME", "project": "DIR",
		"key": "FILE", "bundle": "FILE", "signature": "FILE", "trusted-root": "FILE",
		"certificate-identity": "ID", "certificate-oidc-issuer": "URL",
		"certificate-identity-regexp": "RE", "certificate-oidc-issuer-regexp": "RE",
		"fulcio-url": "URL", "rekor-url": "URL", "tsa-url": "URL", "attest-helper": "PATH",
		"url": "URL", "header": "NAME=ENVVAR", "remove": "NAME", "accept": "KIND",
		"from": "URL|FILE", "to": "PATH", "trust": "FILE", "serial": "N", "mode": "MODE",
		"serve-url": "URL", "mcpsum": "PATH", "out": "FILE",
		"addr": "HOST:PORT", "socket": "PATH", "token-file": "FILE", "tls-cert": "FILE", "tls-key": "FILE",
		"allow-host": "NAME", "state": "URL", "replica-url": "URL", "replica-id": "ID", "idle-timeout-secs": "SECS",
		"era": "ERA",
	}
}

// examples are each command's examples (TestHelp holds each to its
// command's flags).
func examples() map[string][]string {
	return map[string][]string{
		"mcpsum": {"mcpsum lock --name memory -- npx -y @modelcontextprotocol/server-memory@2026.8.31",
			"mcpsum verify", "mcpsum help lock"},
		"mcpsum lock": {"mcpsum lock --name memory -- npx -y @modelcontextprotocol/server-memory@2026.8.31",
			"mcpsum lock --name docs --url https://mcp.example.com/mcp --header Authorization=DOCS_TOKEN",
			"mcpsum lock                  # re-lock every entry with its locked command",
			"mcpsum lock --remove memory",
			"mcpsum lock --era legacy --name conf -- ./everything-server  # tools that ask legacy clients"},
		"mcpsum import": {"mcpsum import                # list the client configs found here",
			"mcpsum import --client claude-desktop           # the plan; writes nothing",
			"mcpsum import --client claude-desktop --write",
			"mcpsum import --undo --client claude-desktop"},
		"mcpsum verify": {"mcpsum verify --format sarif --sarif-file mcpsum.sarif",
			"mcpsum verify --offline     # digests and log proofs only (the pre-commit hook)",
			"mcpsum verify --signature mcp.lock.sigstore.json --key cosign.pub"},
		"mcpsum proxy": {"mcpsum proxy --lockfile /home/me/project/mcp.lock --name memory"},
		"mcpsum serve": {"mcpsum serve                # every locked server at http://127.0.0.1:8808/servers/NAME/mcp",
			"mcpsum serve --addr 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem",
			"mcpsum serve --state postgres://mcpsum@db/mcpsum --allow-host mcp.example.com"},
		"mcpsum show":           {"mcpsum show --compact       # one line per item", "mcpsum show --name memory --json"},
		"mcpsum suggest-policy": {"mcpsum suggest-policy --name memory"},
		"mcpsum taint":          {"mcpsum taint list", "mcpsum taint reset --all"},
		"mcpsum taint list":     {"mcpsum taint list"},
		"mcpsum taint reset":    {"mcpsum taint reset 3f2a9c   # a session taint list named", "mcpsum taint reset --all"},
		"mcpsum sign":           {"mcpsum sign --key cosign.key", "mcpsum sign                  # keyless, in CI with an OIDC token"},
		"mcpsum doctor":         {"mcpsum doctor"},
		"mcpsum version":        {"mcpsum version"},
		"mcpsum fleet":          {"mcpsum fleet sync --from https://mcp.example.com/org.lock", "mcpsum fleet status --json"},
		"mcpsum fleet sync":     {"mcpsum fleet sync --from https://mcp.example.com/org.lock   # as root, from MDM"},
		"mcpsum fleet release":  {"mcpsum fleet release --lockfile org.lock --name eng --serial 42 --key cosign.key"},
		"mcpsum fleet emit":     {"mcpsum fleet emit --client claude-code --out managed-settings.json"},
		"mcpsum fleet status":   {"mcpsum fleet status --json"},
	}
}
