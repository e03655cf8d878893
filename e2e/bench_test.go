package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLockParallel measures, in one run, the wall time of locking each
// official npm server alone and of re-locking all four with one `mcpsum lock`.
// It reports the ratio of the parallel run to the slowest single server
// (goal: under 1.5).
//
//	go test ./e2e -run '^$' -bench LockParallel -benchtime 3x
func BenchmarkLockParallel(b *testing.B) {
	dir := b.TempDir()
	served := b.TempDir()
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(b.TempDir(), "m.jsonl")}
	servers := [][]string{
		{"--name", "everything", "--", "node", npmServer(b, "server-everything")},
		{"--name", "filesystem", "--", "node", npmServer(b, "server-filesystem"), served},
		{"--name", "memory", "--env", "MEMORY_FILE_PATH", "--", "node", npmServer(b, "server-memory")},
		{"--name", "sequential-thinking", "--", "node", npmServer(b, "server-sequential-thinking")},
	}
	lock := func(args ...string) time.Duration {
		start := time.Now()
		if _, stderr, code := mcpsum(b, dir, env, append([]string{"lock"}, args...)...); code != 0 {
			b.Fatalf("lock %v: exit %d\n%s", args, code, stderr)
		}
		return time.Since(start)
	}
	var slowestSum, allSum time.Duration
	for i := 0; i < b.N; i++ {
		var slowest time.Duration
		for _, s := range servers {
			slowest = max(slowest, lock(s...))
		}
		slowestSum += slowest
		allSum += lock()
	}
	b.ReportMetric(float64(slowestSum.Milliseconds())/float64(b.N), "slowest-alone-ms")
	b.ReportMetric(float64(allSum.Milliseconds())/float64(b.N), "all-four-ms")
	b.ReportMetric(float64(allSum)/float64(slowestSum), "ratio")
}

// BenchmarkVerifyParallel is the same comparison for verify.
func BenchmarkVerifyParallel(b *testing.B) {
	dir := b.TempDir()
	served := b.TempDir()
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(b.TempDir(), "m.jsonl")}
	names := []string{"everything", "filesystem", "memory", "sequential-thinking"}
	for _, s := range [][]string{
		{"--name", "everything", "--", "node", npmServer(b, "server-everything")},
		{"--name", "filesystem", "--", "node", npmServer(b, "server-filesystem"), served},
		{"--name", "memory", "--env", "MEMORY_FILE_PATH", "--", "node", npmServer(b, "server-memory")},
		{"--name", "sequential-thinking", "--", "node", npmServer(b, "server-sequential-thinking")},
	} {
		if _, stderr, code := mcpsum(b, dir, env, append([]string{"lock"}, s...)...); code != 0 {
			b.Fatalf("lock: exit %d\n%s", code, stderr)
		}
	}
	verify := func(args ...string) time.Duration {
		start := time.Now()
		if out, _, code := mcpsum(b, dir, env, append([]string{"verify"}, args...)...); code != 0 {
			b.Fatalf("verify %v: exit %d\n%s", args, code, out)
		}
		return time.Since(start)
	}
	var slowestSum, allSum time.Duration
	for i := 0; i < b.N; i++ {
		var slowest time.Duration
		for _, n := range names {
			slowest = max(slowest, verify("--name", n))
		}
		slowestSum += slowest
		allSum += verify()
	}
	b.ReportMetric(float64(slowestSum.Milliseconds())/float64(b.N), "slowest-alone-ms")
	b.ReportMetric(float64(allSum.Milliseconds())/float64(b.N), "all-four-ms")
	b.ReportMetric(float64(allSum)/float64(slowestSum), "ratio")
}
