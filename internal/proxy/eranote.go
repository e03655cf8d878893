package proxy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// A dual-era server locked in 2026-07-28 is spoken to only in that era
// (LOCKFILE.md, "Protocol era"), whatever the client's. In 2026-07-28 a
// server asks the client through an input_required result; a tool that
// sends a legacy sampling/createMessage, elicitation/create or roots/list
// instead is refused inside the server by its SDK (go-sdk: "… cannot be
// sent while serving a request on protocol version 2026-07-28"), so the
// legacy client is never asked and gets the tool's error. Nothing the
// proxy sends can change that; locking the server in the legacy era
// (lock --era legacy) does. The proxy adds that cause and fix to what the
// legacy client gets.

// eraRefusal is the words of go-sdk's refusal of a legacy request while it
// serves a 2026-07-28 request.
const eraRefusal = "cannot be sent while serving a request on protocol version 2026-07-28"

// eraNote is mcpsum's explanation of an eraRefusal, with the commands that
// lock the entry in the legacy era.
func (p *Proxy) eraNote() string {
	e, lock := p.opts.Entry, p.opts.Lockfile
	if lock == "" {
		lock = "mcp.lock"
	}
	remove := termtext.ShellArgs([]string{"mcpsum", "lock", "--lockfile", lock, "--remove", p.opts.Name})
	again := launch.LockCommand(lock, p.opts.Name, e, launch.EraFlag(lockfile.EraLegacy))
	policy := ""
	if e.Policy != nil {
		policy = " (copy the entry's policy section first and put it back after: removing the entry removes it)"
	}
	return fmt.Sprintf("mcpsum: server %q is locked in the 2026-07-28 era, and mcpsum speaks to it only in that era, in which a server asks the client with an input_required result; the server sent a legacy request to the client instead (sampling, elicitation or roots), which it refuses itself while serving a 2026-07-28 request, so this legacy client was never asked. For the server to ask legacy clients, lock it in the legacy era: %s, then %s%s",
		p.opts.Name, remove, again, policy)
}

// eraNoteResult is obj, a tools/call result for a legacy client, with the
// eraNote added as a last text item when it is an isError result whose
// text quotes the eraRefusal; otherwise obj as it is.
func (p *Proxy) eraNoteResult(obj []byte) []byte {
	f, err := jsonscan.Fields(obj, "isError", "content")
	if err != nil || string(f[0]) != "true" || len(f[1]) == 0 || f[1][0] != '[' {
		return obj
	}
	found := false
	jsonscan.Elements(f[1], 0, func(s, e int) error {
		if tf, err := jsonscan.Fields(f[1][s:e], "type", "text"); err == nil {
			t, _ := jsonscan.String(tf[1])
			found = found || strings.Contains(t, eraRefusal)
		}
		return nil
	})
	if !found {
		return obj
	}
	at := -1
	jsonscan.Members(obj, jsonscan.SkipWS(obj, 0), func(key string, _, _, ve int) error {
		if key == "content" {
			at = ve - 1 // the content array's ']'
		}
		return nil
	})
	if at < 0 {
		return obj
	}
	item, _ := json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", p.eraNote()})
	return jsonline.Concat(obj[:at], []byte{','}, item, obj[at:])
}

// eraNoteError is the edit that adds the eraNote to the message of the
// error at sp when it quotes the eraRefusal (ok false: no edit).
func (p *Proxy) eraNoteError(line []byte, sp jsonline.Span) (edit, bool) {
	ef, _, err := jsonline.Fields(line, sp, "message")
	if err != nil || !ef[0].OK() {
		return edit{}, false
	}
	msg, ok := jsonline.StringAt(line, ef[0])
	if !ok || !strings.Contains(msg, eraRefusal) {
		return edit{}, false
	}
	b, _ := json.Marshal(msg + " — " + p.eraNote())
	return edit{ef[0].Start, ef[0].End, b}, true
}
