#!/bin/sh
# Build checks (issue 7): what can be checked here about the Bazel files, the
# Nix flake and reproducible release binaries. Bazel itself cannot run on
# these machines (no Bazel >= 7.7, no Bazel Central Registry), and nixpkgs
# cannot be fetched, so this checks what it can and says so.
#
#   .ci/build-checks.sh                 all checks
#   .ci/build-checks.sh CHECK...        some: buildifier gazelle regenerate
#                                       use_repo flake-parse vendorhash
#                                       flake-eval repro cross
#
# Installs nix-bin with apt-get when nix is missing (root). Builds the pinned
# gazelle/buildifier/buildozer from tools/go.mod. The repro check builds the
# release binaries in two fresh clones of HEAD with two separate Go build
# caches (MCPSUM_REPRO_CACHE, default ~/.cache/mcpsum/repro); set
# MCPSUM_REPRO_TARGETS="linux/amd64" to build fewer targets.
# Prints one PASS/FAIL line per check (a failing check's output above it;
# MCPSUM_CHECKS_VERBOSE=1 shows every check's output); exit 1 if any failed.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/ci/lib.sh"
cd "$ROOT"

all="buildifier gazelle regenerate use_repo flake-parse vendorhash flake-eval repro cross"
checks=${*:-$all}
for c in $checks; do
	case " $all " in *" $c "*) ;; *)
		echo "build-checks: unknown check $c (known: $all)" >&2
		exit 2
		;;
	esac
done
wants() { case " $checks " in *" $1 "*) return 0 ;; esac; return 1; }

tmp=$(mktemp -d)
cleanup() {
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
t0=$(date +%s)

# --- setup ------------------------------------------------------------------
if wants flake-parse || wants vendorhash || wants flake-eval; then
	if ! command -v nix >/dev/null; then
		echo "setup: installing nix-bin (apt-get)"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends nix-bin >/dev/null; } || {
			echo "setup: apt-get install nix-bin failed; the Nix checks need it" >&2
			exit 1
		}
	fi
	# A throw-away store keeps Nix out of /nix; root single-user mode, no daemon.
	NIX="nix --extra-experimental-features nix-command --extra-experimental-features flakes --store $tmp/nixstore"
fi
if wants buildifier || wants gazelle || wants regenerate; then
	TB=$(tools_bin)
fi
echo "setup done ($(($(date +%s) - t0))s)"

failed=
run() { # run NAME FUNCTION: one PASS/FAIL line, the last line of its output as summary
	name=$1
	wants "$name" || return 0
	s=$(date +%s)
	if "$2" >"$tmp/$name.log" 2>&1; then
		[ -z "${MCPSUM_CHECKS_VERBOSE:-}" ] || sed '$d; s/^/    /' "$tmp/$name.log"
		ok "$name" "$(tail -n 1 "$tmp/$name.log") ($(($(date +%s) - s))s)"
	else
		sed 's/^/    /' "$tmp/$name.log"
		fail "$name" "$(tail -n 1 "$tmp/$name.log") ($(($(date +%s) - s))s)"
		failed="$failed $name"
	fi
}

# --- Bazel files ----------------------------------------------------------------
check_buildifier() {
	# shellcheck disable=SC2046
	"$TB/buildifier" -mode=check -lint=warn $(bazel_files) || {
		echo "buildifier: Bazel files need formatting or have lint warnings; run: scripts/gazelle.sh (formats) and fix the warnings"
		return 1
	}
	echo "buildifier clean ($(bazel_files | wc -l) files)"
}

check_gazelle() {
	repo_config >"$tmp/repos.bzl"
	"$TB/gazelle" update -mode=diff -repo_root="$ROOT" -repo_config="$tmp/repos.bzl" -external=static || {
		echo "gazelle: BUILD files out of date with the Go sources; run: scripts/gazelle.sh"
		return 1
	}
	echo "gazelle -mode=diff: BUILD files match the Go sources"
}

check_regenerate() {
	# scripts/gazelle.sh on a copy of the tree must change nothing.
	mkdir "$tmp/regen"
	src_files | tar --ignore-failed-read -T - -cf - 2>/dev/null | tar -x -C "$tmp/regen"
	(cd "$tmp/regen" && MCPSUM_TOOLS_BIN=$TB sh scripts/gazelle.sh) >"$tmp/regen.log" 2>&1 || {
		cat "$tmp/regen.log"
		echo "regenerate: scripts/gazelle.sh failed on a copy of the tree"
		return 1
	}
	(cd "$tmp/regen" && ROOT=$tmp/regen bazel_files) >"$tmp/regen.files"
	bazel_files >"$tmp/tree.files"
	rc=0
	diff -u "$tmp/tree.files" "$tmp/regen.files" || rc=1
	while read -r f; do
		[ ! -f "$tmp/regen/$f" ] || diff -u "$f" "$tmp/regen/$f" || rc=1
	done <"$tmp/tree.files"
	[ "$rc" = 0 ] || {
		echo "regenerate: scripts/gazelle.sh would change the Bazel files as shown; run: scripts/gazelle.sh"
		return 1
	}
	echo "scripts/gazelle.sh is a no-op (data, e2e tags, x_defs, use_repo, formatting)"
}

check_use_repo() { sh ci/check-use-repo.sh; }

