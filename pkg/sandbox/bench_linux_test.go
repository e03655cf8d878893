package sandbox

import (
	"os/exec"
	"sort"
	"syscall"
	"testing"
	"time"
)

// reportMedian adds the median wall time of the runs as "median-ms".
func reportMedian(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "median-ms")
	}
}

// BenchmarkStartDirect: start /bin/true the way mcpwire starts a server
// (own process group) and wait for it.
func BenchmarkStartDirect(b *testing.B) {
	var d []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportMedian(b, d)
}

// BenchmarkStartSandboxed: the same, sandboxed with no network, counting
// Prepare (policy checks, ${TMP}), the start, the wait and Close.
func BenchmarkStartSandboxed(b *testing.B) {
	requireSandbox(b)
	var d []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		l, err := Prepare(Config{Name: "bench"}, []string{"/bin/true"}, shEnv)
		if err != nil {
			b.Fatal(err)
		}
		if _, stderr, err := run(b, l, ""); err != nil {
			b.Fatalf("%v: %s", err, stderr)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportMedian(b, d)
}
