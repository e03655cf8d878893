package pin

import (
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// LogKey is the transparency-log key of a locked entry (see sumdb.Key):
// its argv, env names, era and the client capabilities mcpsum declares in
// that era. ok is false for an entry without an exact registry pin (private).
func LogKey(e *lockfile.Server) (string, bool) {
	if e.Remote() {
		return "", false // no registry package: a remote server is private
	}
	return sumdb.Key(sumdb.Identity{Argv: e.Command, Env: e.EnvPassthrough, Era: e.Era(), Capabilities: mcpwire.ClientCapabilities(e.Era())})
}

// LogSurface is the definitional part of a locked entry as the log records it.
func LogSurface(e *lockfile.Server) sumdb.Surface {
	s := sumdb.Surface{Era: e.Era()}
	if e.Digests.Instructions != nil {
		s.Instructions = *e.Digests.Instructions
	}
	s.Items = [4]map[string]string{e.Digests.Tools, e.Digests.Prompts, e.Digests.Resources, e.Digests.ResourceTemplates}
	return s
}

// PrivateWhy says why an entry has no transparency-log key (LogKey's ok is
// false): remote is whether it is a remote server.
func PrivateWhy(remote bool) string {
	if remote {
		return "a remote server has no registry package everyone can run"
	}
	return "its command pins no registry package at an exact version"
}
