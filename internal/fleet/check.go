package fleet

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The checks `fleet status` runs on a client's installed policy. Each
// reads what the client reads and compares what it admits with what fleet
// emit would write for the installed lock; the problems say how they differ.

// compare lists the entries admitted but not wanted, and wanted but not
// admitted.
func compare(admitted []string, es []Entry) []string {
	var out []string
	want := map[string]bool{}
	for _, e := range es {
		want[e.id()] = true
		if !slices.Contains(admitted, e.id()) {
			out = append(out, fmt.Sprintf("does not admit %s (%s)", e.Name, describe(e.id())))
		}
	}
	for _, a := range admitted {
		if !want[a] {
			out = append(out, "admits "+describe(a)+", which is not an mcpsum entry of the org lock")
		}
	}
	return out
}

// describe renders an entry id for a message, escaped.
func describe(id string) string {
	kind, v, _ := strings.Cut(id, " ")
	if kind == "argv" {
		var argv []string
		if json.Unmarshal([]byte(v), &argv) == nil {
			return "the command " + termtext.ShellArgs(argv)
		}
	}
	return kind + " " + termtext.Quoted(v, 200)
}

// matcherIDs reads an allowlist (Claude Code, Copilot, VS Code): each entry
// names one serverCommand, serverUrl or serverName.
func matcherIDs(v []byte) ([]string, []string) {
	list, ok := elements(v)
	if !ok {
		return nil, []string{"the allowlist is not a JSON array"}
	}
	var ids, problems []string
	for i, raw := range list {
		m, err := object(raw, []string{"serverCommand", "serverUrl", "serverName"}, true)
		if err != nil || len(m) != 1 {
			problems = append(problems, fmt.Sprintf("allowlist entry %d is not one serverCommand, serverUrl or serverName", i+1))
			continue
		}
		switch {
		case m["serverCommand"] != nil:
			argv, ok := strs(m["serverCommand"])
			if !ok {
				problems = append(problems, fmt.Sprintf("allowlist entry %d: serverCommand is not an array of strings", i+1))
				continue
			}
			b, _ := json.Marshal(argv)
			ids = append(ids, "argv "+string(b))
		case m["serverUrl"] != nil:
			u, _ := str(m["serverUrl"])
			ids = append(ids, "url "+u)
		default:
			n, _ := str(m["serverName"])
			ids = append(ids, "name "+n)
		}
	}
	return ids, problems
}

