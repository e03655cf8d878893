package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"path/filepath"
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

// Save keeps t in the private state folder (atomically, mode 0600).
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
	b, _ := json.Marshal(map[string]any{"issuer": t.Issuer, "resource": t.Resource, "client_id": t.ClientID,
		"access_token": t.AccessToken, "refresh_token": t.RefreshToken, "expires_at": exp})
	return statefile.WriteAtomic(path, b, statefile.WriteOptions{Perm: 0o600, Sync: true})
}

// Load returns the kept tokens for (resource, issuer), or nil when there
// are none.
func Load(resource, issuer string) (*Token, error) {
	path, err := tokenPath(resource, issuer)
	if err != nil {
		return nil, err
	}
	b, err := safeio.ReadOwn(path, "OAuth token file", maxDoc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := jsonscan.Fields(b, "issuer", "resource", "client_id", "access_token", "refresh_token", "expires_at")
	if err != nil {
		return nil, hint.New("OAuth token file "+path+" is damaged", "delete it to sign in again")
	}
	t := &Token{}
	for i, dst := range []*string{&t.Issuer, &t.Resource, &t.ClientID, &t.AccessToken, &t.RefreshToken} {
		*dst, _ = jsonscan.String(f[i])
	}
	var exp int64
	if err := json.Unmarshal(f[5], &exp); err == nil && exp > 0 {
		t.Expiry = time.Unix(exp, 0)
	}
	if t.Issuer != issuer || t.Resource != resource {
		return nil, nil
	}
	return t, nil
}
