# Shared helpers for scripts/*.sh and .ci/build-checks.sh (sourced, POSIX sh).
# Callers set ROOT to the repository root before sourcing.

# This machine's Go env file sets GOFLAGS=-buildvcs=false and GOTOOLCHAIN=local;
# an empty GOFLAGS does not override the file, so set what we mean and pass
# build flags explicitly. -mod=readonly: never let a check edit go.mod/go.sum.
export GOFLAGS=-mod=readonly

# tools_bin prints a directory holding gazelle, buildifier, buildozer and
# staticcheck at the versions pinned by tools/go.mod (built with
# `go install tool`, cached).
tools_bin() {
	_tb=${MCPSUM_TOOLS_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpsum/tools-bin}
	mkdir -p "$_tb"
	(cd "$ROOT/tools" && GOBIN="$_tb" go install tool) >&2 || {
		echo "tools: could not build the pinned gazelle/buildifier/buildozer/staticcheck from tools/go.mod" >&2
		return 1
	}
	echo "$_tb"
}

# gomod_requires prints "PATH direct|indirect" for every requirement in
# ROOT/go.mod (read with `go mod edit -json`: no module graph, no network).
# Like gazelle's go_deps, a requirement is direct when it has no // indirect
# comment or when it provides a package named by a `tool` line.
gomod_requires() {
	(cd "$ROOT" && go mod edit -json) | awk '
		/^[[:space:]]*"(Require|Tool)": \[/ { sect = ($0 ~ /Require/) ? "req" : "tool"; next }
		sect != "" && /^[[:space:]]*\]/ { sect = ""; next }
		sect != "" && /"Path":/ { p = $0; sub(/.*"Path": "/, "", p); sub(/".*/, "", p)
			if (sect == "tool") tools[++nt] = p; else { req[++nr] = p; ind[nr] = 0 } }
		sect == "req" && /"Indirect": true/ { ind[nr] = 1 }
		END {
			for (i = 1; i <= nr; i++) {
				d = !ind[i]
				for (j = 1; j <= nt && !d; j++)
					if (tools[j] == req[i] || index(tools[j], req[i] "/") == 1) d = 1
				print req[i], (d ? "direct" : "indirect")
			}
		}'
}

# repo_name reads module paths on stdin and prints "REPO PATH" per line, with
# the repository names gazelle'"'"'s go_deps gives them (reversed host labels +
# path, every non-alphanumeric character as "_", lower case).
repo_name() {
	awk 'NF {
		n = split($1, p, "/"); m = split(p[1], h, ".");
		name = ""; for (i = m; i >= 1; i--) name = name (name == "" ? "" : "_") h[i];
		for (i = 2; i <= n; i++) name = name "_" p[i];
		gsub(/[^A-Za-z0-9_]/, "_", name); print tolower(name), $1 }'
}

# ok/fail print the one-line summary of a check.
ok() { printf 'PASS  %-14s %s\n' "$1" "$2"; }
fail() { printf 'FAIL  %-14s %s\n' "$1" "$2"; }

# repo_config prints a WORKSPACE-style file with one go_repository per go.mod
# requirement, named as go_deps names them, for
# `gazelle -repo_config=FILE -external=static`: gazelle then resolves imports
# to the versions in go.mod, offline, instead of `go get`ting @latest.
repo_config() {
	gomod_requires | awk '{ print $1 }' | repo_name |
		awk '{ printf "go_repository(name = \"%s\", importpath = \"%s\")\n", $1, $2 }'
}

# src_files lists the files of the tree as the flake and a fresh commit see
# them: tracked plus untracked-but-not-ignored; outside git, a plain walk.
src_files() {
	if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -co --exclude-standard)
	else
		(cd "$ROOT" && find . -type f ! -path './.git/*' ! -path '*/node_modules/*' ! -path './vendor/*' | sed 's|^\./||')
	fi
}

# bazel_files lists the Bazel files (BUILD, MODULE, .bzl) among src_files.
bazel_files() {
	src_files | grep -E '(^|/)(BUILD|BUILD\.bazel|MODULE\.bazel|WORKSPACE|WORKSPACE\.bazel|[^/]+\.bzl)$' | sort
}

# buildozer_run runs buildozer; exit 3 ("nothing changed") counts as success.
buildozer_run() {
	_rc=0
	"$TB/buildozer" -quiet "$@" || _rc=$?
	[ "$_rc" = 0 ] || [ "$_rc" = 3 ]
}
