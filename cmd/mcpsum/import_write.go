package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/importer"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// askTrust asks before any command of a project config runs (or any
// remote server of one is contacted with the user's header variables):
// those files come with a repository (importer.Shared).
func (a *app) askTrust(shared, files []string) error {
	var quoted []string
	for _, f := range files {
		quoted = append(quoted, quoteArg(f))
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return usageHint("review the commands above, then run the same command with --trust-project",
			"import --write would start %d command(s) of the project config %s, which came with the project (a cloned repository chooses them), and stdin is not a terminal to ask you; nothing was started or written",
			len(shared), strings.Join(quoted, ", "))
	}
	fmt.Fprintf(a.stderr, "\nimport will start these commands of the project config %s (a cloned repository chooses them) to lock them:\n%s\nstart them? [y/N] ", strings.Join(quoted, ", "), strings.Join(shared, "\n"))
	line, _ := bufio.NewReader(in).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		return usageErr("import: not started (you did not answer yes); nothing was written")
	}
	return nil
}

// importUndo undoes the last --write of FILE, or of each config of client
// that mcpsum wrote.
func (a *app) importUndo(dirs clientconfig.Dirs, client *clientconfig.Client, file, name string) error {
	stateDir, err := statefile.Dir()
	if err != nil {
		return err
	}
	if file == "" && client == nil {
		return usageHint("mcpsum import --undo FILE (or --client NAME)", "--undo needs the config")
	}
	return importer.Undo(dirs, client, file, name, stateDir, func(p string, res *clientconfig.UndoResult, err error) {
		if err != nil {
			printErr(a.stderr, err)
			return
		}
		for _, n := range res.Ignored {
			q, _ := quoteText(n)
			fmt.Fprintf(a.stderr, "import: %s\n", q)
		}
		importer.WriteUndo(a.stdout, p, res)
	})
}
