package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readAudit(t *testing.T, path string) []auditRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditRecord
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var r auditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

// A server looping refused CONNECTs through the real egress proxy writes one
// line for the first refusal and one summary with the count (issue 12.7),
// not one line per attempt; allowed connections are still logged one each.
func TestAuditAggregatesRepeatedRefusals(t *testing.T) {
	rules, err := parseAllow([]string{"127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	audit, err := openAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "egress.sock")
	p, err := startEgress(sock, rules, audit, "loop")
	if err != nil {
		t.Fatal(err)
	}
	const attempts = 500
	for i := 0; i < attempts; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n")
		st, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if !strings.Contains(st, "403") {
			t.Fatalf("attempt %d: %q, want 403", i, st)
		}
	}
	p.Close()
	audit.Close()
	recs := readAudit(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d attempts wrote %d lines, want 2 (the first and one summary): %+v", attempts, len(recs), recs)
	}
	first, sum := recs[0], recs[1]
	if first.Decision != "deny" || first.Host != "evil.example" || first.Count != 0 {
		t.Errorf("first line: %+v", first)
	}
	if sum.Decision != "deny" || sum.Count != attempts-1 || sum.First == "" || sum.Last == "" || !strings.HasPrefix(sum.Reason, "repeated: ") {
		t.Errorf("summary line: %+v, want count %d with first/last", sum, attempts-1)
	}
}

// The window restarts: a refusal after it is summarised; and one sandbox
// start's lines are capped, the rest counted in a final "capped" line.
func TestAuditWindowAndCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	a, err := openAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a.now = func() time.Time { return clock }
	deny := auditRecord{Server: "s", Decision: "deny", Host: "x.example", Port: 443, Reason: "not in network.allow"}
	a.write(deny)
	a.write(deny)
	a.write(deny)
	clock = clock.Add(auditWindow + time.Second)
	a.write(auditRecord{Server: "s", Decision: "allow", Host: "ok.example", Port: 443})
	// Distinct hosts, each logged, until the cap.
	n := 0
	for len(a.capped) == 0 {
		a.write(auditRecord{Server: "s", Decision: "deny", Host: fmt.Sprintf("h%d.example", n), Port: 443, Reason: strings.Repeat("r", 400)})
		n++
		clock = clock.Add(auditWindow + time.Second) // no aggregation: each is new
	}
	for i := 0; i < 100; i++ {
		a.write(auditRecord{Server: "s", Decision: "allow", Host: "ok.example", Port: 443})
	}
	a.Close()
	st, _ := os.Stat(path)
	if st.Size() > auditSessionCap+4096 {
		t.Fatalf("audit log grew to %d bytes, cap %d", st.Size(), auditSessionCap)
	}
	recs := readAudit(t, path)
	if recs[0].Count != 0 || recs[1].Count != 2 || recs[1].Decision != "deny" || recs[2].Decision != "allow" {
		t.Fatalf("window: %+v %+v %+v", recs[0], recs[1], recs[2])
	}
	last := recs[len(recs)-1]
	capped := map[string]int64{}
	for _, r := range recs {
		if r.Decision == "capped" {
			capped[r.Reason] += r.Count
		}
	}
	if last.Decision != "capped" || len(capped) == 0 {
		t.Fatalf("no capped summary at the end: %+v", last)
	}
	var total int64
	for _, c := range capped {
		total += c
	}
	if total < 100 {
		t.Fatalf("capped lines count %d connections, want at least the 100 allowed ones", total)
	}
}
