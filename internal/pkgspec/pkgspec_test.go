package pkgspec

import (
	"strings"
	"testing"
)

func TestFindUnpinned(t *testing.T) {
	cases := []struct {
		argv   string
		pinned string // "" = no warning
	}{
		{"npx -y @modelcontextprotocol/server-memory", "@modelcontextprotocol/server-memory@1.2.3"},
		{"npx -y @modelcontextprotocol/server-memory@latest", "@modelcontextprotocol/server-memory@1.2.3"},
		{"npx -y @modelcontextprotocol/server-memory@^2025.1.0", "@modelcontextprotocol/server-memory@1.2.3"},
		{"npx -y @modelcontextprotocol/server-memory@2026.1.26", ""},
		{"npx --package pkg@next pkg-bin", "pkg@1.2.3"},
		{"bunx tool", "tool@1.2.3"},
		{"uvx mcp-server-time", "mcp-server-time==1.2.3"},
		{"uvx mcp-server-time==2026.8.18", ""},
		{"uvx mcp-server-fetch@latest", "mcp-server-fetch==1.2.3"},
		{"uvx --from git-mcp>=1 git-mcp", "git-mcp==1.2.3"},
		{"uvx --python 3.12 mcp-server-git==1.0", ""},
		{"node /opt/x.js", ""},
		{"/usr/bin/npx.cmd x", "x@1.2.3"},
	}
	for _, c := range cases {
		argv := strings.Fields(c.argv)
		u := FindUnpinned(argv)
		got := ""
		if u != nil {
			got = u.Pinned("1.2.3")
			if p := u.PinnedArgv(argv, "1.2.3"); p[u.Index] != got || len(p) != len(argv) {
				t.Errorf("%s: PinnedArgv = %q", c.argv, p)
			}
		}
		if got != c.pinned {
			t.Errorf("%s: pinned spelling %q, want %q", c.argv, got, c.pinned)
		}
	}
}

func TestFindPinned(t *testing.T) {
	cases := []struct {
		argv string
		name string // "" = no pin
	}{
		{"npx -y @modelcontextprotocol/server-memory@2026.1.26", "npm/@modelcontextprotocol/server-memory@2026.1.26"},
		{"/usr/local/bin/npx -y pkg@1.2.3 --flag", "npm/pkg@1.2.3"},
		{"npx -y @modelcontextprotocol/server-memory", ""},
		{"npx -y pkg@latest", ""},
		{"npx -y pkg@^1.2.3", ""},
		{"bunx tool@0.1.0", "npm/tool@0.1.0"},
		{"uvx mcp-server-time==2026.8.18", "pypi/mcp-server-time@2026.8.18"},
		{"uvx Mcp_Server==1.0", "pypi/mcp-server@1.0"},
		{"uvx mcp-server-time", ""},
		{"uvx tool[extra]==1.0", ""},
		{"go run github.com/x/y/cmd/srv@v1.2.3", "go/github.com/x/y/cmd/srv@v1.2.3"},
		{"go run -mod=mod github.com/x/y@v0.0.0-20240101000000-abcdefabcdef", "go/github.com/x/y@v0.0.0-20240101000000-abcdefabcdef"},
		{"go run github.com/x/y@latest", ""},
		{"go run ./cmd/srv", ""},
		{"go build x@v1.0.0", ""},
		{"docker run -i --rm -e TOKEN mcp/github@sha256:" + strings.Repeat("ab", 32), "oci/mcp/github@sha256:" + strings.Repeat("ab", 32)},
		{"podman run --name x ghcr.io/o/i@sha256:" + strings.Repeat("0f", 32) + " serve", "oci/ghcr.io/o/i@sha256:" + strings.Repeat("0f", 32)},
		{"docker run -i mcp/github:latest", ""},
		{"docker run -i mcp/github@sha256:short", ""},
		{"node /opt/x.js", ""},
		{"npx", ""},
	}
	for _, c := range cases {
		p, ok := FindPinned(strings.Fields(c.argv))
		got := ""
		if ok {
			got = p.Name()
			if strings.Fields(c.argv)[p.Index] == "" {
				t.Errorf("%s: index %d", c.argv, p.Index)
			}
		}
		if got != c.name {
			t.Errorf("%s: pin %q, want %q", c.argv, got, c.name)
		}
	}
}
