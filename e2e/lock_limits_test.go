package e2e

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script writes dir/name, a shell script running the hostile server (a
// FAKE: no real server nests a schema thousands of levels deep) with args.
func script(t *testing.T, dir, name, args string) {
	t.Helper()
	body := fmt.Sprintf("#!/bin/sh\nexec %s %s\n", bin.hostile, args)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A lockfile stays readable whatever a server sends. A 96 KB tool nested
// 4,000 levels deep made `lock` write a 32 MB file (two spaces per level
// per line) that took 20 times as long to check as the same tool flat; now
// the file is at most twice the flat one's, verify, verify --offline and
// the proxy use it, and show writes it in at most twice the flat one's
// bytes too. An entry that would break a limit of what
// mcpsum reads back (nesting, then size) is refused by name (server, item,
// limit) while the others are re-locked, and the file still reads back.
func TestLockfileStaysReadable(t *testing.T) {
	t.Parallel()
	flatDir, dir := t.TempDir(), t.TempDir()
	script(t, flatDir, "deep.sh", "-mode deep -depth 0")
	mustLock(t, flatDir, nil, "--name", "deep", "--", "sh", "deep.sh")
	_, flat := readLock(t, flatDir)

	script(t, dir, "fine.sh", "-mode legacy")
	script(t, dir, "deep.sh", "-mode deep -depth 4000")
	mustLock(t, dir, nil, "--name", "fine", "--", "sh", "fine.sh")
	mustLock(t, dir, nil, "--name", "deep", "--", "sh", "deep.sh")
	_, data := readLock(t, dir)
	if len(data) > 2*len(flat)+4096 {
		t.Fatalf("a 96 KB tool nested 4,000 deep made a %d-byte lockfile; flat, %d bytes", len(data), len(flat))
	}
	for _, args := range [][]string{{"verify"}, {"verify", "--offline"}} {
		if out, stderr, code := mcpsum(t, dir, nil, args...); code != 0 {
			t.Fatalf("mcpsum %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	flatShow, _, _ := mcpsum(t, flatDir, nil, "show", "--name", "deep")
	if out, stderr, code := mcpsum(t, dir, nil, "show", "--name", "deep"); code != 0 || len(out) > 2*len(flatShow) {
		t.Fatalf("show of the deep tool: exit %d, %d bytes (flat: %d)\n%s", code, len(out), len(flatShow), stderr)
	}
	rp := startLineProxy(t, dir, "deep")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if resp, _ := rp.until("2"); resp["result"] == nil {
		t.Fatalf("the proxy refused a call to the deep server: %s", resp["error"])
	}

	// One level past what a lockfile can hold: refused by name, "fine" is
	// re-locked, the file reads back with the old "deep".
	script(t, dir, "deep.sh", "-mode deep -depth 9996")
	script(t, dir, "fine.sh", "-mode onetemplate")
	_, stderr, code := mcpsum(t, dir, nil, "lock")
	for _, want := range []string{`"deep"`, `tool "deep"`, "nested more than 9996 levels deep, the most a lockfile can hold"} {
		if code != 3 || !strings.Contains(stderr, want) {
			t.Fatalf("lock of a too deep tool: exit %d, want 3 and %q in:\n%s", code, want, stderr)
		}
	}
	l, _ := readLock(t, dir)
	if len(l.Servers["fine"].ResourceTemplates) != 1 {
		t.Fatalf("the other entry was not re-locked:\n%s", stderr)
	}
	if out, stderr, code := mcpsum(t, dir, nil, "verify", "--offline"); code != 0 {
		t.Fatalf("verify --offline after the refusal: exit %d\n%s%s", code, out, stderr)
	}

	// 4 MiB of small numbers 15 levels into the file: about 66 MiB once
	// indented, over the 64 MiB mcpsum reads. Refused by name, "fine"
	// written, the file reads back.
	script(t, dir, "deep.sh", "-mode deep -depth 9 -fill numbers -size 4200000")
	script(t, dir, "fine.sh", "-mode legacy")
	_, stderr, code = mcpsum(t, dir, nil, "lock")
	for _, want := range []string{`server "deep": tool "deep": over the 64 MiB a lockfile may hold`, "the other entries were written"} {
		if code != 3 || !strings.Contains(stderr, want) {
			t.Fatalf("lock of an entry over the size limit: exit %d, want 3 and %q in:\n%s", code, want, stderr)
		}
	}
	if l, _ := readLock(t, dir); len(l.Servers["fine"].ResourceTemplates) != 0 {
		t.Fatalf("the other entry was not re-locked:\n%s", stderr)
	}
	if out, stderr, code := mcpsum(t, dir, nil, "verify", "--offline"); code != 0 {
		t.Fatalf("verify --offline after the refusal: exit %d\n%s%s", code, out, stderr)
	}
}

// TestDeepSchemaCost measures, interleaved in one run, what a 2 MiB tool
// nested 4,000 and 9,995 levels deep costs against the same bytes flat in
// each command that reads or writes it: lock (a re-lock), verify, verify
// --offline and the proxy's check (start, initialize, one call answered
// once the check passed). It prints medians and deep/flat ratios (goal: at
// most 2) and asserts only that everything passes; run it with
//
//	MCPSUM_DEEP_PERF=1 go test ./e2e -run TestDeepSchemaCost -v
//
// MCPSUM_BENCH_BASELINE names an mcpsum built from another commit, run
// the same way in its own folders; MCPSUM_BENCH_ROUNDS the rounds (5).
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestDeepSchemaCost(t *testing.T) {
	if os.Getenv("MCPSUM_DEEP_PERF") != "1" {
		t.Skip("set MCPSUM_DEEP_PERF=1 to run the deep schema benchmark")
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("MCPSUM_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	bins := map[string]string{"this": bin.mcpsum}
	if base := os.Getenv("MCPSUM_BENCH_BASELINE"); base != "" {
		bins["baseline"] = base
	}
	type setup struct{ bin, dir string }
	setups := map[string]setup{}
	for b, exe := range bins {
		for _, depth := range []int{0, 4000, 9995} {
			dir := t.TempDir()
			script(t, dir, "deep.sh", fmt.Sprintf("-mode deep -size %d -depth %d", 2<<20, depth))
			cmd := exec.Command(exe, "lock", "--name", "deep", "--", "sh", "deep.sh")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("%s depth %d: lock failed: %v\n%s", b, depth, err, out)
				continue
			}
			setups[fmt.Sprintf("%s/depth=%d", b, depth)] = setup{exe, dir}
		}
	}
	run := func(s setup, args ...string) time.Duration {
		start := time.Now()
		cmd := exec.Command(s.bin, args...)
		cmd.Dir = s.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			if s.bin == bin.mcpsum {
				t.Fatalf("%v in %s: %v\n%.2000s", args, s.dir, err, out)
			}
			t.Logf("baseline %v in %s failed: %v\n%.300s", args, s.dir, err, out)
			return -1 // the baseline may not read back what it wrote
		}
		return time.Since(start)
	}
	ops := map[string]func(s setup) time.Duration{
		"lock":           func(s setup) time.Duration { return run(s, "lock") },
		"verify":         func(s setup) time.Duration { return run(s, "verify") },
		"verify-offline": func(s setup) time.Duration { return run(s, "verify", "--offline") },
		"proxy-check": func(s setup) time.Duration {
			if s.bin != bin.mcpsum && run(s, "verify", "--offline") < 0 {
				return -1
			}
			start := time.Now()
			c := startBench(t, []string{s.bin, "proxy", "--lockfile", filepath.Join(s.dir, "mcp.lock"), "--name", "deep"})
			c.initialize()
			if r := c.call(`{"name":"echo","arguments":{}}`); !bytes.Contains(r, []byte(`"result"`)) {
				t.Fatalf("proxy call: %.300s", r)
			}
			d := time.Since(start)
			c.in.Close()
			c.cmd.Wait()
			return d
		},
	}
	m := measures{d: map[string][]time.Duration{}}
	for range rounds {
		for key, s := range setups {
			for op, f := range ops {
				m.add(op+"/"+key, f(s))
			}
		}
	}
	keys := slices.Sorted(maps.Keys(m.d))
	for _, k := range keys {
		op, rest, _ := strings.Cut(k, "/")
		b, _, _ := strings.Cut(rest, "/")
		flat := m.med(op + "/" + b + "/depth=0")
		if m.med(k) < 0 {
			t.Logf("%-40s failed", k)
			continue
		}
		t.Logf("%-40s %8.1f ms   %.2fx flat", k, float64(m.med(k).Microseconds())/1000, float64(m.med(k))/float64(flat))
	}
}
