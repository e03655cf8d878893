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
)

// TestEgressProxy drives the egress proxy directly on its unix socket with
// loopback echo servers started here.
func TestEgressProxy(t *testing.T) {
	echo := echoServer(t)
	closed, _ := net.Listen("tcp4", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close() // listed, but nothing answers: a "fail" line
	_, echoPort, _ := net.SplitHostPort(echo)
	fakeResolver(t, map[string]string{"echo.test": "127.0.0.1", "public.test": "93.184.216.34"})
	rules, err := parseAllow([]string{echo, closedAddr, "echo.test:" + echoPort, "*.wild.test:" + echoPort})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "audit.jsonl")
	audit, err := openAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "egress.sock")
	p, err := startEgress(sock, rules, audit, "unit")
	if err != nil {
		t.Fatal(err)
	}
	request := func(req string, payload string) (status, reply string) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprint(c, req)
		if payload != "" {
			fmt.Fprint(c, payload) // sent right behind the header, before the answer
		}
		br := bufio.NewReader(c)
		status, _ = br.ReadString('\n')
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		if payload != "" && strings.Contains(status, " 200 ") {
			reply, _ = br.ReadString('\n')
		}
		return strings.TrimSpace(status), reply
	}
	connect := func(target string) string { return "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n" }

	if st, reply := request(connect(echo), "hello\n"); !strings.Contains(st, "200") || reply != "hello\n" {
		t.Errorf("allowed IP: %q %q", st, reply)
	}
	if st, reply := request(connect("echo.test:"+echoPort), "named\n"); !strings.Contains(st, "200") || reply != "named\n" {
		t.Errorf("listed name with its IP listed: %q %q", st, reply)
	}
	for target, want := range map[string]string{
		"public.test:" + echoPort:      "403", // not listed
		"a.wild.test:" + echoPort:      "403", // listed, but the test resolver does not know it
		"127.0.0.1:1":                  "403",
		closedAddr:                     "502",
		"[fe80::1%25eth0]:" + echoPort: "403",
	} {
		if st, _ := request(connect(target), ""); !strings.Contains(st, want) {
			t.Errorf("CONNECT %s: %q, want %s", target, st, want)
		}
	}
	if st, _ := request("GET http://"+echo+"/ HTTP/1.1\r\nHost: "+echo+"\r\n\r\n", ""); !strings.Contains(st, "405") {
		t.Errorf("GET: %q", st)
	}
	if st, _ := request("\x16\x03\x01 not http\r\n\r\n", ""); !strings.Contains(st, "400") {
		t.Errorf("garbage: %q", st)
	}
	if st, _ := request("CONNECT x HTTP/1.1\r\n"+strings.Repeat("X-Pad: "+strings.Repeat("a", 1000)+"\r\n", 20)+"\r\n", ""); !strings.Contains(st, "400") {
		t.Errorf("oversized header: %q", st)
	}
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	audit.Close()
	b, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 10 {
		t.Errorf("want one audit line per connection (10), got %d:\n%s", len(lines), b)
	}
	count := map[string]int{}
	for _, l := range lines {
		var r auditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		count[r.Decision]++
		if r.Decision == "allow" && (r.BytesUp != int64(len("hello\n")) && r.BytesUp != int64(len("named\n")) || r.BytesUp != r.BytesDown) {
			t.Errorf("allow line byte counts: %s", l)
		}
		if r.Decision != "allow" && r.Reason == "" {
			t.Errorf("refusal without reason: %s", l)
		}
	}
	if count["allow"] != 2 || count["fail"] != 1 || count["deny"] != 7 {
		t.Errorf("decisions %v, want 2 allow, 1 fail, 7 deny", count)
	}
}
