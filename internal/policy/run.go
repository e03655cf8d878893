package policy

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// Asker reaches a legacy client for the approval question.
type Asker interface {
	// Ask sends elicitation/create with params and calls done once with the
	// client's result, or with nil and the reason it will not come
	// (AnswerError, AnswerCancelled, AnswerDisconnect).
	Ask(params []byte, done func(result []byte, failure Answer)) error
	// Withdraw cancels the question at the client (after a timeout).
	Withdraw()
}

// DefaultApprovalTimeout is how long a legacy approval question stays open.
// A person may take a while; the request itself has no shorter timeout.
const DefaultApprovalTimeout = 10 * time.Minute

// Run decides c and hands the verdict to decide, at once or, when the user
// must be asked, after the answer: it never blocks on the client. A question
// unanswered after timeout (0: DefaultApprovalTimeout) is withdrawn and the
// call refused.
func (g *Guard) Run(c *Call, a Asker, timeout time.Duration, decide func(Verdict)) {
	v := g.BeforeCall(c)
	if v.Action != Ask {
		decide(v)
		return
	}
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	var once sync.Once
	finish := func(result []byte, why Answer) {
		once.Do(func() { decide(g.Answered(c, result, why)) })
	}
	timer := time.AfterFunc(timeout, func() {
		a.Withdraw()
		finish(nil, AnswerTimeout)
	})
	if err := a.Ask(v.Elicit, func(result []byte, why Answer) {
		timer.Stop()
		finish(result, why)
	}); err != nil {
		timer.Stop()
		finish(nil, AnswerError)
	}
}

// ElicitLegacy reads what a legacy client declared at initialize: form mode
// when capabilities.elicitation is an object that is empty (form only) or
// has "form"; the mode is named except for 2025-06-18, which has none.
func ElicitLegacy(version string, caps []byte) Elicit {
	if len(caps) == 0 {
		return ElicitNone
	}
	f, err := jsonscan.Fields(caps, "elicitation")
	if err != nil || !formDeclared(f[0]) {
		return ElicitNone
	}
	switch version {
	case mcpspec.Version20241105, mcpspec.Version20250326:
		return ElicitNone // these versions have no elicitation
	case mcpspec.Version20250618:
		return ElicitNoMode
	}
	return ElicitForm
}

// ElicitModern reads this 2026-07-28 request's declared capabilities
// (params._meta["io.modelcontextprotocol/clientCapabilities"].elicitation).
func ElicitModern(params []byte) Elicit {
	pf, err := jsonscan.Fields(params, "_meta")
	if err != nil || pf[0] == nil {
		return ElicitNone
	}
	mf, err := jsonscan.Fields(pf[0], "io.modelcontextprotocol/clientCapabilities")
	if err != nil || mf[0] == nil {
		return ElicitNone
	}
	cf, err := jsonscan.Fields(mf[0], "elicitation")
	if err != nil || !formDeclared(cf[0]) {
		return ElicitNone
	}
	return ElicitForm
}

// formDeclared: an elicitation capability object that is empty (form only)
// or has a "form" member.
func formDeclared(raw []byte) bool {
	if raw == nil {
		return false
	}
	f, err := jsonscan.Fields(raw, "form", "url")
	if err != nil {
		return false
	}
	if f[0] != nil {
		var m map[string]json.RawMessage
		return json.Unmarshal(f[0], &m) == nil
	}
	return f[1] == nil // {} means form only; {"url":{}} alone is not form
}
