package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

type jsonObj = map[string]any

// SARIF is the report as one SARIF 2.1.0 log for code scanning. lock is the
// lockfile's bytes the report was checked against (for line numbers),
// exitCode the exit code the caller gives its Outcome, version the
// tool's version.
func (rep *Report) SARIF(lock []byte, exitCode int, version string) map[string]any {
	uri, base := sarifURI(rep.Lockfile)
	loc := lockfile.NewLocator(lock)
	var rules []jsonObj
	for _, r := range sarifRules {
		sev := "8.0"
		if r.Level == "warning" {
			sev = "3.0"
		}
		rules = append(rules, jsonObj{
			"id":                   r.ID,
			"name":                 strings.ReplaceAll(strings.TrimPrefix(r.ID, "mcpsum/"), "-", "_"),
			"shortDescription":     jsonObj{"text": r.Short},
			"fullDescription":      jsonObj{"text": r.Full},
			"help":                 jsonObj{"text": r.Full + " Review the change (mcpsum show --name SERVER shows what was locked); to accept it, re-lock (mcpsum lock --name SERVER) and review the diff of mcp.lock."},
			"defaultConfiguration": jsonObj{"level": r.Level},
			"properties":           jsonObj{"tags": []string{"security", "mcp"}, "security-severity": sev},
		})
	}
	results := []jsonObj{}
	for _, s := range rep.Servers {
		if s.Status == StatusError {
			idx, rule := ruleFor("")
			msg := fmt.Sprintf("server %s could not be verified: %s", quoteArg(s.Name), oneLine(s.Error.Error(), 400))
			for _, h := range hint.Of(s.Error) {
				msg += "; hint: " + oneLine(h, 400)
			}
			results = append(results, sarifResult(rep, s, idx, rule, lockfile.Finding{}, "error", msg, uri, base, loc))
			continue
		}
		for _, fd := range s.Findings {
			idx, rule := ruleFor(fd.Kind)
			level := "error"
			if fd.Class == lockfile.Informational && !rep.Strict {
				level = "warning"
			}
			results = append(results, sarifResult(rep, s, idx, rule, fd, level, findingMessage(s.Name, fd), uri, base, loc))
		}
	}
	for _, sh := range rep.Shadowing {
		results = append(results, shadowResult(rep, sh, uri, base, loc))
	}
	return jsonObj{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []jsonObj{{
			"tool": jsonObj{"driver": jsonObj{
				"name":           "mcpsum",
				"version":        version,
				"informationUri": "https://github.com/mcpsum/mcpsum",
				"rules":          rules,
			}},
			"originalUriBaseIds": jsonObj{"%SRCROOT%": jsonObj{"description": jsonObj{"text": "the directory mcpsum verify ran in"}}},
			"invocations": []jsonObj{{
				"executionSuccessful": rep.Outcome() != Undecided,
				"exitCode":            exitCode,
			}},
			"results": results,
		}},
	}
}

func sarifResult(rep *Report, s *ServerResult, idx int, rule sarifRule, fd lockfile.Finding, level, msg, uri, base string, locator *lockfile.Locator) jsonObj {
	reg := locator.Locate(s.Name, fd.Kind, fd.Name)
	loc := jsonObj{"uri": uri}
	if base != "" {
		loc["uriBaseId"] = base
	}
	phys := jsonObj{"artifactLocation": loc}
	if reg.StartLine > 0 {
		phys["region"] = jsonObj{"startLine": reg.StartLine, "endLine": reg.EndLine}
	}
	logical := jsonObj{"name": s.Name, "fullyQualifiedName": "servers." + s.Name, "kind": "module"}
	if fd.Name != "" {
		logical = jsonObj{"name": fd.Name, "fullyQualifiedName": "servers." + s.Name + "." + fd.Kind + "/" + fd.Name, "kind": "member"}
	}
	fp := sha256.Sum256([]byte(strings.Join([]string{s.Name, rule.ID, fd.Kind, fd.Name, fd.Change}, "\x00")))
	props := jsonObj{"server": s.Name, "status": s.Status}
	if fd.Kind != "" {
		props["class"], props["kind"], props["change"] = fd.Class.String(), fd.Kind, fd.Change
		if fd.Name != "" {
			props["item"] = fd.Name
		}
		if len(fd.Fields) > 0 {
			props["fields"] = fd.Fields
		}
		if len(fd.Labels) > 0 {
			props["labels"] = fd.Labels
		}
	}
	return jsonObj{
		"ruleId":              rule.ID,
		"ruleIndex":           idx,
		"level":               level,
		"message":             jsonObj{"text": msg},
		"locations":           []jsonObj{{"physicalLocation": phys, "logicalLocations": []jsonObj{logical}}},
		"partialFingerprints": jsonObj{"mcpsumFinding/v1": hex.EncodeToString(fp[:16])},
		"properties":          props,
	}
}

