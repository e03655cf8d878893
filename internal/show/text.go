package show

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

var (
	quoteArg = termtext.ShellArg
	oneLine  = termtext.FirstLine
)

// WriteText writes v for a reviewer: per server everything a model is told,
// in full (compact: one line per item, no schemas), then its policy and
// review. path names the lockfile in the heading.
func (v *Model) WriteText(w io.Writer, path string, compact bool) {
	fmt.Fprintf(w, "%s: lockfileVersion %d", path, v.LockfileVersion)
	if v.Generator != "" {
		fmt.Fprintf(w, ", written by %s", oneLine(v.Generator, 40))
	}
	servers := fmt.Sprintf("%d server(s)", v.total)
	if len(v.order) < v.total {
		servers += fmt.Sprintf(", showing %s", strings.Join(v.order, ", "))
	}
	fmt.Fprintf(w, "; %s; all digests verified\n", servers)
	for _, n := range v.order {
		writeServer(w, n, v.Servers[n], compact)
	}
	if compact { // the summary names the way to the rest
		fmt.Fprintln(w, "\n(--compact: descriptions cut, schemas and other fields left out; without --compact, show prints every item in full)")
	}
}

// ShadowingError is show --strict's verdict on v, shown from the lockfile
// at path: nil without shadowing between its servers.
func (v *Model) ShadowingError(path string) error {
	if v.Shadowing == 0 {
		return nil
	}
	return hint.Errorf("keep only one of the two servers in the client's config and the lock, or have the server renamed",
		"show --strict: %d shadowing finding(s) between servers of %s (listed above as shadowing): a client that loads both servers cannot keep their tools apart", v.Shadowing, path)
}

func writeServer(w io.Writer, name string, s *Server, compact bool) {
	fmt.Fprintf(w, "\nserver %s\n", quoteArg(name))
	if s.Remote {
		writeRemote(w, s)
	} else {
		fmt.Fprintf(w, "  command       %s\n", termtext.ShellArgs(s.Command))
		writeProgram(w, s.Review)
		fmt.Fprintf(w, "  env           %s\n", envLine(s.EnvPassthrough, s.Policy != nil && s.Policy.Sandbox != nil))
	}
	if s.Era == mcpspec.EraModern {
		fmt.Fprintf(w, "  era           modern (server/discover), protocolVersion %s, supports %s\n",
			oneLine(s.ProtocolVersion, 20), oneLine(strings.Join(s.SupportedVersions, ", "), 120))
	} else {
		fmt.Fprintf(w, "  era           legacy (initialize), protocolVersion %s\n", oneLine(s.ProtocolVersion, 20))
	}
	fmt.Fprintf(w, "  serverInfo    %s\n", serverInfoLine(s.ServerInfo))
	switch {
	case s.LogKey == "":
		fmt.Fprintf(w, "  log key       none: private (%s; never looked up)\n", launch.PrivateWhy(s.URL != ""))
	case s.LogProof:
		fmt.Fprintf(w, "  log key       %s (proof stored)\n", quoteArg(s.LogKey))
	default:
		fmt.Fprintf(w, "  log key       %s\n", quoteArg(s.LogKey))
	}
	if !compact {
		writeServerInfoRest(w, s.ServerInfo)
	}
	writeInstructions(w, s.Instructions, compact)
	fmt.Fprintf(w, "  surface       %s\n", s.Surface)
	fmt.Fprintf(w, "  counts        %d tools, %d prompts, %d resources, %d templates\n",
		s.Counts["tools"], s.Counts["prompts"], s.Counts["resources"], s.Counts["resourceTemplates"])
	for _, k := range s.EmptyAdvertised {
		fmt.Fprintf(w, "  empty         %s: advertised by the server, but it listed none or answered -32601 (method not found), locked as none; a later real list is drift\n", k)
	}
	if s.Suspicious > 0 {
		fmt.Fprintf(w, "  !! %d item(s) contain control, ANSI, bidi or zero-width characters: review them before trusting this server\n", s.Suspicious)
	}
	for _, k := range mcpspec.Kinds {
		items := s.Items[k.Field]
		if len(items) == 0 {
			continue
		}
		if s.Policy != nil && slices.Contains(s.Policy.Unpinned, k.Field) {
			fmt.Fprintf(w, "  %s (as seen at lock time; data, not pinned: the proxy serves the server's live list)\n", k.Field)
		} else if k.Field == "resources" && s.DataResources {
			fmt.Fprintf(w, "  %s (they look like data the server lists live, one per table or row: a new one is drift that quarantines the server; if they are, add \"unpinned\": [\"resources\"] to this entry's \"policy\")\n", k.Field)
		} else {
			fmt.Fprintf(w, "  %s\n", k.Field)
		}
		for _, it := range items {
			if compact {
				writeItemLine(w, it)
				continue
			}
			key, _ := termtext.Quote(it.Key)
			fmt.Fprintf(w, "    %s  %s", key, it.Digest)
			if a := annotationSummary(it.Annotations); a != "" {
				fmt.Fprintf(w, "  [%s]", a)
			}
			fmt.Fprintln(w)
			WriteItem(w, "      ", k.Name, it.Definition)
			if len(it.Suspicious) > 0 {
				fmt.Fprintf(w, "      !! SUSPICIOUS characters in: %s\n", oneLine(strings.Join(it.Suspicious, ", "), 200))
			}
		}
	}
	writePolicy(w, s)
	writeReview(w, s.Review)
}