func strs(v []byte) ([]string, bool) {
	list, ok := elements(v)
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, raw := range list {
		s, ok := str(raw)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// allowlist is the admitted entries and the managed-only switch of one
// managed-settings document.
func allowlist(data []byte) (ids []string, only *bool, problems []string) {
	m, err := object(data, allowlistKeys, false)
	if err != nil {
		return nil, nil, []string{"not a JSON object of settings: " + err.Error()}
	}
	if v := m["allowManagedMcpServersOnly"]; v != nil {
		b := string(v) == "true"
		only = &b
	}
	if v := m["allowedMcpServers"]; v != nil {
		ids, problems = matcherIDs(v)
	}
	return ids, only, problems
}

// checkAllowlistFile checks one managed-settings.json (Copilot).
func checkAllowlistFile(data []byte, es []Entry, _ string, _ Env) []string {
	ids, only, problems := allowlist(data)
	if only == nil || !*only {
		problems = append(problems, "allowManagedMcpServersOnly is not true: users' own allowlists add to this one")
	}
	return append(problems, compare(ids, es)...)
}

// checkClaudeCode merges Claude Code's managed settings as it does:
// managed-settings.json, then managed-settings.d/*.json in name order
// (allowlists add up, a later switch wins), and checks the result. A
// managed-mcp.json deploys servers no allowlist governs.
func checkClaudeCode(_ []byte, es []Entry, _ string, env Env) []string {
	dropin := env.at(claudeCodePlaces.on(env.GOOS))
	dir := filepath.Dir(filepath.Dir(dropin))
	files := []string{filepath.Join(dir, "managed-settings.json")}
	if ents, err := os.ReadDir(filepath.Dir(dropin)); err == nil {
		var names []string
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, filepath.Join(filepath.Dir(dropin), n))
		}
	}
	var ids, problems []string
	only := false
	for _, f := range files {
		data, err := safeio.ReadRegular(f, "managed settings", 4<<20)
		if missing(err) {
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		// Every file Claude Code merges is the policy: one another user
		// could change could add to the allowlist at any time.
		if err := securePath(f); err != nil {
			problems = append(problems, fmt.Sprintf("%v: another user could change Claude Code's managed settings", err))
		}
		i, o, p := allowlist(data)
		for _, x := range p {
			problems = append(problems, quote(f)+": "+x)
		}
		for _, id := range i {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if o != nil {
			only = *o
		}
	}
	if !only {
		problems = append(problems, "allowManagedMcpServersOnly is not true in the merged managed settings: users' own allowlists add to it")
	}
	if mcp := filepath.Join(dir, "managed-mcp.json"); fileExists(mcp) {
		problems = append(problems, quote(mcp)+" deploys servers of its own, which the allowlist does not govern")
	}
	return append(problems, compare(ids, es)...)
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// checkVSCode checks /etc/vscode/policy.json's ChatAllowedMcpServers: a
// string holding the allowlist as JSON.
func checkVSCode(data []byte, es []Entry, _ string, _ Env) []string {
	m, err := object(data, []string{vscodePolicy}, false)
	if err != nil {
		return []string{"not a JSON object of policies: " + err.Error()}
	}
	v, ok := str(m[vscodePolicy])
	if !ok {
		return []string{vscodePolicy + " is not set (as a string holding the allowlist's JSON)"}
	}
	ids, problems := matcherIDs([]byte(v))
	return append(problems, compare(ids, es)...)
}

// checkGemini checks Gemini CLI's system settings: mcp.allowed names the
// servers the client may run, and mcpServers defines each (a system
// definition overrides a user's server of the same name). A definition
// that leaves out a transport member ("" sets it unset) lets an extension's
// server of the same name fill it in, as does a mcp.serverCommand that is
// not "" for the server named "mcp" (renderGemini).
func checkGemini(data []byte, es []Entry, _ string, _ Env) []string {
	m, err := object(data, []string{"mcp", "mcpServers"}, false)
	if err != nil {
		return []string{"not a JSON object of settings: " + err.Error()}
	}
	var allowed, problems []string
	serverCommand := false
	if m["mcp"] != nil {
		if mm, err := object(m["mcp"], []string{"allowed", "serverCommand"}, false); err == nil {
			if mm["allowed"] != nil {
				allowed, _ = strs(mm["allowed"])
			}
			s, ok := str(mm["serverCommand"])
			serverCommand = ok && s == ""
		}
	}
	if allowed == nil {
		return []string{"mcp.allowed is not set: Gemini CLI runs every server a user adds"}
	}
	if !serverCommand {
		problems = append(problems, `mcp.serverCommand is not "": a user's own replaces the server named "mcp"`)
	}
	servers := map[string][]byte{}
	if m["mcpServers"] != nil {
		servers, _ = object(m["mcpServers"], nil, false)
	}
	var ids []string
	for _, n := range allowed {
		def, err := object(servers[n], []string{"command", "args", "httpUrl", "url"}, false)
		if servers[n] == nil || err != nil {
			ids = append(ids, "name "+n)
			continue
		}
		httpURL, _ := str(def["httpUrl"])
		url, _ := str(def["url"])
		if def["url"] == nil || url != "" || def["httpUrl"] == nil || (httpURL == "" && def["command"] == nil) {
			problems = append(problems, fmt.Sprintf(`mcpServers.%s does not set both "httpUrl" and "url" (the one it does not use to ""): a Gemini CLI extension's server of the same name could set it and replace this one`, termtext.Quoted(n, 80)))
		}
		if httpURL != "" {
			ids = append(ids, "url "+httpURL)
			continue
		}
		cmd, _ := str(def["command"])
		args, _ := strs(def["args"])
		if def["args"] == nil {
			args = []string{}
		}
		b, _ := json.Marshal(append([]string{cmd}, args...))
		ids = append(ids, "argv "+string(b))
	}
	return append(problems, compare(ids, es)...)
}

// checkCodex checks Codex's requirements.toml: an mcp_servers allowlist
// whose every entry is the exact identity of one org lock server.
func checkCodex(data []byte, es []Entry, _ string, _ Env) []string {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return []string{"not valid TOML: " + termtext.Quoted(err.Error(), 200)}
	}
	table, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return []string{"no mcp_servers allowlist: Codex enables every server a user adds"}
	}
	var ids, problems []string
	byName := map[string]Entry{}
	for _, e := range es {
		byName[e.Name] = e
	}
	for _, n := range slices.Sorted(maps.Keys(table)) {
		id, ok := codexIdentity(table[n])
		if !ok {
			problems = append(problems, fmt.Sprintf("mcp_servers.%s: an identity other than one exact command or URL", termtext.Quoted(n, 80)))
			continue
		}
		if e, known := byName[n]; !known || e.id() != id {
			// Codex matches name and identity together.
			ids = append(ids, id+" as "+n)
			continue
		}
		ids = append(ids, id)
	}
	return append(problems, compare(ids, es)...)
}

// codexIdentity reads one mcp_servers entry's identity as an entry id.
func codexIdentity(v any) (string, bool) {
	entry, _ := v.(map[string]any)
	id, _ := entry["identity"].(map[string]any)
	if len(entry) != 1 || len(id) != 1 {
		return "", false
	}
	if u, ok := id["url"].(string); ok {
		return "url " + u, true
	}
	cmd, _ := id["command"].(map[string]any)
	exe, ok := cmd["executable"].(string)
	args, ok2 := cmd["args"].([]any)
	if !ok || !ok2 || len(cmd) != 2 {
		return "", false
	}
	argv := []string{exe}
	for _, x := range args {
		a, _ := x.(map[string]any)
		val, ok := a["value"].(string)
		if a["match"] != "exact" || !ok || len(a) != 2 {
			return "", false
		}
		argv = append(argv, val)
	}
	b, _ := json.Marshal(argv)
	return "argv " + string(b), true
}