# --- Nix --------------------------------------------------------------------------
check_flake_parse() {
	for f in flake.nix ci/nixpkgs-stub/flake.nix; do
		nix-instantiate --store "$tmp/nixstore" --parse "$f" >/dev/null 2>"$tmp/parse.err" || {
			grep -v "group 'nixbld'" "$tmp/parse.err"
			echo "flake-parse: $f does not parse"
			return 1
		}
	done
	echo "flake.nix and the nixpkgs stub parse"
}

check_vendorhash() { sh scripts/update-vendorhash.sh --check; }

check_flake_eval() {
	git ls-files --error-unmatch flake.nix ci/nixpkgs-stub/flake.nix >/dev/null 2>&1 || {
		echo "flake-eval: flake.nix and ci/nixpkgs-stub/flake.nix must be tracked by git (a flake sees tracked files only); git add them"
		return 1
	}
	stub="--override-input nixpkgs path:$ROOT/ci/nixpkgs-stub"
	rcf=0
	# shellcheck disable=SC2086
	$NIX flake check --offline --no-build --no-write-lock-file $stub "git+file://$ROOT" >"$tmp/fc.log" 2>&1 || rcf=$?
	grep -v "group 'nixbld'\|Git tree .* is dirty\|not writing modified lock file\|Added input 'nixpkgs'\|nixpkgs-stub?lastModified" "$tmp/fc.log" || true
	[ "$rcf" = 0 ] || {
		echo "flake-eval: nix flake check against the nixpkgs stub failed (above)"
		return 1
	}
	# Force every output of every system (instantiating each derivation) and
	# show what it evaluated to.
	: >"$tmp/eval.out"
	for out in packages apps devShells checks; do
		# shellcheck disable=SC2086
		$NIX eval --offline --no-write-lock-file $stub --raw "git+file://$ROOT#$out" \
			--apply "($(cat ci/flake-summary.nix)) \"$out\"" >>"$tmp/eval.out" 2>"$tmp/eval.err" || {
			grep -v "group 'nixbld'\|Git tree .* is dirty\|not writing modified\|Added input\|nixpkgs-stub?lastModified" "$tmp/eval.err"
			echo "flake-eval: evaluating $out against the nixpkgs stub failed (above)"
			return 1
		}
	done
	sort "$tmp/eval.out"
	n=$(cut -d: -f1 "$tmp/eval.out" | sort -u | wc -l)
	[ "$n" = 4 ] || {
		echo "flake-eval: outputs cover $n systems, want 4 (x86_64/aarch64 Linux and Darwin)"
		return 1
	}
	echo "flake outputs evaluate for $n systems (packages, apps, devShells, checks)"
}

# --- reproducible release binaries --------------------------------------------------
check_repro() {
	rev=$(git rev-parse HEAD)
	cache=${MCPSUM_REPRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpsum/repro}
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		echo "note: the working tree has uncommitted changes; repro builds HEAD ($rev) only"
	git clone -q --no-local "$ROOT" "$tmp/a/mcpsum"
	git clone -q --no-local "$ROOT" "$tmp/b/some/deeper/path/mcpsum"
	for side in a b; do
		dir=$tmp/a/mcpsum
		[ $side = a ] || dir=$tmp/b/some/deeper/path/mcpsum
		(cd "$dir" && git checkout -q "$rev" &&
			GOCACHE=$cache/gocache-$side MCPSUM_DIST=$tmp/dist-$side MCPSUM_TARGETS=${MCPSUM_REPRO_TARGETS:-} \
				sh scripts/release.sh "repro-$(git rev-parse --short=12 HEAD)") || {
			echo "repro: release build in clone $side failed (above)"
			return 1
		}
	done
	rc=0
	for f in $(awk '{ print $2 }' "$tmp/dist-a/SHA256SUMS"); do
		cmp "$tmp/dist-a/$f" "$tmp/dist-b/$f" || rc=1
	done
	cmp "$tmp/dist-a/SHA256SUMS" "$tmp/dist-b/SHA256SUMS" || rc=1
	[ "$rc" = 0 ] || {
		echo "repro: the two clones built different bytes (above)"
		return 1
	}
	echo "two clones of $(git rev-parse --short=12 HEAD) built identical bytes: $(awk '{ print $2 }' "$tmp/dist-a/SHA256SUMS" | tr '\n' ' ')"
}

# --- other systems ------------------------------------------------------------------
# Every package builds for macOS and Windows without cgo, as the release
# does (go build, not vet: test files' dependencies double the cold cost).
check_cross() {
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go build ./... || {
		echo "cross: go build for darwin/arm64 failed (above)"
		return 1
	}
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build ./... || {
		echo "cross: go build for windows/amd64 failed (above)"
		return 1
	}
	echo "go build darwin/arm64 and windows/amd64 pass"
}

run buildifier check_buildifier
run gazelle check_gazelle
run regenerate check_regenerate
run use_repo check_use_repo
run flake-parse check_flake_parse
run vendorhash check_vendorhash
run flake-eval check_flake_eval
run repro check_repro
run cross check_cross

echo "build checks: $(($(date +%s) - t0))s"
if [ -n "$failed" ]; then
	echo "build checks FAILED:$failed"
	exit 1
fi
echo "build checks passed"
