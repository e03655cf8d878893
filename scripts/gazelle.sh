#!/bin/sh
# Regenerates every Bazel file from the tree. Run it after adding, moving or
# deleting Go packages or test data, or after changing go.mod:
#
#   scripts/gazelle.sh
#
# 1. gazelle (pinned in tools/go.mod) in fix mode, resolving imports through
#    go.mod (-repo_config ... -external=static: offline, no @latest lookups);
# 2. the parts gazelle does not write: go_test data (the package's testdata/
#    glob, plus //testdata when a test reaches the shared top-level testdata/),
#    tags = ["manual", "e2e"] on e2e tests (they need built binaries, Go and
#    node_modules, which a Bazel sandbox does not have), x_defs/pure on
#    //cmd/mcpsum:mcpsum and //cmd/mcpsum-attest:mcpsum-attest (version
#    stamping, no cgo);
# 3. use_repo(go_deps, ...) in MODULE.bazel = go.mod's direct requirements;
# 4. buildifier formatting.
# .ci/build-checks.sh fails when running this script would change anything.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/ci/lib.sh"
TB=$(tools_bin)
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go_test_pkgs() { # packages (dirs) whose BUILD.bazel has a go_test
	bazel_files | grep -E '(^|/)BUILD\.bazel$' | while read -r f; do
		grep -q '^go_test(' "$f" && dirname "$f"
	done | sed 's|^\.$||'
}

# go_test data belongs to this script: drop it so gazelle re-adds testdata globs.
for d in $(go_test_pkgs); do buildozer_run 'remove data' "//$d:%go_test"; done

repo_config >"$tmp/repos.bzl"
"$TB/gazelle" update -repo_root="$ROOT" -repo_config="$tmp/repos.bzl" -external=static

# Shared top-level testdata/ (corpora used by several packages).
if [ -d testdata ]; then
	if [ ! -f testdata/BUILD.bazel ]; then
		cat >testdata/BUILD.bazel <<'BUILD'
# Corpora shared by several packages' tests (written by scripts/gazelle.sh).
filegroup(
    name = "testdata",
    testonly = True,
    srcs = glob(
        ["**"],
        exclude = ["BUILD.bazel"],
    ),
    visibility = ["//:__subpackages__"],
)
BUILD
	fi
	for d in $(go_test_pkgs); do
		[ "$d" != testdata ] || continue
		if grep -lqE '"(\.\./)+testdata|"\.\."' "$d"/*_test.go 2>/dev/null; then
			buildozer_run 'add data //testdata' "//$d:%go_test"
		fi
	done
fi

# Schemas docs/ publishes (fleet-status.schema.json), which tests validate
# output against.
if ls docs/*.schema.json >/dev/null 2>&1; then
	if [ ! -f docs/BUILD.bazel ]; then
		cat >docs/BUILD.bazel <<'BUILD'
# The JSON schemas docs/ publishes, for the tests that validate against them
# (written by scripts/gazelle.sh).
filegroup(
    name = "schemas",
    testonly = True,
    srcs = glob(["*.schema.json"]),
    visibility = ["//:__subpackages__"],
)
BUILD
	fi
	for d in $(go_test_pkgs); do
		if grep -lqE '"docs", "[^"]*\.schema\.json"|docs/[^"]*\.schema\.json' "$d"/*_test.go 2>/dev/null; then
			buildozer_run 'add data //docs:schemas' "//$d:%go_test"
		fi
	done
fi

# End-to-end tests: Go-test driven, but they build binaries with `go build`
# and need e2e/node_modules; run them with `go test ./e2e/...`.
for d in $(go_test_pkgs); do
	case $d in e2e | e2e/*) buildozer_run 'set tags "manual" "e2e"' "//$d:%go_test" ;; esac
done

# The release binary: version stamped from the workspace status (bazel build
# --config=release, see .bazelrc), no cgo (like scripts/release.sh).
if [ -f cmd/mcpsum/BUILD.bazel ]; then
	buildozer_run 'dict_set x_defs main.version:{STABLE_MCPSUM_VERSION}' 'set pure "on"' //cmd/mcpsum:mcpsum
else
	echo "gazelle.sh: no cmd/mcpsum/BUILD.bazel; //cmd/mcpsum:mcpsum not stamped" >&2
fi
# The signing helper and the log's binary, stamped and built like mcpsum.
if [ -f cmd/mcpsum-attest/BUILD.bazel ]; then
	buildozer_run 'dict_set x_defs main.version:{STABLE_MCPSUM_VERSION}' 'set pure "on"' //cmd/mcpsum-attest:mcpsum-attest
fi
if [ -f cmd/mcpsum-log/BUILD.bazel ]; then
	buildozer_run 'dict_set x_defs main.version:{STABLE_MCPSUM_VERSION}' //cmd/mcpsum-log:mcpsum-log
fi

# use_repo(go_deps, ...) = go.mod's direct requirements (what `bazel mod tidy` writes).
gomod_requires | awk '$2 == "direct" { print $1 }' | repo_name | awk '{ print $1 }' | sort >"$tmp/direct"
awk -v list="$tmp/direct" '
	BEGIN { while ((getline r < list) > 0) repos = repos "\n    \"" r "\"," }
	/^use_repo\(/ {
		buf = $0
		while (buf !~ /\)[[:space:]]*(#.*)?$/ && (getline line) > 0) buf = buf "\n" line
		if (buf !~ /^use_repo\([[:space:]]*go_deps[[:space:]]*[,)]/) { print buf; next }
		found = 1
		if (repos == "") print "use_repo(go_deps)"; else print "use_repo(\n    go_deps," repos "\n)"
		next
	}
	{ print }
	END { if (!found) exit 3 }' MODULE.bazel >"$tmp/MODULE.bazel" || {
	echo "gazelle.sh: MODULE.bazel has no use_repo(go_deps, ...) call to rewrite" >&2
	exit 1
}
cmp -s "$tmp/MODULE.bazel" MODULE.bazel || cat "$tmp/MODULE.bazel" >MODULE.bazel

# shellcheck disable=SC2046
"$TB/buildifier" -mode=fix $(bazel_files)
echo "Bazel files regenerated ($(bazel_files | wc -l) files, $(wc -l <"$tmp/direct") direct deps in use_repo)"
