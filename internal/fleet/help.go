package fleet

// Help is a fleet subcommand's usage line and description, as `mcpsum
// fleet SUB -h` prints them ("" is fleet itself). The table is built when
// asked for: a package-level map literal is code every mcpsum process runs
// before main.
func Help(sub string) [2]string { return helpTable()[sub] }

func helpTable() map[string][2]string {
	return map[string][2]string{
		"": {"mcpsum fleet sync | release | emit | status", `
An organisation releases its lock with 'fleet release' (a name, a serial,
an expiry, signed); every machine installs it with 'fleet sync' (a timer or
an MDM script), has each MCP client's own managed policy admit only the
lock's servers through mcpsum with 'fleet emit --install', and reports
compliance with 'fleet status'. See docs/fleet.md.`},
		"sync": {"mcpsum fleet sync --from URL|FILE [--to PATH] [--trust FILE]", `
sync fetches the org lock, its release statement (ORG.release.json: the org
lock's name, a serial, an expiry and the lock's digest) and the statement's
Sigstore bundle, and installs the three atomically, mode 0644, at --to, only
when a signer of the trust file signed the statement, it is a release of the
org lock the trust file names, it has not expired, the lock is the one it
names and matches its own digests, its serial is not below the highest this
machine installed (nor the trust file's minSerial), and, with MCPSUMDB set,
every keyed entry's surface is the one the transparency log holds (a key the
log does not hold is refused too). Each refusal exits 1 and leaves the
installed lock as it was; syncing the installed serial again changes
nothing (exit 0).`},
		"release": {"mcpsum fleet release [--lockfile F] --name ORGLOCK --serial N [--valid-for 30d] [--key K]", `
release checks the lockfile's digests, then writes its release statement
(<lockfile>.release.json: the org lock's name, the serial, when it expires
and the SHA-256 of the lock's exact bytes) and signs it like 'mcpsum sign'
(keyless, or with --key) into <lockfile>.release.json.sigstore.json. Publish
the three files side by side (a web server, a file share); machines whose
trust file names ORGLOCK install them with 'fleet sync'. Release again
before it expires.`},
		"emit": {"mcpsum fleet emit --client C [--mode argv|url] [--serve-url URL] [--lockfile ORG] [--out FILE | --install]", `
emit reads the org lock (checking its digests) and prints the client's own
managed policy admitting exactly its servers: in argv mode each entry is the
exact command 'MCPSUM proxy --lockfile ORG --name N' (Claude Code, Copilot
and VS Code allowlists, Gemini CLI's system settings, Codex's
requirements.toml); in url mode it is mcpsum serve's SERVE/servers/N/mcp
(which needs mcpsum serve running there; Claude Desktop takes only these).
--install writes it where the client reads it (docs/fleet.md lists the
places); a file there holding other settings is left alone.`},
		"status": {"mcpsum fleet status [--lockfile ORG] [--mode argv|url] [--serve-url URL] [--client C]... [--trust FILE] [--json]", `
status reports the installed org lock's release (name, serial, signer,
expiry), where and when it was synced, the transparency-log checkpoint its
surfaces were checked against, whether it is still the lock its release
names and of the org lock the trust file names (--trust; default
<lockfile>.trust.json, unchecked when missing there), and for each
client whether its managed policy is in place and admits exactly what
'fleet emit' with the same flags would. Exit 1 on drift (an edited lock,
an expired release, a release of another org lock, a policy that admits
more or less, a --client whose policy is missing), 0 otherwise.`},
	}
}
