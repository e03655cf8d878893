#!/bin/sh
# Builds mcpsum for the GitHub Action (action.yml) from the action's own
# checkout ($GITHUB_ACTION_PATH: the runner downloads the repository at the
# ref your workflow pins) with the Go toolchain the runner has. Nothing is
# downloaded but the Go modules go.sum pins (and, when the runner's Go is
# older than go.mod asks for, the toolchain Go's own GOTOOLCHAIN=auto fetches
# and checks).
#   build.sh key   writes key=mcpsum-OS-ARCH-GOVERSION-SOURCEHASH to
#                  $GITHUB_OUTPUT: the cache key of this exact build;
#   build.sh       builds ./cmd/mcpsum into INSTALL_DIR (default
#                  $RUNNER_TEMP/mcpsum-bin) unless a restored build of the
#                  same key is there, and adds INSTALL_DIR to $GITHUB_PATH.
set -eu

fail() { echo "mcpsum build: $*" >&2; exit 1; }

src=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: this script runs inside the GitHub Action}
dest=${INSTALL_DIR:-${RUNNER_TEMP:-/tmp}/mcpsum-bin}
command -v go >/dev/null 2>&1 ||
	fail "no go on PATH: add actions/setup-go before this action (go-version: stable), or set the action's version input to install a release"
cd "$src"

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}
# The version `mcpsum version` reports: the ref the workflow pinned (a
# runner unpacks the action, with no .git, at .../_actions/OWNER/REPO/REF),
# else what git describes of a checkout (uses: ./), else devel.
case $src in
*/_actions/*/*/?*) version=$(printf '%s\n' "${src%/}" | sed 's|.*/_actions/[^/]*/[^/]*/||') ;;
*) version=$(git describe --tags --always --dirty --abbrev=12 2>/dev/null) || version=devel ;;
esac
case $version in
'' | *[!A-Za-z0-9._/+-]*) version=devel ;;
esac
# Every input of the build: the Go files of the command and its packages,
# go.mod, go.sum, the version stamped and the toolchain that builds them.
goversion=$(go env GOVERSION) || fail "'go env GOVERSION' failed in $src (see above)"
sources=$(find cmd internal pkg -name '*.go' ! -name '*_test.go' -type f | LC_ALL=C sort)
# shellcheck disable=SC2086 # file names of this repository have no spaces
hash=$( (echo "$version" && cat go.mod go.sum $sources) | sha256 | cut -c1-20)
key=mcpsum-$(go env GOOS)-$(go env GOARCH)-$goversion-$hash

if [ "${1:-}" = key ]; then
	[ -z "${GITHUB_OUTPUT:-}" ] || echo "key=$key" >>"$GITHUB_OUTPUT"
	echo "mcpsum build key: $key"
	exit 0
fi

if [ -x "$dest/mcpsum" ] && [ "$(cat "$dest/.key" 2>/dev/null)" = "$key" ]; then
	echo "mcpsum: using the cached build $key"
else
	start=$(date +%s)
	echo "mcpsum: building ./cmd/mcpsum $version with $goversion (a cold module and build cache takes a minute or two)"
	mkdir -p "$dest"
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-X main.version=$version" -o "$dest/mcpsum" ./cmd/mcpsum
	echo "$key" >"$dest/.key"
	echo "mcpsum: built in $(($(date +%s) - start)) s"
fi
"$dest/mcpsum" version
[ -z "${GITHUB_PATH:-}" ] || echo "$dest" >>"$GITHUB_PATH"
