package show

import (
	"encoding/json"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"slices"
	"sort"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Model is show's model, also its --json output.
type Model struct {
	LockfileVersion int                `json:"lockfileVersion"`
	Generator       string             `json:"generator,omitempty"`
	Servers         map[string]*Server `json:"servers"`
	// Shadowing counts the shadowing findings that involve a server shown.
	Shadowing int `json:"-"`
	order     []string
	total     int // servers in the file (order may be just one)
}

// Server is one entry as show presents it.
type Server struct {
	Command           []string          `json:"command"`
	EnvPassthrough    []string          `json:"envPassthrough"`
	RemoteInfo                          // url, headers, oauth of a remote server
	Remote            bool              `json:"remote"`
	Era               string            `json:"era"`
	ProtocolVersion   string            `json:"protocolVersion"`
	SupportedVersions []string          `json:"supportedVersions,omitempty"`
	ServerInfo        json.RawMessage   `json:"serverInfo"`
	Instructions      *Text             `json:"instructions"`
	Counts            map[string]int    `json:"counts"`
	Surface           string            `json:"surfaceDigest"`
	LogKey            string            `json:"logKey"`             // "" when private
	LogProof          bool              `json:"logProof,omitempty"` // a transparency-log proof is stored
	Items             map[string][]Item `json:"items"`
	Policy            *lockfile.Policy  `json:"policy,omitempty"`
	Suspicious        int               `json:"suspiciousItems"`
	Review            *Review           `json:"review,omitempty"`
	// EmptyAdvertised are the kinds (plural) the server's capabilities
	// advertise but that hold no item: it listed none, or answered the list
	// with -32601 (method not found), which lock counts as none.
	EmptyAdvertised []string `json:"emptyAdvertised,omitempty"`
	// DataResources: the resources look like data the server lists live
	// (one per table or row, internal/review DataShaped) and the policy
	// does not declare them so (policy.unpinned).
	DataResources bool `json:"resourcesLookLikeData,omitempty"`
}

// RemoteInfo is where a remote server is and how mcpsum signs in to it
// (its members are written at the server's level in --json).
type RemoteInfo struct {
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"` // header name → variable
	OAuth   *OAuthPin         `json:"oauth,omitempty"`
}

// OAuthPin is an entry's pinned sign-in: who issues its tokens, what they
// are for, and what they may do.
type OAuthPin struct {
	Issuer          string   `json:"issuer"`
	Resource        string   `json:"resource"`
	Scopes          []string `json:"scopes"`
	ClientID        string   `json:"clientId,omitempty"`
	ClientSecretEnv string   `json:"clientSecretEnv,omitempty"`
}

// Text is a server's instructions: their size, digest and whether they hold
// suspicious characters (the text itself is printed, not put in --json).
type Text struct {
	Chars      int    `json:"chars"`
	Digest     string `json:"digest"`
	Suspicious bool   `json:"suspicious"`
	text       string
}

// Item is one tool, prompt, resource or template as show presents it.
type Item struct {
	Key         string          `json:"key"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Digest      string          `json:"digest"`
	Suspicious  []string        `json:"suspiciousFields,omitempty"`
	// Definition is the item exactly as locked.
	Definition json.RawMessage `json:"definition"`
}

// Review is what show adds to each server beyond the lock's own content:
// the program its command runs here (internal/launch's one rule: working directory
// = the lockfile's folder), warnings about the entry (code-loading
// variables, machine-specific paths, risky sandbox write paths) and names
// that look like other names, within the server and across the lock's
// servers (internal/review).
type Review struct {
	Program      string `json:"program,omitempty"`
	ProgramError string `json:"programError,omitempty"`
	WorkDir      string `json:"workDir,omitempty"`
	// SandboxTmp: sandboxed with the lockfile's folder outside its view, so
	// the server runs in its private ${TMP} instead.
	SandboxTmp bool     `json:"runsInSandboxTmp,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Lookalikes []string `json:"lookalikes,omitempty"`
	// Shadowing: this server's tools or prompts against another server's
	// of the same lock (same or look-alike names, text naming the other's
	// tools); each pair is listed under both servers.
	Shadowing []string `json:"shadowing,omitempty"`
}

// Build is show's model of the servers names of f, read from lockPath.
func Build(f *lockfile.File, names []string, lockPath string) *Model {
	v := &Model{LockfileVersion: f.Version, Generator: f.Generator, Servers: map[string]*Server{}, order: names, total: len(f.Servers)}
	all := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		all = append(all, n)
	}
	sort.Strings(all)
	for _, n := range names {
		v.Servers[n] = buildServer(f.Servers[n])
	}
	// A user lock shared by several clients: shadowing among the servers
	// each client runs together.
	groups := clientconfig.Together(clientconfig.DirsFromEnv("."), lockPath, nil)
	shadows := review.ShadowingAmong(f.Servers, func(n string) bool { _, ok := v.Servers[n]; return ok }, groups)
	v.Shadowing = len(shadows)
	for _, n := range names {
		v.Servers[n].Review = buildReview(n, f.Servers[n], lockPath, all, shadows)
	}
	return v
}

