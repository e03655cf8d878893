package taintguard

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/policy"
	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// New builds the proxy hooks of an entry with a taint policy (nil when it
// has none). Anything the guard cannot set up stops the proxy: a policy
// that cannot be enforced must not run as if it were (fail closed). warn
// shows the guard's remarks to the user (the caller says where).
func New(name string, entry *lockfile.Server, timeout time.Duration, warn func(msg string)) (proxy.Hooks, func(), error) {
	if entry.Policy == nil || entry.Policy.Taint == nil || len(entry.Policy.Taint.Sources)+len(entry.Policy.Taint.Sinks) == 0 {
		return nil, func() {}, nil
	}
	sess, err := policy.CurrentSession()
	if err != nil {
		return nil, nil, fmt.Errorf("server %s has a taint policy: %w", termtext.ShellArg(name), err)
	}
	dir, err := statefile.Dir()
	if err != nil {
		return nil, nil, fmt.Errorf("server %s has a taint policy: %w", termtext.ShellArg(name), err)
	}
	audit, err := policy.OpenAudit(dir, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("server %s has a taint policy, but its audit log cannot be opened: %w", termtext.ShellArg(name), err)
	}
	store := policy.NewStore(dir)
	if sess.Proxy.PID > 0 {
		if err := store.Join(sess, sess.Proxy); err != nil {
			return nil, nil, fmt.Errorf("server %s has a taint policy, but this proxy cannot record itself in session %s (its taint could be cleaned up while it runs): %w", termtext.ShellArg(name), sess.ID, err)
		}
	}
	if _, err := store.Cleanup(); err != nil {
		warn("taint state cleanup: " + err.Error())
	}
	cfg := policy.Config{Server: name, Taint: entry.Policy.Taint, Surface: entry.Digests.Surface,
		Session: sess, Store: store, Audit: audit, Warn: warn}
	if key, err := policy.LoadKey(dir); err != nil {
		cfg.KeyErr = err
		warn("2026-07-28 clients cannot approve calls: " + err.Error())
	} else {
		cfg.Signer = policy.NewSigner(key)
	}
	warn(fmt.Sprintf("taint policy on (session %s; sources: %s; sinks: %s)", sess.ID,
		labels(entry.Policy.Taint.Sources), labels(entry.Policy.Taint.Sinks)))
	return &taintHooks{g: policy.NewGuard(cfg), timeout: timeout}, func() { audit.Close() }, nil
}

func labels(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = termtext.ShellArg(n)
	}
	return strings.Join(q, ", ")
}

// taintHooks adapts the policy guard to the proxy's hooks (internal/proxy knows
// no policy; internal/policy knows no proxy).
type taintHooks struct {
	g       *policy.Guard
	timeout time.Duration
}

func guarded(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

func (h *taintHooks) BeforeCall(ci proxy.CallInfo, params []byte, s proxy.Session, decide func(proxy.Verdict)) {
	if !guarded(ci.Method) {
		decide(proxy.Verdict{})
		return
	}
	c := &policy.Call{Method: ci.Method, Name: ci.Name, Params: params, Modern: ci.ClientModern}
	if _, sink := h.g.Role(ci.Method, ci.Name); sink {
		if ci.ClientModern {
			c.Elicit = policy.ElicitModern(params)
		} else {
			c.Elicit = policy.ElicitLegacy(s.ClientHello())
		}
	}
	h.g.Run(c, asker{s}, h.timeout, func(v policy.Verdict) {
		switch {
		case v.Action == policy.Respond && v.Err != nil:
			decide(proxy.Verdict{Refuse: &proxy.CallError{Code: v.Err.Code, Message: v.Err.Message, Data: v.Err.Data}})
		case v.Action == policy.Respond:
			decide(proxy.Verdict{Answer: v.Result})
		default:
			decide(proxy.Verdict{Params: v.Params})
		}
	})
}

func (h *taintHooks) BeforeResult(ci proxy.CallInfo, r proxy.ResultInfo) *proxy.CallError {
	if !guarded(ci.Method) && ci.Method != proxy.UnknownTaskResult {
		return nil
	}
	body := r.Body
	if r.IsError || r.Streamed {
		body = nil
	}
	if e := h.g.BeforeResult(&policy.Call{Method: ci.Method, Name: ci.Name, Modern: ci.ClientModern}, body); e != nil {
		return &proxy.CallError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return nil
}

// asker asks through the proxy's session with the client.
type asker struct{ s proxy.Session }

func (a asker) Ask(params []byte, done func([]byte, policy.Answer)) error {
	return a.s.AskClient("elicitation/create", params, func(res json.RawMessage, e *proxy.CallError) {
		switch {
		case e == nil:
			done(res, "")
		case e.Code == proxy.CodeCallCancelled:
			done(nil, policy.AnswerCancelled)
		case e.Code == proxy.CodeSessionEnded:
			done(nil, policy.AnswerDisconnect)
		default:
			done(nil, policy.AnswerError)
		}
	})
}

func (a asker) Withdraw() { a.s.CancelAsks("mcpsum: nobody answered the approval in time") }
