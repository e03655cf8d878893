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
		{"uvx tool@1.0", ""},
		{"uvx tool@latest", "tool==1.2.3"},
		// Not registry packages: no warning, and nothing for npm or pip to run.
		{"npx ./local-server", ""},
		{"npx -- --registry=http://evil.example", ""},
		{"npx -p --registry=http://evil.example x", ""},
		{"uvx --from --index-url=http://evil.example x", ""},
		{"uvx --from -ihttp://evil.example/simple x", ""},
		{"uvx --from git+https://example.com/x.git x", ""},
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
		{"uvx Mcp_Server==1.0", "pypi/mcp-server@1"},
		{"uvx mcp-server-time", ""},
		{"uvx tool[extra]==1.0", ""},
		{"go run github.com/x/y/cmd/srv@v1.2.3", "go/github.com/x/y/cmd/srv@v1.2.3"},
		{"go run -mod=mod github.com/x/y@v0.0.0-20240101000000-abcdefabcdef", "go/github.com/x/y@v0.0.0-20240101000000-abcdefabcdef"},
		{"go run github.com/x/y@latest", ""},
		{"go run ./cmd/srv", ""},
		{"go build x@v1.0.0", ""},
		{"docker run -i --rm -e TOKEN mcp/github@sha256:" + strings.Repeat("ab", 32), "oci/docker.io/mcp/github@sha256:" + strings.Repeat("ab", 32)},
		{"podman run --name x ghcr.io/o/i@sha256:" + strings.Repeat("0f", 32) + " serve", "oci/ghcr.io/o/i@sha256:" + strings.Repeat("0f", 32)},
		{"docker run -i mcp/github:latest", ""},
		{"docker run -i mcp/github@sha256:short", ""},
		{"node /opt/x.js", ""},
		{"npx", ""},
		// One spelling per package version (issue 39).
		{"npx -y pkg@v1.2.3", "npm/pkg@1.2.3"},
		{"npx -y pkg@1.2.3+build.7", "npm/pkg@1.2.3"},
		{"npx -y pkg@v1.2.3-rc.1+b", "npm/pkg@1.2.3-rc.1"},
		{"uvx mcp-server-time@2026.8.18", "pypi/mcp-server-time@2026.8.18"},
		{"uvx MCP.Server__Time==1.0.0", "pypi/mcp-server-time@1"},
		{"uvx mcp-server-time==v1.0", "pypi/mcp-server-time@1"},
		{"uvx x==1.0RC1.post0-DEV2", "pypi/x@1rc1.post0.dev2"},
		{"uvx x==01!1.02a", "pypi/x@1!1.2a0"},
		{"uvx x@latest", ""},
		{"uvx x===1.0", ""},
		{"uvx x==1.*", ""},
		{"docker run -i mcp/github@sha256:" + strings.Repeat("ab", 32), "oci/docker.io/mcp/github@sha256:" + strings.Repeat("ab", 32)},
		{"docker run -i docker.io/mcp/github:v1@sha256:" + strings.Repeat("ab", 32), "oci/docker.io/mcp/github@sha256:" + strings.Repeat("ab", 32)},
		{"docker run -i index.docker.io/mcp/github@sha256:" + strings.Repeat("ab", 32), "oci/docker.io/mcp/github@sha256:" + strings.Repeat("ab", 32)},
		{"docker run -i alpine@sha256:" + strings.Repeat("ab", 32), "oci/docker.io/library/alpine@sha256:" + strings.Repeat("ab", 32)},
		{"docker run -i GHCR.io/o/i@sha256:" + strings.Repeat("ab", 32), "oci/ghcr.io/o/i@sha256:" + strings.Repeat("ab", 32)},
		{"docker run -i localhost:5000/i@sha256:" + strings.Repeat("ab", 32), "oci/localhost:5000/i@sha256:" + strings.Repeat("ab", 32)},
		// Local paths, URLs, other registries: no pin, never looked up.
		{"npx -y ./server@1.0.0", ""},
		{"npx -y ../server@1.0.0", ""},
		{"npx -y /opt/server@1.0.0", ""},
		{"npx -y file:./server@1.0.0", ""},
		{"npx -y user/repo@1.0.0", ""},
		{"npx -y git+https://example.com/x.git@1.0.0", ""},
		{"npx -y --registry https://npm.corp.example pkg@1.0.0", ""},
		{"npx -y --registry=https://npm.corp.example pkg@1.0.0", ""},
		{"uvx --index-url https://pypi.corp.example/simple tool==1.0", ""},
		{"uvx --find-links ./wheels tool==1.0", ""},
		{"uvx --from ./tool tool", ""},
		{"go run ./cmd/srv@v1.0.0", ""},
		{"go run /abs/srv@v1.0.0", ""},
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

// No Lookup ever hands npm or pip an argument that starts with '-': a
// package spec shaped like an option would be read as one (a registry or
// index of the attacker's choosing).
func TestLookupNeverAnOption(t *testing.T) {
	for _, argv := range [][]string{
		{"npx", "--", "--registry=http://evil.example"},
		{"npx", "-p", "-ddd", "x"},
		{"bunx", "--", "-x@latest"},
		{"uvx", "--from", "--index-url=http://evil.example", "x"},
		{"uvx", "--from", "-ihttp://evil.example/simple", "x"},
		{"uvx", "--", "-x"},
		{"npx", "-y", "ok-name"},
		{"uvx", "ok-name>=1"},
	} {
		u := FindUnpinned(argv)
		if u == nil {
			continue
		}
		for _, a := range u.Lookup[1:] {
			if strings.HasPrefix(a, "-") {
				t.Errorf("%q: lookup %q passes %q, shaped like an option", argv, u.Lookup, a)
			}
		}
	}
}

func TestNormalPyPIVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.0": "1", "1.0.0": "1", "1": "1", "1.10": "1.10", "2026.8.18": "2026.8.18",
		"1.0.post1": "1.post1", "1.0-1": "1.post1", "1.0rev": "1.post0", "1.0.dev": "1.dev0",
		"1.0alpha1": "1a1", "1.0b2": "1b2", "1.0c3": "1rc3", "1.0preview": "1rc0",
		"1.0+Ubuntu_1.2": "1+ubuntu.1.2", "V1.0": "1",
	} {
		if got, ok := NormalPyPIVersion(in); !ok || got != want {
			t.Errorf("NormalPyPIVersion(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "latest", "1.*", "1.0 ; x", "1..0", "=1.0", "1.0-"} {
		if got, ok := NormalPyPIVersion(bad); ok {
			t.Errorf("NormalPyPIVersion(%q) = %q, want not a version", bad, got)
		}
	}
}
