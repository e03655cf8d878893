package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeBlock returns the first ```sh block after the heading in README.md.
func readmeBlock(t *testing.T, readme, heading string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, after, ok = strings.Cut(after, "```sh\n")
	block, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatalf("README.md: no ```sh block after %q", heading)
	}
	return block
}

// The README's "Commands" block and each command's -h agree: the flags on a
// command's README lines are the flags on its help's Usage lines, and every
// one of them is a flag the command has. Over the docs/ pages too: every
// flag a page shows with an mcpsum command (in a code block, or inline in
// backticks) is one that command's -h lists.
func TestReadmeCommandsMatchHelp(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no Commands section")
	}
	_, after, _ = strings.Cut(after, "```\n")
	block, _, _ := strings.Cut(after, "```")
	readme := map[string][]string{}
	var order []string
	for _, l := range strings.Split(block, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "mcpsum" {
			continue
		}
		cmd := f[1]
		if cmd == "fleet" && len(f) > 2 {
			cmd += " " + f[2] // each fleet subcommand has flags of its own
		}
		if readme[cmd] == nil {
			order = append(order, cmd)
		}
		readme[cmd] = append(readme[cmd], l)
	}
	if len(order) < 10 {
		t.Fatalf("found only commands %v in the README's Commands block", order)
	}
	helps := map[string]cmdHelp{}
	helpOf := func(cmd string) cmdHelp {
		if h, ok := helps[cmd]; ok {
			return h
		}
		out, stderr, code := mcpsum(t, t.TempDir(), nil, append(strings.Fields(cmd), "-h")...)
		if code != 0 || stderr != "" {
			t.Errorf("mcpsum %s -h: exit %d, stderr %q (help belongs on stdout)", cmd, code, stderr)
		}
		h := parseHelp(out)
		helps[cmd] = h
		return h
	}
	for _, cmd := range order {
		h := helpOf(cmd)
		want, got := flagsOf(readme[cmd]), flagsOf(h.usage)
		if !slices.Equal(want, got) {
			t.Errorf("mcpsum %s: README's Commands lines have flags %v, its -h Usage lines %v", cmd, want, got)
		}
		if cmd == "taint" {
			continue // its flags belong to its subcommands
		}
		for _, f := range want {
			if !h.defined[f] {
				t.Errorf("mcpsum %s: README names %s, which -h does not list", cmd, f)
			}
		}
	}

}

// Every mcpsum and mcpsum-log command line the pages show (README.md and
// docs/*.md: lines of code blocks, and inline `mcpsum …` spans) names a
// command the binary has, and only flags that command's -h lists, as
// TestReadmeTour runs the tour: the docs cannot promise a command or a
// flag the binary does not have. A code line that starts with "mcpsum" but
// is a message mcpsum prints is named in messages.
func TestDocsCommandsExist(t *testing.T) {
	t.Parallel()
	messages := []string{"mcpsum refused this call"}
	helps := map[string]cmdHelp{}
	helpOf := func(words []string) cmdHelp {
		key := strings.Join(words, " ")
		if h, ok := helps[key]; ok {
			return h
		}
		out, stderr, code := mcpsum(t, t.TempDir(), nil, append(slices.Clone(words), "-h")...)
		if code != 0 || stderr != "" {
			t.Errorf("mcpsum %s -h: exit %d, stderr %q", key, code, stderr)
		}
		h := parseHelp(out)
		helps[key] = h
		return h
	}
	logHelp := logCommands(t)
	pages, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if len(pages) < 9 {
		t.Fatalf("docs/ holds %d pages; the README links nine or more", len(pages))
	}
	pages = append(pages, filepath.Join("..", "README.md"))
	commands, flags := 0, 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, use := range mcpsumUses(string(b)) {
			where := fmt.Sprintf("%s: %q", filepath.Base(page), use)
			if slices.ContainsFunc(messages, func(m string) bool { return strings.HasPrefix(use, m) }) {
				continue
			}
			f := strings.Fields(strings.Split(strings.Split(use, " -- ")[0], "#")[0])
			if f[0] == "mcpsum-log" {
				defined, ok := logHelp[f[1]]
				if !ok {
					t.Errorf("%s: mcpsum-log has no command %q", where, f[1])
					continue
				}
				commands++
				for _, fl := range flagsOf([]string{use}) {
					flags++
					if !defined[fl] {
						t.Errorf("%s uses %s, which 'mcpsum-log %s -h' does not list", where, fl, f[1])
					}
				}
				continue
			}
			words := f[1:]
			if len(words) > 0 && (words[0] == "--version" || words[0] == "-version") {
				continue
			}
			if len(words) > 0 && words[0] == "help" {
				words = words[1:]
			}
			path := []string{}
			h := helpOf(path)
			for len(words) > 0 && regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(words[0]) && len(h.commands) > 0 {
				if !slices.Contains(h.commands, words[0]) {
					t.Errorf("%s: 'mcpsum %s' has no command %q (it has %v)", where, strings.Join(path, " "), words[0], h.commands)
					break
				}
				path, words = append(path, words[0]), words[1:]
				h = helpOf(path)
			}
			commands++
			for _, fl := range flagsOf([]string{use}) {
				flags++
				if !h.defined[fl] {
					t.Errorf("%s uses %s, which 'mcpsum %s -h' does not list", where, fl, strings.Join(path, " "))
				}
			}
		}
	}
	if commands < 100 || flags < 50 {
		t.Errorf("checked only %d command lines and %d flag uses across the pages", commands, flags)
	}
}

