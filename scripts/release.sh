#!/bin/sh
# Builds the release binaries of mcpsum, bit for bit reproducibly, and writes
# SHA256SUMS next to them:
#
#   scripts/release.sh [VERSION]        default VERSION: git describe --tags --always --dirty --abbrev=12
#
# Output: dist/mcpsum-<os>-<arch> and its signing helper
# dist/mcpsum-attest-<os>-<arch> and the log operator's dist/mcpsum-log-<os>-<arch>
# (every binary under cmd/) for linux/amd64,
# linux/arm64, darwin/amd64, darwin/arm64, and dist/SHA256SUMS (MCPSUM_DIST=dir to write elsewhere,
# MCPSUM_TARGETS="linux/amd64 ..." for a subset). Anyone building the same
# commit with the same VERSION gets the same bytes, from any checkout path:
#   - Go is exactly go1.26.8 (GOTOOLCHAIN=go1.26.8 fetches it if the local go differs);
#   - GOENV=off ignores the user's go env file (this machine's sets GOFLAGS),
#     and every setting that changes the output is passed explicitly;
#   - CGO_ENABLED=0 (static, no host C toolchain), -trimpath (no checkout or
#     module-cache paths), -buildvcs=false (no VCS stamp, so an untracked file
#     cannot change the bytes), -buildid= and -s -w.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

version=${1:-$(git describe --tags --always --dirty --abbrev=12 2>/dev/null || echo devel)}
case $version in *[!A-Za-z0-9._+-]* | "")
	echo "release: version $version may only use letters, digits and . _ + -" >&2
	exit 2
	;;
esac
dist=${MCPSUM_DIST:-$ROOT/dist}
targets=${MCPSUM_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}

export GOENV=off GOTOOLCHAIN=go1.26.8 GOWORK=off GOFLAGS=-mod=readonly
export CGO_ENABLED=0 GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT='' GOFIPS140=off
unset GOROOT 2>/dev/null || true

gov=$(go env GOVERSION)
[ "$gov" = go1.26.8 ] || {
	echo "release: go env GOVERSION is $gov, want go1.26.8 (GOTOOLCHAIN=go1.26.8 could not switch)" >&2
	exit 3
}

mkdir -p "$dist"
names=
bins=$(cd cmd && ls -d -- */ | tr -d /)
for t in $targets; do
	os=${t%/*}
	arch=${t#*/}
	for bin in $bins; do
		name=$bin-$os-$arch
		GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false \
			-ldflags="-s -w -buildid= -X main.version=$version" \
			-o "$dist/$name" "./cmd/$bin" || {
			echo "release: building $bin for $os/$arch failed (above)" >&2
			exit 1
		}
		names="$names $name"
	done
done
# shellcheck disable=SC2086
(cd "$dist" && sha256sum $names >SHA256SUMS)
echo "release $version ($gov) in $dist:"
sed 's/^/  /' "$dist/SHA256SUMS"