func writeInstructions(w io.Writer, t *Text, compact bool) {
	if t == nil {
		fmt.Fprintf(w, "  instructions  none\n")
		return
	}
	flag := ""
	if t.Suspicious {
		flag = "  !! SUSPICIOUS characters"
	}
	if compact {
		fmt.Fprintf(w, "  instructions  %d chars, %s%s  %s\n", t.Chars, t.Digest, flag, oneLine(t.text, 80))
		return
	}
	fmt.Fprintf(w, "  instructions  %d chars, %s%s\n", t.Chars, t.Digest, flag)
	WriteTextBlock(w, "    ", t.text)
}

// writeItemLine is an item in --compact: one line, its key, the start of
// its digest, the start of its description, and a flag if it needs a full
// review.
func writeItemLine(w io.Writer, it Item) {
	key, _ := termtext.Quote(it.Key)
	digest := it.Digest
	if len(digest) > len("sha256:")+12 {
		digest = digest[:len("sha256:")+12] + "…"
	}
	fmt.Fprintf(w, "    %s  %s", key, digest)
	if it.Description != "" {
		fmt.Fprintf(w, "  %s", oneLine(it.Description, 100))
	}
	if len(it.Suspicious) > 0 {
		fmt.Fprintf(w, "  !! SUSPICIOUS characters in: %s", oneLine(strings.Join(it.Suspicious, ", "), 100))
	}
	fmt.Fprintln(w)
}

func serverInfoLine(raw json.RawMessage) string {
	// Exact keys, as a client reads them: encoding/json would take a
	// "NAME" member for "name".
	f, err := jsonscan.Fields(raw, "name", "title", "version")
	if err != nil {
		return oneLine(string(raw), 100)
	}
	name, _ := jsonscan.String(f[0])
	title, _ := jsonscan.String(f[1])
	version, _ := jsonscan.String(f[2])
	out := oneLine(name, 60)
	if version != "" {
		out += " " + oneLine(version, 30)
	}
	if title != "" {
		out += " (" + oneLine(title, 60) + ")"
	}
	return out
}

// annotationSummary lists the hints a server declared, as it declared them.
func annotationSummary(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "annotations unreadable"
	}
	var parts []string
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, ok := m[k]; ok {
			parts = append(parts, strings.TrimSuffix(k, "Hint")+"="+oneLine(string(v), 10))
		}
	}
	return strings.Join(parts, " ")
}

func writePolicy(w io.Writer, s *Server) {
	p := s.Policy
	if p == nil {
		fmt.Fprintf(w, "  policy        none (no taint tracking, no sandbox)\n")
		return
	}
	if p.Taint != nil {
		fmt.Fprintf(w, "  taint sources %s\n", listOrNone(p.Taint.Sources))
		fmt.Fprintf(w, "  taint sinks   %s\n", listOrNone(p.Taint.Sinks))
	}
	if sb := p.Sandbox; sb != nil {
		fmt.Fprintf(w, "  sandbox read  %s\n", listOrNone(sb.Filesystem.Read))
		fmt.Fprintf(w, "  sandbox write %s (plus its private ${TMP})\n", listOrNone(sb.Filesystem.Write))
		if len(sb.Network.Allow) == 0 {
			fmt.Fprintf(w, "  network       none\n")
		} else {
			fmt.Fprintf(w, "  network       only %s, through the audited egress proxy\n", strings.Join(sb.Network.Allow, ", "))
		}
	}
	if len(p.Unpinned) > 0 {
		fmt.Fprintf(w, "  not pinned    %s (declared data: changes are not drift, verify does not check them)\n", strings.Join(p.Unpinned, ", "))
	}
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i], _ = termtext.Quote(s)
	}
	return strings.Join(q, ", ")
}

// envLine says exactly which variables the server gets: the base ones mcpsum
// always passes (when set), the entry's envPassthrough, nothing else.
func envLine(pass []string, sandboxed bool) string {
	base := strings.Join(process.BaseEnv(), ", ")
	if sandboxed {
		base += " (TMPDIR set to the sandbox's own)"
	}
	if len(pass) == 0 {
		return base + " when set; every other variable is withheld"
	}
	return base + " when set, and " + strings.Join(pass, ", ") + "; every other variable is withheld"
}

// writeProgram writes where the command runs and which file it starts.
func writeProgram(w io.Writer, r *Review) {
	if r == nil {
		return
	}
	if r.ProgramError != "" {
		fmt.Fprintf(w, "  program       not found here: %s\n", oneLine(r.ProgramError, 300))
	} else {
		fmt.Fprintf(w, "  program       %s\n", quoteArg(r.Program))
	}
	if r.SandboxTmp {
		fmt.Fprintf(w, "  runs in       its sandbox's private ${TMP} (the lockfile's folder %s is not in the sandbox's view)\n", quoteArg(r.WorkDir))
		return
	}
	fmt.Fprintf(w, "  runs in       %s (the lockfile's folder)\n", quoteArg(r.WorkDir))
}

// writeReview writes the warnings and look-alike names of a server.
func writeReview(w io.Writer, r *Review) {
	if r == nil {
		return
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", oneLine(x, 400))
	}
	for _, x := range r.Lookalikes {
		// Built only from fixed text and %+q renderings (ASCII escapes):
		// printed as is, so "\u0435cho" reads as written.
		fmt.Fprintf(w, "  !! look-alike: %s\n", x)
	}
	for _, x := range r.Shadowing {
		// Also built from fixed text and %+q renderings only.
		fmt.Fprintf(w, "  !! shadowing: %s\n", x)
	}
}
