package clientconfig

import (
	"bytes"
	"flag"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/jsonc"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func proxyArgv(name string) []string {
	return []string{"/opt/bin/mcpsum", "proxy", "--lockfile", "/p/mcp.lock", "--name", name}
}

// rewriteAll rewrites every lockable entry of a fixture.
func rewriteAll(t *testing.T, cfg *Config) ([]byte, map[Key][]string) {
	t.Helper()
	argv := map[Key][]string{}
	for _, e := range cfg.Entries {
		if e.Status == Lockable {
			argv[e.Key()] = proxyArgv(e.Name)
		}
	}
	out, changes, err := cfg.Rewrite(argv)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != len(argv) {
		t.Fatalf("%d changes for %d entries", len(changes), len(argv))
	}
	return out, argv
}

// Rewriting changes exactly the command and args values of the chosen
// entries: the output matches a reviewed golden file byte for byte, every
// byte outside the edited spans is the original's, in order, and the result
// reads back with the new argv and every other entry unchanged.
func TestRewriteGolden(t *testing.T) {
	for _, f := range fixtures {
		if f.client == "codex" {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			cfg := readFixture(t, f)
			out, argv := rewriteAll(t, cfg)
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(f.path, "/", "__"))
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it, then review it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("rewrite differs from %s:\n%s", golden, out)
			}
			untouchedInOrder(t, cfg, out)
			again, err := Parse(cfg.Path, out, cfg.Client, cfg.Location)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range again.Entries {
				if _, ok := argv[e.Key()]; ok && e.Status != Wrapped {
					t.Errorf("%s reads back as %s, want wrapped", e.Name, e.Status)
				}
			}
			// Idempotent: nothing is lockable any more.
			for _, e := range again.Entries {
				if e.Status == Lockable {
					t.Errorf("%s is still lockable after the rewrite", e.Name)
				}
			}
		})
	}
}

// untouchedInOrder checks that the original bytes outside each rewritten
// entry's command and args values appear unchanged and in order in out.
func untouchedInOrder(t *testing.T, cfg *Config, out []byte) {
	t.Helper()
	type span struct{ s, e int }
	var spans []span
	for _, e := range cfg.Entries {
		if e.Status != Lockable {
			continue
		}
		spans = append(spans, span{e.at.command.Start, e.at.command.End})
		if e.at.args != nil {
			spans = append(spans, span{e.at.args.Start, e.at.args.End})
		}
	}
	// sort by start
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].s < spans[j-1].s; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	prev, pos := 0, 0
	for _, sp := range append(spans, span{len(cfg.Src), len(cfg.Src)}) {
		seg := cfg.Src[prev:sp.s]
		i := bytes.Index(out[pos:], seg)
		if i < 0 || (prev == 0 && i != 0) {
			t.Fatalf("original bytes %q not found unchanged after offset %d", seg, pos)
		}
		pos += i + len(seg)
		prev = sp.e
	}
	if !bytes.HasSuffix(out, cfg.Src[prev:]) {
		t.Fatalf("the tail of the file changed")
	}
}

// CRLF files stay CRLF, including a multi-line args array.
func TestRewriteCRLF(t *testing.T) {
	src := "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"node\",\r\n      \"args\": [\r\n        \"x.js\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n"
	c, _ := Lookup("claude-desktop")
	cfg, err := Parse("c.json", []byte(src), c, Location{})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := cfg.Rewrite(map[Key][]string{{Name: "a"}: {"m", "proxy"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"m\",\r\n      \"args\": [\r\n        \"proxy\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n"
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
}

func TestRewriteRefuses(t *testing.T) {
	cfg := readFixture(t, fixtures[len(fixtures)-1]) // hostile
	for _, name := range []string{"dup", "no-command", "cursor-remote", "missing"} {
		if _, _, err := cfg.Rewrite(map[Key][]string{{Name: name}: proxyArgv(name)}); err == nil {
			t.Errorf("rewriting %q: no error", name)
		}
	}
	codex := readFixture(t, fixtures[9])
	if _, _, err := codex.Rewrite(map[Key][]string{{Name: "docs"}: proxyArgv("docs")}); err == nil || !strings.Contains(hint.Lines(err, ""), "\nhint: paste the snippet") {
		t.Errorf("TOML rewrite: %v, want a refusal pointing at the snippet", err)
	}
}

func TestTOMLSnippet(t *testing.T) {
	got := TOMLSnippet("mcp_servers", Entry{Name: "odd name"}, []string{`C:\bin\mcpsum.exe`, "proxy", "--name", "odd name"})
	want := "[mcp_servers.\"odd name\"]\ncommand = \"C:\\\\bin\\\\mcpsum.exe\"\nargs = [\"proxy\", \"--name\", \"odd name\"]\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The snippet is valid TOML that Codex's reader (ours) takes back.
	c, _ := Lookup("codex")
	cfg, err := Parse("config.toml", []byte(got), c, Location{})
	if err != nil || len(cfg.Entries) != 1 || cfg.Entries[0].Status != Wrapped || cfg.Entries[0].Proxy.Name != "odd name" {
		t.Fatalf("snippet reads back as %+v, %v", cfg, err)
	}
}

func writeFile(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// leftovers fails if dir holds anything but want.
func leftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("%s holds %q, want %q", dir, names, want)
	}
}

// The offsets the scanner records are the ones encoding/json would use.
func TestSpansCoverValues(t *testing.T) {
	src, _ := os.ReadFile("testdata/hostile/mcp.json")
	root, err := jsonc.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	servers, _ := root.Get("mcpServers")
	ok, _ := servers.Get("ok")
	args, _ := ok.Get("args")
	if got := string(src[args.Elems[0].Start:args.Elems[0].End]); got != `"/srv/ok.js"` {
		t.Errorf("span %q", got)
	}
}
