#!/bin/sh
# The pre-commit hook mcpsum-lock-integrity (.pre-commit-hooks.yaml,
# language: script): checks that every staged mcp.lock matches its own
# digests without starting any server, `mcpsum verify --offline FILE...`.
# pre-commit runs it from its checkout of this repository; on the first run
# it builds cmd/mcpsum alone (no signing helper: an offline check never
# signs; no test servers) into that checkout, with the Go on PATH, and every
# later run reuses it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$here/.pre-commit-bin/mcpsum
if [ ! -x "$bin" ]; then
	if ! command -v go >/dev/null 2>&1; then
		echo "mcpsum pre-commit hook: no go on PATH to build mcpsum with: install Go (go.mod says which version), or use the hook mcpsum-lock-integrity-system with an mcpsum you installed" >&2
		exit 3
	fi
	echo "mcpsum pre-commit hook: building mcpsum once for this hook version (a cold Go cache takes about a minute)" >&2
	mkdir -p "$here/.pre-commit-bin"
	tmp=$(mktemp "$here/.pre-commit-bin/mcpsum.XXXXXX")
	if ! (cd "$here" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$tmp" ./cmd/mcpsum); then
		rm -f "$tmp"
		exit 3
	fi
	mv -f "$tmp" "$bin" # atomic: pre-commit may run the hook in parallel
fi
exec "$bin" verify --offline "$@"
