package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

func (a *app) showCommand() *ffcli.Command {
	fs := a.flagSet("show")
	lockfilePath := lockfileFlag(fs)
	name := fs.String("name", "", "show only this server")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	compact := fs.Bool("compact", false, "one line per item: descriptions and instructions cut at about 100 characters, no schemas")
	strict := fs.Bool("strict", false, "exit 1 when a shown server shadows another server's tools (same or look-alike names, text naming them)")
	return &ffcli.Command{
		Name:       "show",
		ShortUsage: "mcpsum show [--lockfile F] [--name N] [--json] [--compact] [--strict]",
		ShortHelp:  "summarise mcp.lock for review (checks its digests first)",
		LongHelp: strings.TrimSpace(`
show prints, per server: command, environment names, era, protocol version,
counts, the instructions in full, every tool, prompt, resource and template
with its digest, annotations, full description and every other field
(schemas included) as JSON, and the policy: everything the server tells a
model, for review. --compact prints one line per item instead. Text a server
wrote is shown escaped; items with control, ANSI, bidi or zero-width
characters are flagged as suspicious. show also prints the program each
command runs here and the folder it runs in (the lockfile's folder), and warns
about code-loading variables, machine-specific paths, risky sandbox write
paths and look-alike names, and about shadowing across the lock's servers: the
same or a look-alike tool or prompt name in two servers, and a server's text
that names another server's tool (each pair once). Shadowing is a warning;
with --strict show exits 1 after printing.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("show takes no arguments (got %q)", args[0])
			}
			f, err := loadLock(*lockfilePath)
			if err != nil {
				return err
			}
			names, err := selectServers(f, *lockfilePath, *name)
			if err != nil {
				return err
			}
			v := buildShow(f, names)
			shadows := reviewShow(v, f, *lockfilePath)
			if *asJSON {
				if err := writeJSON(a.stdout, v); err != nil {
					return err
				}
			} else {
				v.compact = *compact
				printShow(a.stdout, *lockfilePath, v)
			}
			if *strict && shadows > 0 {
				return verdict(fmt.Errorf("show --strict: %d shadowing finding(s) between servers of %s (listed above as shadowing): a client that loads both servers cannot keep their tools apart; keep only one of the two servers in the client's config and the lock, or have the server renamed", shadows, *lockfilePath))
			}
			return nil
		},
	}
}

// loadLock reads the lockfile, checking every digest (I3).
func loadLock(path string) (*lockfile.File, error) {
	f, err := lockfile.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noLockfile(path, "")
	}
	return f, err
}

// noLockfile is every command's answer to a lockfile that does not exist:
// the lock command that creates it (for entry name, or NAME), exit 3.
func noLockfile(path, name string) error {
	if name == "" {
		name = "NAME"
	} else {
		name = quoteArg(name)
	}
	return &exitError{code: exitUndecided, err: fmt.Errorf("no lockfile at %s: create one with mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]... (or pass --lockfile)", path, quoteArg(path), name)}
}

// selectServers returns the sorted server names, or just name if given.
func selectServers(f *lockfile.File, path, name string) ([]string, error) {
	if name != "" {
		if _, ok := f.Servers[name]; !ok {
			return nil, usageErr("no server %s in %s (locked: %s)", quoteArg(name), path, strings.Join(sortedNames(f), ", "))
		}
		return []string{name}, nil
	}
	return sortedNames(f), nil
}

func sortedNames(f *lockfile.File) []string {
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// showFile is show's model, also its --json output.
type showFile struct {
	LockfileVersion int                    `json:"lockfileVersion"`
	Generator       string                 `json:"generator,omitempty"`
	Servers         map[string]*showServer `json:"servers"`
	order           []string
	total           int // servers in the file (order may be just --name's)
	compact         bool
}

type showServer struct {
	Command           []string          `json:"command"`
	EnvPassthrough    []string          `json:"envPassthrough"`
	URL               string            `json:"url,omitempty"`     // a remote server
	Headers           map[string]string `json:"headers,omitempty"` // header name → variable
	Remote            bool              `json:"remote"`
	Era               string            `json:"era"`
	ProtocolVersion   string            `json:"protocolVersion"`
	SupportedVersions []string          `json:"supportedVersions,omitempty"`
	ServerInfo        json.RawMessage   `json:"serverInfo"`
	Instructions      *showText         `json:"instructions"`
	Counts            map[string]int    `json:"counts"`
	Surface           string            `json:"surfaceDigest"`
	LogKey            string            `json:"logKey"`             // "" when private
	LogProof          bool              `json:"logProof,omitempty"` // a transparency-log proof is stored
	Items             map[string][]item `json:"items"`
	Policy            *lockfile.Policy  `json:"policy,omitempty"`
	Suspicious        int               `json:"suspiciousItems"`
	Review            *showReview       `json:"review,omitempty"`
	// EmptyAdvertised are the kinds (plural) the server's capabilities
	// advertise but that hold no item: it listed none, or answered the list
	// with -32601 (method not found), which lock counts as none.
	EmptyAdvertised []string `json:"emptyAdvertised,omitempty"`
}

type showText struct {
	Chars      int    `json:"chars"`
	Digest     string `json:"digest"`
	Suspicious bool   `json:"suspicious"`
	text       string
}

// item is one tool, prompt, resource or template as show presents it.
type item struct {
	Key         string          `json:"key"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Digest      string          `json:"digest"`
	Suspicious  []string        `json:"suspiciousFields,omitempty"`
	// Definition is the item exactly as locked.
	Definition json.RawMessage `json:"definition"`
}

func buildShow(f *lockfile.File, names []string) *showFile {
	v := &showFile{LockfileVersion: f.Version, Generator: f.Generator, Servers: map[string]*showServer{}, order: names, total: len(f.Servers)}
	for _, n := range names {
		s := f.Servers[n]
		ss := &showServer{
			Command: s.Command, EnvPassthrough: s.EnvPassthrough, Era: s.Era(),
			URL: s.URL, Headers: s.Headers, Remote: s.Remote(),
			ProtocolVersion: s.ProtocolVersion, SupportedVersions: s.SupportedVersions,
			ServerInfo: s.ServerInfo, Counts: map[string]int{}, Items: map[string][]item{},
			Surface: s.Digests.Surface, Policy: s.Policy, LogProof: s.LogProof != "",
		}
		ss.LogKey, _ = pin.LogKey(s)
		if s.Instructions != nil {
			_, sus := quoteText(*s.Instructions)
			ss.Instructions = &showText{Chars: len([]rune(*s.Instructions)), Digest: deref(s.Digests.Instructions), Suspicious: sus, text: *s.Instructions}
		}
		advertised := advertisedKinds(s.Capabilities)
		for _, k := range mcpspec.Kinds {
			raw, digests := s.Items(k.Name), s.Digests.Of(k.Name)
			ss.Counts[k.Field] = len(raw)
			if len(raw) == 0 && advertised[k.Field] {
				ss.EmptyAdvertised = append(ss.EmptyAdvertised, k.Field)
			}
			list := []item{}
			for _, r := range raw {
				it := describeItem(k.Name, r)
				it.Digest = digests[it.Key]
				if len(it.Suspicious) > 0 {
					ss.Suspicious++
				}
				list = append(list, it)
			}
			ss.Items[k.Field] = list
		}
		v.Servers[n] = ss
	}
	return v
}

// advertisedKinds maps each item kind (plural) to whether the server's
// capabilities advertise its list: tools, prompts, and resources for both
// resources and resourceTemplates (the rule mcpwire.ListAll follows).
func advertisedKinds(caps json.RawMessage) map[string]bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(caps, &m)
	on := func(k string) bool { v, ok := m[k]; return ok && string(v) != "null" }
	return map[string]bool{"tools": on("tools"), "prompts": on("prompts"), "resources": on("resources"), "resourceTemplates": on("resources")}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// describeItem pulls the fields a reviewer reads first and lists every string
// field (at any depth) that holds suspicious characters.
func describeItem(kind string, raw json.RawMessage) item {
	var it item
	it.Key, _ = lockfile.ItemKey(kind, raw)
	// The lock holds checked items (valid JSON, no duplicate keys): read the
	// three top-level fields show prints without decoding the whole item.
	_, _ = jsonscan.Members(raw, jsonscan.SkipWS(raw, 0), func(key string, _, vs, ve int) error {
		switch key {
		case "title":
			it.Title = jsonString(raw[vs:ve])
		case "description":
			it.Description = jsonString(raw[vs:ve])
		case "annotations":
			if kind == lockfile.KindTool {
				it.Annotations = raw[vs:ve]
			}
		}
		return nil
	})
	it.Suspicious = suspiciousPaths(raw)
	it.Definition = raw
	return it
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// plainJSON reports that every string in raw (valid JSON) decodes to
// printable ASCII plus tabs and newlines: no byte above 0x7e and no escape
// but \n \t \\ \" \/. It lets show skip decoding the many items that
// cannot be suspicious.
func plainJSON(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c >= 0x7f:
			return false
		case c == '\\':
			if i+1 >= len(raw) {
				return false
			}
			switch raw[i+1] {
			case 'n', 't', '\\', '"', '/':
				i++
			default:
				return false
			}
		}
	}
	return true
}

// suspiciousPaths walks a JSON value and returns the paths of strings (keys
// included) that contain characters a terminal or a model could be fooled by.
func suspiciousPaths(raw json.RawMessage) []string {
	if plainJSON(raw) {
		return nil // no string in it can hold anything quoteText flags
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []string{"(unreadable)"}
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case string:
			if _, sus := quoteText(x); sus {
				out = append(out, path)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if _, sus := quoteText(k); sus {
					out = append(out, p+" (key)")
				}
				walk(p, x[k])
			}
		}
	}
	walk("", v)
	return out
}
