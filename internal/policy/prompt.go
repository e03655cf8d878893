package policy

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"strings"
	"time"
)

// what describes the call: `tool "send" on server "mail"`.
func (g *Guard) what(c *Call) string {
	kind := "tool"
	switch c.Method {
	case "prompts/get":
		kind = "prompt"
	case "resources/read":
		kind = "resource"
	}
	return fmt.Sprintf("%s %s on server %s", kind, termtext.Quoted(c.Name, 200), termtext.Quoted(g.cfg.Server, 200))
}

// origin says what tainted the session and when.
func origin(s *State) string {
	l := s.Latest()
	if l == nil {
		if s.Problem != "" {
			return s.Problem + ", so it counts as tainted"
		}
		return "an earlier source"
	}
	o := fmt.Sprintf("%s on server %s at %s", termtext.Quoted(l.Label, 200), termtext.Quoted(l.Server, 200), l.Last.UTC().Format(time.RFC3339))
	if l.Server == "" {
		o = fmt.Sprintf("%s at %s", l.Label, l.Last.UTC().Format(time.RFC3339))
	}
	if n := len(s.Sources) - 1; n > 0 {
		o += fmt.Sprintf(" (and %d other source%s)", n, plural(n))
	}
	return o
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// elicitParams is the proxy's own approval form for a legacy client.
func (g *Guard) elicitParams(c *Call, msg string) []byte {
	p := map[string]any{
		"message":         msg,
		"requestedSchema": approvalSchema(),
	}
	if c.Elicit == ElicitForm {
		p["mode"] = "form"
	}
	return mustJSON(p)
}

func approvalSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"allow": map[string]any{"type": "boolean", "title": "Allow this one call", "default": false},
			SessionKey: map[string]any{"type": "boolean", "default": false,
				"title":       "Also allow this exact call for the rest of this session",
				"description": "The same tool, server and arguments, until the lock changes or you run mcpsum taint reset"},
		},
		"required": []string{"allow"},
	}
}

func (g *Guard) promptMessage(c *Call) (string, error) {
	var args string
	if c.Method == "resources/read" {
		args = "URI: " + shortenMiddle(c.Name, maxValueShown)
	} else {
		var err error
		if args, err = shownArgs(c.args); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("mcpsum: this session read outside content that may steer the model: %s.\n"+
		"The model now asks for %s, which can act or send data out.\n%s\n"+
		"Allow this one call? (mcpsum is asking, not the server.)", origin(&c.state), g.what(c), args), nil
}

// inputRequired is a 2026-07-28 InputRequiredResult asking the approval.
func (g *Guard) inputRequired(c *Call, state, msg string) []byte {
	form := map[string]any{"mode": "form", "message": msg, "requestedSchema": approvalSchema()}
	return mustJSON(map[string]any{
		"resultType":    "input_required",
		"inputRequests": map[string]any{ApproveKey: map[string]any{"method": "elicitation/create", "params": form}},
		"requestState":  state,
	})
}

// toolError is a CallToolResult with isError and one text block.
func toolError(text string, modern bool) []byte {
	r := map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true}
	if modern {
		r["resultType"] = "complete"
	}
	return mustJSON(r)
}

// refusalText says what happened, why, and what to run.
func (g *Guard) refusalText(c *Call, a Answer, reason string) string {
	var why string
	switch a {
	case AnswerUnavailable:
		why = "this client cannot show mcpsum's approval prompt"
		if reason != "" {
			why = reason
		}
	case AnswerDecline, AnswerNotAllowed:
		why = "the approval prompt was not accepted"
	case AnswerCancel:
		why = "the approval prompt was dismissed"
	case AnswerTimeout:
		why = "nobody answered the approval prompt in time"
	case AnswerError:
		why = "the client answered the approval prompt with an error"
	case AnswerCancelled:
		why = "the request was cancelled while the approval prompt was open"
	case AnswerDisconnect:
		why = "the client went away while the approval prompt was open"
	case AnswerMissing:
		why = "the retry did not carry an answer to the approval prompt"
	default:
		why = "the approval could not be checked"
		if reason != "" {
			why += ": " + reason
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcpsum refused this call to %s: the call was not made.\n", g.what(c))
	fmt.Fprintf(&b, "This client session read outside content that may steer the model (tainted by %s), "+
		"so calls that can act or send data out need the user's approval, and %s.\n", origin(&c.state), why)
	fmt.Fprintf(&b, "To review what the session read, run in a terminal: mcpsum taint list\n")
	fmt.Fprintf(&b, "After review, clear the taint with: mcpsum taint reset %s", g.cfg.Session.ID)
	return b.String()
}
