package clientconfig

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigClaudeJSON is a ~/.claude.json the size long-running Claude Code users
// have (projects with history): about 10 MB, one server per project.
func bigClaudeJSON() []byte {
	var b strings.Builder
	b.WriteString(`{"numStartups": 900, "mcpServers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time==2026.8.18"], "env": {}}}, "projects": {`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/home/u/p%d": {"allowedTools": [], "history": [`, i)
		for j := 0; j < 20; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"display": "%s", "pastedContents": {}}`, strings.Repeat("some prompt text ", 14))
		}
		fmt.Fprintf(&b, `], "mcpServers": {"s%d": {"command": "node", "args": ["/opt/s/index.js"], "env": {"K": "v"}}}}`, i)
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}

// BenchmarkImportLargeClaudeJSON: read every server of a 10 MB ~/.claude.json
// and rewrite one entry (parse, splice, parse again to check), against
// encoding/json merely decoding the same file (the baseline in the same run).
func BenchmarkImportLargeClaudeJSON(b *testing.B) {
	src := bigClaudeJSON()
	c, _ := Lookup("claude-code")
	b.Run("encoding-json-decode", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(src, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse-and-rewrite", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			cfg, err := Parse(".claude.json", src, c, Location{})
			if err != nil || len(cfg.Entries) != 2001 {
				b.Fatal(err, len(cfg.Entries))
			}
			if _, _, err := cfg.Rewrite(map[Key][]string{{Name: "time"}: {"/bin/mcpsum", "proxy"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
