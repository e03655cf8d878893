#!/bin/sh
# Recomputes flake.nix's vendorHash: the Nix hash (NAR, SRI sha256) of the
# vendor/ directory `go mod vendor` writes for this source tree, which is what
# nixpkgs' buildGoModule checks (proxyVendor = false). It changes whenever
# go.mod, go.sum or the set of imported packages changes.
#
#   scripts/update-vendorhash.sh          rewrite flake.nix if the hash changed
#   scripts/update-vendorhash.sh --check  exit 1 if flake.nix is stale (CI)
#   scripts/update-vendorhash.sh --print  print the hash only
#
# The source tree is what the flake will see once committed: tracked plus
# untracked, not ignored files (git ls-files -co --exclude-standard).
# Needs nix (apt-get install nix-bin) and the Go module cache (or GOPROXY).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/ci/lib.sh"

mode=${1:-update}
case $mode in update | --check | --print) ;; *)
	echo "usage: scripts/update-vendorhash.sh [--check|--print]" >&2
	exit 2
	;;
esac
command -v nix >/dev/null || {
	echo "update-vendorhash: nix not found; install it (apt-get install -y nix-bin) and rerun" >&2
	exit 3
}

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
(cd "$ROOT" && git ls-files -co --exclude-standard -z |
	tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -x -C "$tmp/src"
rm -rf "$tmp/src/vendor"
(cd "$tmp/src" && GOWORK=off GOFLAGS='' go mod vendor) || {
	echo "update-vendorhash: go mod vendor failed in a copy of the tree; fix go.mod/go.sum (go mod tidy) first" >&2
	exit 3
}
if [ -d "$tmp/src/vendor" ]; then
	want=$(nix --extra-experimental-features nix-command --store "$tmp/nixstore" hash path "$tmp/src/vendor" 2>/dev/null) || want=
	[ -n "$want" ] || {
		echo "update-vendorhash: nix hash path failed on the vendor directory" >&2
		exit 3
	}
	want_nix="\"$want\""
else
	want=null # no external packages imported: buildGoModule wants null
	want_nix=null
fi

line=$(grep -E '^[[:space:]]*vendorHash = ("sha256-[A-Za-z0-9+/]{43}="|null);' "$ROOT/flake.nix" || true)
[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || {
	echo "update-vendorhash: flake.nix must have exactly one 'vendorHash = \"sha256-...\";' line" >&2
	exit 3
}
have=$(printf '%s\n' "$line" | sed -E 's/.*vendorHash = "?([^";]*)"?;.*/\1/')

case $mode in
--print) echo "$want" ;;
--check)
	if [ "$have" != "$want" ]; then
		echo "flake.nix vendorHash is $have, go mod vendor hashes to $want; run: scripts/update-vendorhash.sh" >&2
		exit 1
	fi
	echo "vendorHash $want"
	;;
update)
	if [ "$have" = "$want" ]; then
		echo "flake.nix vendorHash already $want"
	else
		sed -E "s|^([[:space:]]*vendorHash = )(\"sha256-[A-Za-z0-9+/]{43}=\"\|null);|\1$want_nix;|" \
			"$ROOT/flake.nix" >"$tmp/flake.nix"
		cat "$tmp/flake.nix" >"$ROOT/flake.nix"
		echo "flake.nix vendorHash $have -> $want"
	fi
	;;
esac
