#!/bin/sh
# Prints every row of issue 15's table (start-up, first initialize, peak RSS,
# sandbox start, big surfaces) as mcpsum-vs-floor ratios from one interleaved
# run (e2e TestLeanBench), then the in-process micro-benchmarks behind them.
#
#   scripts/bench.sh [BASELINE_MCPSUM]
#
# BASELINE_MCPSUM, if given, is another mcpsum binary (e.g. built from an
# older commit: git worktree add /tmp/old main && (cd /tmp/old && go build -o
# /tmp/mcpsum-old ./cmd/mcpsum)) measured in the same rounds.
# MCPSUM_BENCH_ROUNDS=N sets the rounds (default 7).
set -eu
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
	MCPSUM_BENCH_BASELINE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	export MCPSUM_BENCH_BASELINE
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
MCPSUM_BENCH=1 go test ./e2e -run '^TestLeanBench$' -count=1 -v -timeout 30m >"$out" 2>&1 || rc=$?
grep -v '^=== RUN\|^--- PASS\|^PASS\|^ok ' "$out" || true
[ "$rc" = 0 ] || { echo "bench: the e2e benchmark failed (above)" >&2; exit "$rc"; }
go test ./pkg/lockfile -run '^$' -bench 'Parse1000Tools|NewServer1000Tools|Canonical|Compare1000Tools|Relock1000Tools' -benchtime 20x -count=1 >"$out" 2>&1 || rc=$?
grep '^Benchmark\|FAIL' "$out" || true
exit "$rc"
