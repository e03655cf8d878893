package policy

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// KeyFile is the approval key's name in the state directory: 32 random
// bytes, mode 0600, that sign the requestState of 2026-07-28 approvals.
const KeyFile = "approval.key"

// LoadKey reads the approval key in stateDir, creating it on first use. A key
// that others may read or write, or of the wrong size, is refused: approvals
// signed with it could be forged.
func LoadKey(stateDir string) ([]byte, error) {
	path := filepath.Join(stateDir, KeyFile)
	for range 2 {
		key, err := readKey(path)
		if !errors.Is(err, fs.ErrNotExist) {
			return key, err
		}
		if err := createKey(stateDir, path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return readKey(path)
}

func readKey(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 {
		return nil, hint.Errorf("remove it and mcpsum makes a new one", "approval key %s must be a regular file with mode 0600 (it is %v)", path, st.Mode())
	}
	key, err := safeio.ReadOwn(path, "approval key", 4<<10)
	if err != nil {
		return nil, fmt.Errorf("approval key: %w", err)
	}
	if len(key) != 32 {
		return nil, hint.Errorf("remove it and mcpsum makes a new one", "approval key %s has %d bytes, want 32", path, len(key))
	}
	return key, nil
}

// createKey publishes a new key (statefile.PublishExclusive), so a
// concurrent reader never sees a partial key and only one writer wins.
func createKey(stateDir, path string) error {
	if err := statefile.MkdirPrivate(stateDir); err != nil {
		return fmt.Errorf("approval key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	return statefile.PublishExclusive(path, key, 0o600)
}

// Binding is what an approval is bound to: one call of one server, with
// these arguments, against this lock, in this session.
type Binding struct {
	Method     string // tools/call, prompts/get, resources/read
	Server     string // the entry's name in mcp.lock
	Name       string // tool or prompt name, or the resource URI
	ArgsDigest string // ArgsDigest of the call's arguments
	Surface    string // the entry's digests.surface
	Session    string
	// Taint is the session's taint epoch (State.Epoch): an approval issued
	// before a `taint reset` does not count in the taint that follows,
	// whose record of spent approvals starts empty.
	Taint string
}

// ArgsDigest is the digest bound into approvals and grants and written to
// the audit log: SHA-256 over the RFC 8785 form of the arguments with every
// number kept exact (lockfile.ExactDigest: 9007199254740993 is not
// 9007199254740992), over the raw bytes when they cannot be canonicalised.
// Values themselves are never logged.
func ArgsDigest(args []byte) string {
	if len(args) == 0 {
		args = []byte("null")
	}
	if d, err := lockfile.ExactDigest(args); err == nil {
		return d
	}
	sum := sha256.Sum256(args)
	return "sha256-raw:" + hex.EncodeToString(sum[:])
}

// Errors of Signer.Open. Each is a refusal.
var (
	ErrStateForged   = errors.New("the approval state was not issued by this mcpsum (bad signature)")
	ErrStateExpired  = errors.New("the approval state has expired")
	ErrStateMismatch = errors.New("the approval state was issued for a different call")
	ErrStateReplayed = errors.New("the approval state was already used")
)

// StatePrefix starts every requestState the proxy issues, so it can tell its
// own from an upstream server's.
const StatePrefix = "mcpsum-approval.v1."

// Carry is what a server's own input_required round left in a retry that
// the proxy had to stop for approval: restored when the call is forwarded.
type Carry struct {
	State     *string         // the server's requestState
	Responses json.RawMessage // the client's inputResponses for the server
}

// Grant is the payload of a signed requestState.
type Grant struct {
	Binding
	Expires time.Time
	Nonce   string
	Carry   Carry
}

type wireGrant struct {
	M  string          `json:"m"`
	S  string          `json:"s"`
	N  string          `json:"n"`
	A  string          `json:"a"`
	L  string          `json:"l"`
	I  string          `json:"i"`
	X  int64           `json:"x"`
	R  string          `json:"r"`
	T  string          `json:"t,omitempty"`
	Up *string         `json:"up,omitempty"`
	UR json.RawMessage `json:"ur,omitempty"`
}

// Signer issues and checks requestState tokens: HMAC-SHA256 with the key in
// the state directory, a short expiry, and single use.
type Signer struct {
	key []byte
	TTL time.Duration // 0: 10 minutes
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // nonce -> expiry
}

// NewSigner returns a Signer with key.
func NewSigner(key []byte) *Signer {
	return &Signer{key: key, now: time.Now, used: map[string]time.Time{}}
}

func (s *Signer) ttl() time.Duration {
	if s.TTL <= 0 {
		return 10 * time.Minute
	}
	return s.TTL
}

// Issue signs a grant for b.
func (s *Signer) Issue(b Binding, carry Carry) string {
	nonce := make([]byte, 12)
	rand.Read(nonce)
	w := wireGrant{M: b.Method, S: b.Server, N: b.Name, A: b.ArgsDigest, L: b.Surface, I: b.Session, T: b.Taint,
		X: s.now().Add(s.ttl()).UnixMilli(), R: base64.RawURLEncoding.EncodeToString(nonce), Up: carry.State, UR: carry.Responses}
	payload, _ := json.Marshal(w)
	body := StatePrefix + base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *Signer) mac(body string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// Open checks state against the call it came back with and uses it up.
func (s *Signer) Open(state string, b Binding) (*Grant, error) {
	rest, ok := strings.CutPrefix(state, StatePrefix)
	i := strings.LastIndexByte(rest, '.')
	if !ok || i < 0 {
		return nil, ErrStateForged
	}
	body := state[:len(StatePrefix)+i]
	sig, err := base64.RawURLEncoding.DecodeString(rest[i+1:])
	if err != nil || !hmac.Equal(sig, s.mac(body)) {
		return nil, ErrStateForged
	}
	payload, err := base64.RawURLEncoding.DecodeString(rest[:i])
	if err != nil {
		return nil, ErrStateForged
	}
	var w wireGrant
	if err := json.Unmarshal(payload, &w); err != nil {
		return nil, ErrStateForged
	}
	g := &Grant{Binding: Binding{Method: w.M, Server: w.S, Name: w.N, ArgsDigest: w.A, Surface: w.L, Session: w.I, Taint: w.T},
		Expires: time.UnixMilli(w.X), Nonce: w.R, Carry: Carry{State: w.Up, Responses: w.UR}}
	now := s.now()
	if !now.Before(g.Expires) {
		return nil, ErrStateExpired
	}
	if g.Binding != b {
		return nil, fmt.Errorf("%w (%s)", ErrStateMismatch, diffBinding(g.Binding, b))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, exp := range s.used {
		if !now.Before(exp) {
			delete(s.used, n)
		}
	}
	if _, dup := s.used[g.Nonce]; dup {
		return nil, ErrStateReplayed
	}
	s.used[g.Nonce] = g.Expires
	return g, nil
}

func diffBinding(a, b Binding) string {
	var d []string
	if a.Method != b.Method {
		d = append(d, "method")
	}
	if a.Server != b.Server {
		d = append(d, "server")
	}
	if a.Name != b.Name {
		d = append(d, "name")
	}
	if a.ArgsDigest != b.ArgsDigest {
		d = append(d, "arguments")
	}
	if a.Surface != b.Surface {
		d = append(d, "lock")
	}
	if a.Session != b.Session {
		d = append(d, "session")
	}
	if a.Taint != b.Taint {
		d = append(d, "taint (the session was reset after the approval)")
	}
	return strings.Join(d, ", ") + " differ"
}

// ApproveKey is the proxy's own key in inputRequests/inputResponses.
const ApproveKey = "mcpsum/approve"

// Answer is the reading of an elicitation answer.
type Answer string

// Answers other than AnswerAccept refuse the call.
const (
	AnswerAccept      Answer = "accept"
	AnswerNotAllowed  Answer = "accept-without-allow" // accept with allow false or missing
	AnswerDecline     Answer = "decline"
	AnswerCancel      Answer = "cancel"
	AnswerInvalid     Answer = "invalid"
	AnswerError       Answer = "error"
	AnswerTimeout     Answer = "timeout"
	AnswerCancelled   Answer = "cancelled"    // the client cancelled the original request
	AnswerDisconnect  Answer = "disconnected" // the client went away
	AnswerMissing     Answer = "missing"      // a retry without the proxy's answer
	AnswerUnavailable Answer = "unavailable"  // the client cannot show a prompt
)

// SessionKey is the approval form's second choice: with allow, also allow
// this exact call for the rest of the session.
const SessionKey = "session"

// ParseAnswer reads an ElicitResult: approved only for action "accept" with
// content.allow exactly true. Keys are matched exactly; a duplicate key or a
// case variant of one mcpsum reads is invalid.
func ParseAnswer(raw []byte) Answer {
	a, _ := ParseApproval(raw)
	return a
}

// ParseApproval is ParseAnswer that also reads whether the user allowed the
// call for the rest of the session (content.session exactly true, with
// allow true).
func ParseApproval(raw []byte) (Answer, bool) {
	if !json.Valid(raw) { // the scanner finds boundaries, it does not validate
		return AnswerInvalid, false
	}
	a, content := parseAction(raw)
	if a != AnswerAccept {
		return a, false
	}
	c, err := jsonscan.Fields(content, "allow", SessionKey)
	if err != nil {
		return AnswerInvalid, false
	}
	if string(c[0]) != "true" {
		return AnswerNotAllowed, false
	}
	return AnswerAccept, string(c[1]) == "true"
}

// parseAction reads the action of an ElicitResult, and for "accept" its
// content object.
func parseAction(raw []byte) (Answer, []byte) {
	f, err := jsonscan.Fields(raw, "action", "content")
	if err != nil || f[0] == nil {
		return AnswerInvalid, nil
	}
	action, ok := jsonscan.String(f[0])
	if !ok {
		return AnswerInvalid, nil
	}
	switch action {
	case "decline":
		return AnswerDecline, nil
	case "cancel":
		return AnswerCancel, nil
	case "accept":
	default:
		return AnswerInvalid, nil
	}
	if f[1] == nil {
		return AnswerNotAllowed, nil
	}
	return AnswerAccept, f[1]
}
