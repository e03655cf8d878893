package attest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Environment variables IDTokenFromEnv reads.
const (
	EnvIDToken            = "SIGSTORE_ID_TOKEN"
	EnvGitHubRequestURL   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	EnvGitHubRequestToken = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
)

// IDTokenFromEnv finds an OIDC identity token for keyless signing, looking
// up variables with getenv (pass os.Getenv):
//
//  1. SIGSTORE_ID_TOKEN: the token itself;
//  2. ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN (GitHub
//     Actions with `permissions: id-token: write`): the token is requested
//     from GitHub with audience "sigstore".
//
// source names where the token came from. With neither set it returns a
// *UsageError; a failed GitHub request is a plain error.
func IDTokenFromEnv(ctx context.Context, getenv func(string) string) (token, source string, err error) {
	if t := strings.TrimSpace(getenv(EnvIDToken)); t != "" {
		return t, EnvIDToken, nil
	}
	reqURL, reqTok := getenv(EnvGitHubRequestURL), getenv(EnvGitHubRequestToken)
	if reqURL == "" || reqTok == "" {
		return "", "", usagef(EnvIDToken, "no OIDC identity token for keyless signing: set %s, or run in GitHub Actions with `permissions: id-token: write` (%s and %s), or sign with --key", EnvIDToken, EnvGitHubRequestURL, EnvGitHubRequestToken)
	}
	t, err := githubToken(ctx, reqURL, reqTok)
	if err != nil {
		return "", "", wrapClean(err, "request an OIDC token from GitHub Actions (%s)", EnvGitHubRequestURL)
	}
	return t, "github-actions", nil
}

func githubToken(ctx context.Context, reqURL, bearer string) (string, error) {
	u, err := url.Parse(reqURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("audience", "sigstore")
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d: %q", resp.StatusCode, truncate(string(body), 200))
	}
	var out struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Value == "" {
		return "", fmt.Errorf("unexpected response %q", truncate(string(body), 200))
	}
	return out.Value, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// IDTokenClaims returns the subject (the "email" claim if present, else
// "sub") and the issuer ("iss") of an OIDC identity token, without checking
// its signature (Fulcio does that). Use it to say whom a keyless signature
// will name; an error means the token is not a JWT with those claims.
func IDTokenClaims(token string) (subject, issuer string, err error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return "", "", errors.New("not an OIDC identity token (a JWT: three dot-separated parts)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	var c struct{ Iss, Sub, Email string }
	if err != nil || json.Unmarshal(raw, &c) != nil {
		return "", "", errors.New("not an OIDC identity token (the JWT payload is not base64url JSON)")
	}
	subject = c.Sub
	if c.Email != "" {
		subject = c.Email
	}
	if c.Iss == "" || subject == "" {
		return "", "", errors.New("the OIDC identity token has no issuer (iss) or subject (sub/email) claim")
	}
	return subject, c.Iss, nil
}