// findingMessage is a one-line, escaped description with the next steps.
func findingMessage(server string, fd lockfile.Finding) string {
	msg := fmt.Sprintf("server %s: %s %s %s", quoteArg(server), fd.Class, What(fd), fd.Change)
	if len(fd.Fields) > 0 {
		msg += " (" + strings.Join(fd.Fields, ", ") + ")"
	}
	if fd.Class == lockfile.Definitional {
		msg += " [" + strings.Join(fd.Labels, ", ") + "]"
		if len(fd.Why) > 0 {
			msg += ": " + strings.Join(fd.Why, "; ")
		}
		msg += "; the server no longer matches mcp.lock, which may be a tool-poisoning change"
	}
	return msg + fmt.Sprintf(". Review: mcpsum show --name %s; accept: mcpsum lock --name %s, then review the diff of mcp.lock", quoteArg(server), quoteArg(server))
}

// sarifURI is the lockfile as a SARIF artifact URI: relative to the working
// directory (%SRCROOT%) when inside it, as code scanning expects, else a
// file URI.
func sarifURI(path string) (uri, base string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path), ""
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return escapeURIPath(filepath.ToSlash(rel)), "%SRCROOT%"
		}
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive paths
	}
	return "file://" + escapeURIPath(p), ""
}

func escapeURIPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// shadowResult is one shadowing finding, at the first server's item (for
// cross-reference: the server whose text names the other's tool).
func shadowResult(rep *Report, sh review.Shadow, uri, base string, locator *lockfile.Locator) jsonObj {
	idx, rule := ruleFor(shadowKind + sh.Rule)
	level := "warning"
	if rep.Strict {
		level = "error"
	}
	at := &ServerResult{Name: sh.Servers[0]}
	fd := lockfile.Finding{Kind: sh.Kind, Name: sh.Names[0]}
	if sh.Rule == review.RuleCrossReference {
		fd.Name = "" // Names[0] is a place, not an item key
	}
	r := sarifResult(rep, at, idx, rule, fd, level, sh.String()+".", uri, base, locator)
	fp := sha256.Sum256([]byte(strings.Join([]string{rule.ID, sh.Kind, sh.Servers[0], sh.Servers[1], sh.Names[0], sh.Names[1]}, "\x00")))
	r["partialFingerprints"] = jsonObj{"mcpsumFinding/v1": hex.EncodeToString(fp[:16])}
	r["properties"] = jsonObj{"servers": sh.Servers[:], "names": sh.Names[:], "kind": sh.Kind, "rule": sh.Rule}
	if sh.Spelling != "" {
		r["properties"].(jsonObj)["spelling"] = sh.Spelling
	}
	return r
}

// WriteSARIFFile writes the report's SARIF log (SARIF's arguments) to
// path: a file is replaced atomically, a device or pipe (/dev/stdout,
// /dev/null) is written to; the credentials sent are taken out (redact).
func (rep *Report) WriteSARIFFile(path string, lock []byte, exitCode int, version string) error {
	var b bytes.Buffer
	if err := show.WriteJSON(&b, rep.SARIF(lock, exitCode, version)); err != nil {
		return err
	}
	if err := statefile.WriteOutput(path, redact.Bytes(b.Bytes()), 0o644); err != nil {
		return fmt.Errorf("writing --sarif-file: %w", err)
	}
	return nil
}
