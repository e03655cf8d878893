package sandbox

import (
	"os/exec"
	"sort"
	"syscall"
	"testing"
	"time"
)

// reportMedian adds the median of d as a metric named unit.
func reportMedian(b *testing.B, d []time.Duration, unit string) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, unit)
	}
}

// BenchmarkStartDirect starts /bin/true the way mcpwire starts a server (own
// process group). exec-ms: until the program runs (Start returns after its
// execve); total-ms: until it has exited and been reaped.
func BenchmarkStartDirect(b *testing.B) {
	var execD, total []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		execD = append(execD, time.Since(t0))
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		total = append(total, time.Since(t0))
	}
	reportMedian(b, execD, "exec-ms")
	reportMedian(b, total, "total-ms")
}

// BenchmarkStartSandboxed does the same sandboxed (no network). exec-ms runs
// from Prepare until Ready (the program was exec'd inside the sandbox);
// total-ms also counts its exit, the sandbox's teardown and Close.
func BenchmarkStartSandboxed(b *testing.B) {
	requireSandbox(b)
	var execD, total []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		l, err := Prepare(Config{Name: "bench"}, []string{"/bin/true"}, shEnv)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
		cmd.Env, cmd.ExtraFiles, cmd.SysProcAttr = l.Env, l.ExtraFiles, l.SysProcAttr
		cmd.SysProcAttr.Setpgid = true
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if err := l.Ready(); err != nil {
			b.Fatal(err)
		}
		execD = append(execD, time.Since(t0))
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		total = append(total, time.Since(t0))
	}
	reportMedian(b, execD, "exec-ms")
	reportMedian(b, total, "total-ms")
}
