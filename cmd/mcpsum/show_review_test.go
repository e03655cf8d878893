package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// show flags what a reviewer could miss (issues 12.1, 12.6, 12.8, 13.4): the
// program the command runs and where, code-loading variables, absolute paths
// a teammate will not have, look-alike tool names (Cyrillic "е", NFD
// "café") and a write path over a git repository.
func TestShowReview(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeExe := func(p string) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExe(filepath.Join(dir, "srv"))
	tool := func(name string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
		return b
	}
	e := &lockfile.Server{
		Command:         []string{"./srv", "--data=" + filepath.Join(dir, "data"), "/home/alice/build/x.js"},
		EnvPassthrough:  []string{"API_KEY", "LD_PRELOAD", "NODE_OPTIONS"},
		ProtocolVersion: "2025-11-25",
		ServerInfo:      json.RawMessage(`{"name":"s","version":"1"}`),
		Capabilities:    json.RawMessage(`{"tools":{}}`),
		Tools:           []json.RawMessage{tool("echo"), tool("\u0435cho"), tool("caf\u00e9"), tool("cafe\u0301")},
		Policy: &lockfile.Policy{Sandbox: &lockfile.Sandbox{
			Filesystem: lockfile.Filesystem{Read: []string{}, Write: []string{repo}}, Network: lockfile.Network{Allow: []string{}}}},
	}
	if err := lockfile.NewServer(e); err != nil {
		t.Fatal(err)
	}
	data, err := lockfile.Marshal(&lockfile.File{Servers: map[string]*lockfile.Server{"s": e}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mcp.lock")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"show", "--lockfile", path}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("show: exit %d\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"program       " + filepath.Join(dir, "srv"),
		"runs in       its sandbox's private ${TMP} (the lockfile's folder " + dir + " is not in the sandbox's view)", // sandboxed, the folder outside its view
		"warning: envPassthrough LD_PRELOAD makes the server load code",
		"warning: envPassthrough NODE_OPTIONS makes the server load code",
		"inside the lockfile's folder: a teammate's checkout is elsewhere; write it as \"--data=./data\"",
		`command holds "/home/alice/build/x.js", under a home folder`,
		`look-alike: tool "\u0435cho": mixes scripts Cyrillic and Latin`,
		`look-alike: tool "\u0435cho": looks like "echo"`,
		`look-alike: tool "cafe\u0301": not in Unicode NFC form`,
		`look-alike: tools "cafe\u0301" and "caf\u00e9" look alike`,
		`look-alike: tools "echo" and "\u0435cho" look alike`,
		"holds a git repository: the server can change its hooks",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q", want)
		}
	}
	if strings.Contains(out, "API_KEY makes") {
		t.Error("API_KEY flagged as code-loading")
	}
	if t.Failed() {
		t.Logf("show printed:\n%s", out)
	}
	// --json carries the same review.
	stdout.Reset()
	if code := run(context.Background(), []string{"show", "--json", "--lockfile", path}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("show --json: exit %d", code)
	}
	var v struct {
		Servers map[string]struct {
			Review show.Review `json:"review"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	r := v.Servers["s"].Review
	if r.Program != filepath.Join(dir, "srv") || len(r.Warnings) != 5 || len(r.Lookalikes) != 5 {
		t.Errorf("show --json review: %+v", r)
	}
}