// logCommands are mcpsum-log's commands (its usage) and, for each, the
// flags its -h lists.
func logCommands(t *testing.T) map[string]map[string]bool {
	out, err := exec.Command(bin.log, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("mcpsum-log -h: %v\n%s", err, out)
	}
	cmds := map[string]map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  mcpsum-log (\w+)`).FindAllStringSubmatch(string(out), -1) {
		help, _ := exec.Command(bin.log, m[1], "-h").CombinedOutput() // exit 0 after its help
		cmds[m[1]] = map[string]bool{}
		for _, f := range regexp.MustCompile(`(?m)^\s+--?([a-z][a-z-]*) `).FindAllStringSubmatch(string(help), -1) {
			cmds[m[1]]["--"+f[1]] = true
		}
	}
	if len(cmds) < 4 || len(cmds["add"]) < 3 {
		t.Fatalf("mcpsum-log's commands and flags: %v\n%s", cmds, out)
	}
	return cmds
}

type cmdHelp struct {
	usage    []string
	defined  map[string]bool
	commands []string // its subcommands
}

func parseHelp(help string) cmdHelp {
	_, cmds, _ := strings.Cut(help, "\nCommands:\n")
	cmds, _, _ = strings.Cut(cmds, "\n\n")
	var commands []string
	for _, l := range strings.Split(cmds, "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && len(f) > 0 {
			commands = append(commands, f[0])
		}
	}
	usage, flagsPart, _ := strings.Cut(help, "\nFlags")
	_, usage, _ = strings.Cut(usage, "Usage:\n")
	usage, _, _ = strings.Cut(usage, "\n\n")
	h := cmdHelp{usage: strings.Split(usage, "\n"), defined: map[string]bool{}, commands: commands}
	for _, l := range strings.Split(flagsPart, "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  --") {
			h.defined[f[0]] = true
		}
	}
	return h
}

var flagRe = regexp.MustCompile(`--[a-z][a-z-]*`)

// flagsOf lists the --flags of command lines, up to a comment, a pipe or
// the "--" that ends mcpsum's own flags (what follows is the server's argv).
func flagsOf(lines []string) []string {
	var fs []string
	for _, l := range lines {
		l, _, _ = strings.Cut(l, "#") // comments name no flags
		l = cutPipe(l)
		l, _, _ = strings.Cut(l, " -- ")
		l = strings.TrimSuffix(l, " --")
		fs = append(fs, flagRe.FindAllString(l, -1)...)
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// mcpsumUses finds mcpsum command lines in a Markdown page: lines of code
// blocks that start with "mcpsum ", and inline `mcpsum ...` spans.
func mcpsumUses(page string) []string {
	var uses []string
	inBlock := false
	// a block's command continued with a backslash is one command
	page = strings.ReplaceAll(page, "\\\n", " ")
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
			if strings.HasPrefix(l, "mcpsum ") || strings.HasPrefix(l, "mcpsum-log ") {
				uses = append(uses, l)
			}
			continue
		}
		for _, m := range inlineUse.FindAllStringSubmatch(l, -1) {
			uses = append(uses, m[1])
		}
	}
	return uses
}

var inlineUse = regexp.MustCompile("`(mcpsum(?:-log)? [a-z-][^`]*)`")

// cutPipe cuts a shell line at its first pipe; a "|" inside [ ] or ( ) is
// a usage line's alternative ("[--client NAME | FILE]"), not a pipe.
func cutPipe(l string) string {
	depth := 0
	for i, r := range l {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '|':
			if depth == 0 {
				return l[:i]
			}
		}
	}
	return l
}
