package e2e

import (
	"strings"
	"testing"
)

// A server that advertises resources but answers resources/templates/list
// with -32601 (mcp-server-kubernetes 4.1.7, server-puppeteer and
// server-postgres do; here the FAKE hostile -mode notemplates plays one) can
// be locked: no templates, a note from lock, a line in show. When it later
// lists a real template, that is ordinary definitional drift.
func TestLockMethodNotFoundListIsEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "notemplates")
	stderr := mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	if !strings.Contains(stderr, "lock: note: srv: resources/templates/list answered -32601 (method not found)") {
		t.Errorf("lock does not say the templates list was method-not-found:\n%s", stderr)
	}
	l, _ := readLock(t, dir)
	if s, ok := l.Servers["srv"]; !ok || s.ResourceTemplates == nil || len(s.ResourceTemplates) != 0 {
		t.Fatalf("entry %+v", s)
	}
	out, _, code := mcpsum(t, dir, nil, "show")
	if code != 0 || !strings.Contains(out, "empty         resourceTemplates: advertised by the server, but it listed none or answered -32601") {
		t.Errorf("show: exit %d, no word on the empty templates list:\n%s", code, out)
	}
	if out, _, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Fatalf("verify of the unchanged server: exit %d\n%s", code, out)
	}

	hostileScript(t, dir, "onetemplate")
	out, _, code = mcpsum(t, dir, nil, "verify")
	if code != 1 || !strings.Contains(out, `definitional resourceTemplate "file:///logs/{name}" added`) {
		t.Errorf("verify after a real templates list: exit %d, want 1 with the template added\n%s", code, out)
	}
}

// verify shows an added tool's text in full (not only its digest), then the
// review command, then the accept command; both commands work when run as
// printed, and afterwards verify passes.
func TestVerifyShowsAddedTextThenReviewThenAccept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	serverScript(t, dir)
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	serverScript(t, dir, "-extra-tool", "exfiltrate")

	out, _, code := mcpsum(t, dir, nil, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s", code, out)
	}
	added := strings.Index(out, `tool "exfiltrate" added`)
	text := strings.Index(out, "extra tool") // the added tool's description
	schema := strings.Index(out, `"inputSchema"`)
	var cmds []string
	var at []int
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "mcpsum "); ok {
			c, _, _ = strings.Cut(c, "#")
			cmds = append(cmds, strings.TrimSpace(c))
			at = append(at, strings.Index(out, line))
		}
	}
	if added < 0 || text < added || schema < added {
		t.Fatalf("the added tool's description and schema are not shown after the finding:\n%s", out)
	}
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], "show ") || !strings.HasPrefix(cmds[1], "lock ") || at[0] < schema || at[1] < at[0] {
		t.Fatalf("want the text, then a show (review) command, then a lock (accept) command; got %q in:\n%s", cmds, out)
	}
	review, _, code := mcpsum(t, dir, nil, strings.Fields(cmds[0])...)
	if code != 0 || !strings.Contains(review, "echo text") {
		t.Fatalf("review command %q: exit %d\n%s", cmds[0], code, review)
	}
	if _, stderr, code := mcpsum(t, dir, nil, strings.Fields(cmds[1])...); code != 0 {
		t.Fatalf("accept command %q: exit %d\n%s", cmds[1], code, stderr)
	}
	if out, _, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Fatalf("verify after accepting: exit %d\n%s", code, out)
	}
}
