package main

import "github.com/mcpsum/mcpsum/internal/cli"

// placeholders name the argument of a flag in help output.
var placeholders = map[string]string{
	"lockfile": "FILE", "name": "NAME", "env": "VAR", "timeout-secs": "SECS",
	"start-timeout-secs": "SECS", "approval-timeout-secs": "SECS",
	"sarif-file": "FILE", "format": "FORMAT", "client": "NAME", "project": "DIR",
	"key": "FILE", "bundle": "FILE", "signature": "FILE", "trusted-root": "FILE",
	"certificate-identity": "ID", "certificate-oidc-issuer": "URL",
	"certificate-identity-regexp": "RE", "certificate-oidc-issuer-regexp": "RE",
	"fulcio-url": "URL", "rekor-url": "URL", "tsa-url": "URL", "attest-helper": "PATH",
	"from": "URL|FILE", "to": "PATH", "trust": "FILE", "serial": "N", "mode": "MODE",
	"serve-url": "URL", "mcpsum": "PATH", "out": "FILE",
}

// usage renders a command's help the way mcpsum's flags are spelled: long
// --flags, each with its MCPSUM_ environment twin.
var usage = cli.Usage("MCPSUM", placeholders)
