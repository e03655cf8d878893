package proxy

// Results from the server: matched to the client's call, given the locked
// serverInfo and the client era's own members, then delivered through the
// one result path (BeforeResult hooks first).

import (
	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// resultToClient forwards the server's response to call c under the
// client's id: the one path of every in-memory result (streamResult is the
// other half, for long lines), so the BeforeResult hook sees them all. A
// 2026-07-28 client in front of a legacy server also gets the members its
// era requires on a result (resultType; ttlMs and cacheScope on
// resources/read), inserted at the front: every other byte stays as the
// server sent it.
func (p *Proxy) resultToClient(c *call, line []byte, env jsonline.Envelope) {
	clientID := c.ClientID
	body := env.Result
	if env.Err.OK() {
		body = env.Err
	}
	var marked *edit
	if c.modern && p.srv.upEra == mcpspec.EraModern && env.Result.OK() {
		// Passed through as is, a 2026-07-28 server's input requests still
		// reach only a client that declared what they need, and its
		// elicitations are marked as the server's (clientasks.go).
		rf, _, _ := jsonline.Fields(line, env.Result, "resultType", "inputRequests")
		if rt, _ := jsonline.StringAt(line, rf[0]); rt == "input_required" && rf[1].OK() {
			if msg := checkInputRequests(c.caps, line, rf[1]); msg != "" {
				p.replyErr(clientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: msg})
				return
			}
			reqs, why := p.markInputRequests(line, rf[1])
			if why != "" {
				p.replyErr(clientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: " + why})
				return
			}
			marked = &edit{rf[1].Start, rf[1].End, reqs}
		}
	}
	if e := p.opts.Hooks.BeforeResult(c.info, ResultInfo{IsError: env.Err.OK(), Body: body.Of(line)}); e != nil {
		p.replyErr(clientID, e.rpc())
		return
	}
	edits := []edit{{env.ID.Start, env.ID.End, clientID}}
	bridged := !c.modern && p.srv.upEra == mcpspec.EraModern
	if bridged && env.Err.OK() {
		if e, ok := p.eraNoteError(line, env.Err); ok {
			edits = append(edits, e)
		}
	}
	if marked != nil {
		edits = append(edits, *marked)
	}
	if c.method == "tools/call" && env.Result.OK() && line[env.Result.Start] == '{' {
		if id, _, ok := taskOf(line, env.Result); ok {
			p.rememberTask(id, c.info)
		}
		res, err := crossCreateResult(c, line, env.Result)
		if err != nil {
			p.replyErr(clientID, badTask(p.opts.Name, err))
			return
		}
		if res != nil {
			p.reply(clientID, res)
			return
		}
	}
	if env.Result.OK() && line[env.Result.Start] == '{' {
		info, err := serverInfoMeta(line, env.Result)
		if err != nil {
			p.replyErr(clientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the server's result was not forwarded: " + err.Error()})
			return
		}
		if bridged {
			// A legacy client gets its own era's fields: no resultType,
			// ttlMs, cacheScope or serverInfo copy; a tool refused a
			// legacy request to it gets why, and the fix (eranote.go).
			res := legacyResult(line, env.Result)
			if c.method == "tools/call" {
				res = p.eraNoteResult(res)
			}
			edits = append(edits, edit{env.Result.Start, env.Result.End, res})
		} else if info.OK() {
			edits = append(edits, edit{info.Start, info.End, p.srv.lock.ServerInfo})
		}
		if c.modern && p.srv.upEra == mcpspec.EraLegacy {
			if ins := modernResultMembers(line, env.Result, c.method); ins != nil {
				edits = append(edits, edit{env.Result.Start + 1, env.Result.Start + 1, ins})
			}
		}
	}
	p.out.WriteLine(applyEdits(line, edits)...)
}

// legacyResult is the result object at sp without the members a legacy
// client does not know from a 2026-07-28 server: resultType, ttlMs,
// cacheScope, and _meta's serverInfo copy (_meta goes when nothing else is
// in it). Every other member keeps its bytes.
func legacyResult(line []byte, sp jsonline.Span) []byte {
	out := []byte{'{'}
	n := 0
	add := func(member []byte) {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, member...)
		n++
	}
	jsonscan.Members(line[:sp.End], sp.Start, func(key string, ks, vs, ve int) error {
		switch key {
		case "resultType", "ttlMs", "cacheScope":
			return nil
		case "_meta":
			if line[vs] != '{' {
				break
			}
			meta := []byte{'{'}
			m := 0
			jsonscan.Members(line[:ve], vs, func(k string, mks, _, mve int) error {
				if k != mcpspec.MetaServerInfo {
					if m > 0 {
						meta = append(meta, ',')
					}
					meta = append(meta, line[mks:mve]...)
					m++
				}
				return nil
			})
			if m > 0 {
				add(append(append([]byte(`"_meta":`), meta...), '}'))
			}
			return nil
		}
		add(line[ks:ve])
		return nil
	})
	return append(out, '}')
}

// serverInfoMeta finds result._meta["io.modelcontextprotocol/serverInfo"],
// which the proxy replaces with the locked value (the client sees the lock);
// a repeated _meta or serverInfo is an error.
func serverInfoMeta(line []byte, result jsonline.Span) (jsonline.Span, error) {
	rf, _, err := jsonline.Fields(line, result, "_meta")
	if err != nil {
		return jsonline.Span{}, err
	}
	mf, _, err := jsonline.Fields(line, rf[0], mcpspec.MetaServerInfo)
	if err != nil {
		return jsonline.Span{}, err
	}
	return mf[0], nil
}
