package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// tokenPath is the file of the tokens for a (resource, issuer) pair, in
// the private state folder's oauth/ (0700; files 0600).
func tokenPath(resource, issuer string) (string, error) {
	dir, err := statefile.Dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(resource + "\n" + issuer))
	return filepath.Join(dir, "oauth", hex.EncodeToString(sum[:16])+".json"), nil
}

// tokenKeys are the members of a token file.
var tokenKeys = []string{"issuer", "resource", "client_id", "access_token", "refresh_token", "expires_at",
	"scope", "client_secret", "client_method", "registered", "step_up"}

// Save keeps t in the private state folder (atomically, mode 0600). A
// pre-registered client's secret is not kept (it comes from the
// environment); a registered one's is.
func Save(t *Token) error {
	path, err := tokenPath(t.Resource, t.Issuer)
	if err != nil {
		return err
	}
	if err := statefile.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	var exp int64
	if !t.Expiry.IsZero() {
		exp = t.Expiry.Unix()
	}
	secret := ""
	if t.Client.Registered {
		secret = t.Client.Secret
	}
	b, _ := json.Marshal(map[string]any{"issuer": t.Issuer, "resource": t.Resource, "client_id": t.Client.ID,
		"access_token": t.AccessToken, "refresh_token": t.RefreshToken, "expires_at": exp,
		"scope": strings.Join(t.Scopes, " "), "client_secret": secret, "client_method": t.Client.Method,
		"registered": t.Client.Registered, "step_up": strings.Join(t.StepUp, " ")})
	return statefile.WriteAtomic(path, b, statefile.WriteOptions{Perm: 0o600, Sync: true})
}

// Load returns the kept tokens for (resource, issuer), or nil when there
// are none. A token is only ever returned for the pair it was issued for.
func Load(resource, issuer string) (*Token, error) {
	path, err := tokenPath(resource, issuer)
	if err != nil {
		return nil, err
	}
	if err := statefile.CheckOwn(path); err != nil {
		return nil, err
	}
	b, err := safeio.ReadOwn(path, "OAuth token file", maxDoc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := jsonscan.Fields(b, tokenKeys...)
	if err != nil {
		return nil, hint.New("OAuth token file "+path+" is damaged", "delete it to sign in again")
	}
	t := &Token{Client: Client{Method: MethodNone, Registered: true}}
	var scope, stepUp string
	for i, dst := range []*string{&t.Issuer, &t.Resource, &t.Client.ID, &t.AccessToken, &t.RefreshToken} {
		*dst, _ = jsonscan.String(f[i])
	}
	var exp int64
	if err := json.Unmarshal(f[5], &exp); err == nil && exp > 0 {
		t.Expiry = time.Unix(exp, 0)
	}
	scope, _ = jsonscan.String(f[6])
	t.Scopes = strings.Fields(scope)
	t.Client.Secret, _ = jsonscan.String(f[7])
	if m, ok := jsonscan.String(f[8]); ok && m != "" {
		t.Client.Method = m
	}
	if f[9] != nil {
		t.Client.Registered = string(f[9]) == "true"
	}
	stepUp, _ = jsonscan.String(f[10])
	t.StepUp = strings.Fields(stepUp)
	if t.Issuer != issuer || t.Resource != resource {
		return nil, nil
	}
	return t, nil
}
