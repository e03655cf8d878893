#!/bin/sh
# Fails unless use_repo(go_deps, ...) in MODULE.bazel lists exactly go.mod's
# direct requirements (what go_deps reports and `bazel mod tidy` writes;
# modules of `tool` lines count as direct), and
# every external Go repository a BUILD file references is among them (else
# `bazel build` fails: "No repository visible as '@...'").
# Assumes go_deps' default repository names (no module_override repo_name).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/ci/lib.sh"
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gomod_requires | awk '$2 == "direct" { print $1 }' | repo_name | awk '{ print $1 }' | sort -u >"$tmp/want"
gomod_requires | awk '{ print $1 }' | repo_name | awk '{ print $1 }' | sort -u >"$tmp/all"
tr '\n' ' ' <MODULE.bazel | grep -o 'use_repo( *go_deps[^)]*)' | grep -o '"[^"]*"' | tr -d '"' | sort -u >"$tmp/have"
# shellcheck disable=SC2046
cat /dev/null $(bazel_files | grep -v '^MODULE\.bazel$') | grep -oE '"@[A-Za-z0-9_.~+-]+//' |
	sed -E 's/^"@//; s|//$||' | sort -u >"$tmp/used"

bad=0
if ! cmp -s "$tmp/want" "$tmp/have"; then
	echo "use_repo(go_deps, ...) in MODULE.bazel differs from go.mod's direct requirements:"
	comm -23 "$tmp/want" "$tmp/have" | sed 's/^/  missing from use_repo: /'
	comm -13 "$tmp/want" "$tmp/have" | sed 's/^/  not a direct go.mod requirement: /'
	bad=1
fi
# Repositories BUILD files use that use_repo does not bring into scope.
comm -23 "$tmp/used" "$tmp/have" | grep -vxE 'rules_go|gazelle|bazel_tools|platforms|io_bazel_rules_go|bazel_gazelle' >"$tmp/unseen" || true
if [ -s "$tmp/unseen" ]; then
	echo "BUILD files reference Go repositories that use_repo does not import:"
	while read -r r; do
		if grep -qx "$r" "$tmp/want"; then
			echo "  @$r: a direct go.mod requirement missing from use_repo"
		elif grep -qx "$r" "$tmp/all"; then
			echo "  @$r: in go.mod but marked // indirect although imported; run go mod tidy"
		else
			echo "  @$r: not in go.mod at all; go get the module"
		fi
	done <"$tmp/unseen"
	bad=1
fi
if [ "$bad" = 1 ]; then
	echo "use_repo out of sync with go.mod or the BUILD files; fix go.mod if said above, then run: scripts/gazelle.sh"
	exit 1
fi
echo "use_repo in sync ($(wc -l <"$tmp/have") direct deps, $(wc -l <"$tmp/used") repos referenced)"
