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
// has none) for `mcpsum proxy`: its client session is the process that
// started it (policy.CurrentSession). Anything the guard cannot set up
// stops the proxy: a policy that cannot be enforced must not run as if it
// were (fail closed). warn shows the guard's remarks to the user (the
// caller says where).
func New(name string, entry *lockfile.Server, timeout time.Duration, warn func(msg string)) (proxy.Hooks, func(), error) {
	if !Guarded(entry) {
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
	sh, err := OpenShared(dir, nil, warn)
	if err != nil {
		return nil, nil, fmt.Errorf("server %s has a taint policy, but %w", termtext.ShellArg(name), err)
	}
	if sess.Proxy.PID > 0 {
		if err := sh.Store.Join(sess, sess.Proxy); err != nil {
			sh.Close()
			return nil, nil, fmt.Errorf("server %s has a taint policy, but this proxy cannot record itself in session %s (its taint could be cleaned up while it runs): %w", termtext.ShellArg(name), sess.ID, err)
		}
	}
	if _, err := sh.Store.Cleanup(); err != nil {
		warn("taint state cleanup: " + err.Error())
	}
	warn(fmt.Sprintf("taint policy on (session %s; sources: %s; sinks: %s)", sess.ID,
		labels(entry.Policy.Taint.Sources), labels(entry.Policy.Taint.Sinks)))
	return ForSession(name, entry, timeout, sess, sh, warn), sh.Close, nil
}

// Guarded reports whether an entry has a taint policy with any label.
func Guarded(entry *lockfile.Server) bool {
	return entry.Policy != nil && entry.Policy.Taint != nil && len(entry.Policy.Taint.Sources)+len(entry.Policy.Taint.Sinks) > 0
}

// Describe says what an entry's taint policy guards.
func Describe(entry *lockfile.Server) string {
	return fmt.Sprintf("taint policy on (sources: %s; sinks: %s)", labels(entry.Policy.Taint.Sources), labels(entry.Policy.Taint.Sinks))
}

// Shared is what every guard of one process shares: the state store (its
// files, or Docs that replicas share), the audit log, and the signer of
// 2026-07-28 approvals.
type Shared struct {
	Store  *policy.Store
	Audit  *policy.Audit
	Signer *policy.Signer // nil when the approval key is not available (KeyErr says why)
	KeyErr error
}

// OpenShared opens the state under the state directory dir: the session
// documents in docs (nil: the files there), the audit log there, the
// approval key of docs or of dir. A key that cannot be read leaves
// 2026-07-28 clients unable to approve (warn says so).
func OpenShared(dir string, docs policy.Docs, warn func(string)) (*Shared, error) {
	audit, err := policy.OpenAudit(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("its audit log cannot be opened: %w", err)
	}
	sh := &Shared{Store: policy.NewStore(dir), Audit: audit}
	if docs != nil {
		sh.Store = policy.NewSharedStore(dir, docs)
	}
	if key, err := sh.Store.ApprovalKey(); err != nil {
		sh.KeyErr = err
		warn("2026-07-28 clients cannot approve calls: " + err.Error())
	} else {
		sh.Signer = policy.NewSigner(key)
	}
	return sh, nil
}

// Close closes the audit log.
func (sh *Shared) Close() { sh.Audit.Close() }

// ForSession builds the hooks of an entry for the client session sess
// (nil when the entry has no taint policy): `mcpsum serve` makes one per
// client identity, all over one Shared.
func ForSession(name string, entry *lockfile.Server, timeout time.Duration, sess policy.Session, sh *Shared, warn func(string)) proxy.Hooks {
	if !Guarded(entry) {
		return nil
	}
	cfg := policy.Config{Server: name, Taint: entry.Policy.Taint, Surface: entry.Digests.Surface,
		Session: sess, Store: sh.Store, Audit: sh.Audit, Warn: warn, Signer: sh.Signer, KeyErr: sh.KeyErr}
	return &taintHooks{g: policy.NewGuard(cfg), timeout: timeout}
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