func buildServer(s *lockfile.Server) *Server {
	ss := &Server{
		Command: s.Command, EnvPassthrough: s.EnvPassthrough, Era: s.Era(),
		RemoteInfo: RemoteInfo{URL: s.URL, Headers: s.Headers}, Remote: s.Remote(),
		ProtocolVersion: s.ProtocolVersion, SupportedVersions: s.SupportedVersions,
		ServerInfo: s.ServerInfo, Counts: map[string]int{}, Items: map[string][]Item{},
		Surface: s.Digests.Surface, Policy: s.Policy, LogProof: s.LogProof != "",
	}
	if o := s.OAuth; o != nil {
		ss.OAuth = &OAuthPin{Issuer: o.Issuer, Resource: o.Resource, Scopes: o.Scopes, ClientID: o.ClientID, ClientSecretEnv: o.ClientSecretEnv}
		if ss.OAuth.Scopes == nil {
			ss.OAuth.Scopes = []string{}
		}
	}
	ss.LogKey, _ = launch.LogKey(s)
	if s.Instructions != nil {
		_, sus := termtext.Quote(*s.Instructions)
		digest := ""
		if s.Digests.Instructions != nil {
			digest = *s.Digests.Instructions
		}
		ss.Instructions = &Text{Chars: len([]rune(*s.Instructions)), Digest: digest, Suspicious: sus, text: *s.Instructions}
	}
	ss.DataResources = review.DataShaped(s) && (s.Policy == nil || !slices.Contains(s.Policy.Unpinned, "resources"))
	advertised := advertisedKinds(s.Capabilities)
	for _, k := range mcpspec.Kinds {
		raw, digests := s.Items(k.Name), s.Digests.Of(k.Name)
		ss.Counts[k.Field] = len(raw)
		if len(raw) == 0 && advertised[k.Field] {
			ss.EmptyAdvertised = append(ss.EmptyAdvertised, k.Field)
		}
		list := []Item{}
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
	return ss
}

func buildReview(name string, s *lockfile.Server, lockPath string, all []string, shadows []review.Shadow) *Review {
	r := &Review{}
	if !s.Remote() {
		r.WorkDir, _ = launch.WorkDir(lockPath)
		r.SandboxTmp = !launch.SandboxSeesWorkDir(s, lockPath)
		if p, err := launch.Program(s, lockPath); err != nil {
			r.ProgramError = err.Error()
		} else {
			r.Program = p
		}
	}
	r.Warnings = launch.Warnings(s, lockPath)
	r.Lookalikes, r.Shadowing = review.ForServer(name, s, all, shadows)
	return r
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

// describeItem pulls the fields a reviewer reads first and lists every string
// field (at any depth) that holds suspicious characters.
func describeItem(kind string, raw json.RawMessage) Item {
	var it Item
	it.Key, _ = lockfile.ItemKey(kind, raw)
	// The lock holds checked items (valid JSON, no duplicate keys): read the
	// three top-level fields show prints without decoding the whole item.
	_, _ = jsonscan.Members(raw, jsonscan.SkipWS(raw, 0), func(key string, _, vs, ve int) error {
		switch key {
		case "title":
			it.Title, _ = jsonscan.String(raw[vs:ve])
		case "description":
			it.Description, _ = jsonscan.String(raw[vs:ve])
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
		return nil // no string in it can hold anything termtext.Quote flags
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
			if _, sus := termtext.Quote(x); sus {
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
				if _, sus := termtext.Quote(k); sus {
					out = append(out, p+" (key)")
				}
				walk(p, x[k])
			}
		}
	}
	walk("", v)
	return out
}
