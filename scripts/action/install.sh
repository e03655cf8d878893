#!/bin/sh
# Installs a pinned mcpsum release for the GitHub Action (action.yml) and
# verifies it before it ever runs:
#   1. downloads mcpsum-<os>-<arch> and SHA256SUMS of release VERSION;
#   2. checks the binary against its line in SHA256SUMS;
#   3. when SHA256 is set (recommended: it is pinned in your workflow, not
#      fetched from the same place as the binary), checks that too;
#   4. only then installs it into INSTALL_DIR and adds that to $GITHUB_PATH.
# Inputs (environment): MCPSUM_VERSION (required, e.g. v0.3.0), MCPSUM_SHA256,
# MCPSUM_BASE_URL (default https://github.com/mcpsum/mcpsum/releases/download),
# INSTALL_DIR (default $RUNNER_TEMP/mcpsum-bin).
set -eu

fail() { echo "mcpsum install: $*" >&2; exit 1; }

version=${MCPSUM_VERSION:-}
[ -n "$version" ] || fail "no version: set the action's version input (a release tag such as v0.3.0)"
case $version in *[!A-Za-z0-9._+-]*) fail "version $version may only use letters, digits and . _ + -" ;; esac
base=${MCPSUM_BASE_URL:-https://github.com/mcpsum/mcpsum/releases/download}
dest=${INSTALL_DIR:-${RUNNER_TEMP:-/tmp}/mcpsum-bin}

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) fail "no mcpsum release for $(uname -s) (linux and darwin only)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no mcpsum release for $(uname -m) (amd64 and arm64 only)" ;;
esac
name=mcpsum-$os-$arch

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/$name" "$base/$version/$name" || fail "downloading $base/$version/$name failed"
curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$base/$version/SHA256SUMS" || fail "downloading $base/$version/SHA256SUMS failed"

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}
got=$(sha256 "$work/$name")
listed=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$work/SHA256SUMS")
[ -n "$listed" ] || fail "SHA256SUMS of $version has no line for $name"
[ "$got" = "$listed" ] || fail "$name of $version has sha256 $got but SHA256SUMS says $listed: not installed"
if [ -n "${MCPSUM_SHA256:-}" ] && [ "$got" != "$MCPSUM_SHA256" ]; then
	fail "$name of $version has sha256 $got but the workflow pins $MCPSUM_SHA256: not installed"
fi

mkdir -p "$dest"
install -m 0755 "$work/$name" "$dest/mcpsum"
[ -z "${GITHUB_PATH:-}" ] || echo "$dest" >>"$GITHUB_PATH"
echo "mcpsum $version ($name, sha256 $got) installed in $dest"
