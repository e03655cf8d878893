package fleet

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Signer is one signer the organisation trusts: a public key, or a keyless
// identity and issuer (exact or as regular expressions), as `mcpsum verify
// --signature` takes them.
type Signer struct {
	Name string
	Req  attestproto.VerifyRequest // Bundle is set for each check
}

// Trust is a trust file: which org lock this machine installs (Name, the
// name its release statements must carry), the signers whose releases sync
// installs, and optionally the lowest serial it accepts (MinSerial, which
// holds a first sync, or one after a reset, to at least that release).
type Trust struct {
	Path      string
	Name      string
	MinSerial int64 // 0: none
	Signers   []Signer
}

var signerName = &lazyRegexp{expr: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`}

// signerMembers are the members of one signer in a trust file.
var signerMembers = []string{"name", "key", "certificateIdentity", "certificateIdentityRegexp",
	"certificateOidcIssuer", "certificateOidcIssuerRegexp", "trustedRoot"}

// ReadTrust reads the trust file at path:
//
//	{"name": "eng", "minSerial": 40, "signers": [{"name": "release-key", "key": "release.pub"}, ...]}
//
// "name" is the org lock's release name (required); "minSerial" is
// optional. Each signer has a unique name and either a key or a certificate identity
// and issuer; key and trustedRoot paths are relative to the trust file's
// folder. The file must be one only root or the caller can write.
func ReadTrust(path string) (*Trust, error) {
	if err := secureFile(path); err != nil {
		if missing(err) {
			return nil, fmt.Errorf("no trust file %s: write the signers the organisation trusts there (docs/fleet.md, \"Installing it: fleet sync\")", quote(path))
		}
		return nil, fmt.Errorf("trust file: %w", err)
	}
	if err := secureDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("trust file: %w", err)
	}
	data, err := safeio.ReadRegular(path, "trust file", 1<<20)
	if err != nil {
		return nil, err
	}
	t, err := parseTrust(path, data)
	if err != nil {
		return nil, fmt.Errorf("trust file %s: %w", quote(path), err)
	}
	return t, nil
}

func parseTrust(path string, data []byte) (*Trust, error) {
	top, err := object(data, []string{"name", "minSerial", "signers"}, true)
	if err != nil {
		return nil, err
	}
	t := &Trust{Path: path}
	if top["name"] == nil {
		return nil, errors.New(`no "name": write the org lock's name there, as 'mcpsum fleet release --name NAME' releases it ({"name": "eng", "signers": [...]}); sync installs only releases of that name`)
	}
	var ok bool
	if t.Name, ok = str(top["name"]); !ok || CheckName(t.Name) != nil {
		return nil, fmt.Errorf("\"name\" %s: want 1 to 64 letters, digits, '.', '_' or '-', as fleet release --name takes it", quoteValue(top["name"]))
	}
	if v := top["minSerial"]; v != nil {
		if t.MinSerial, ok = serial(v); !ok {
			return nil, fmt.Errorf("\"minSerial\" %s: want a whole number from 1 to %d", quoteValue(v), maxSerial)
		}
	}
	list, ok := elements(top["signers"])
	if !ok || len(list) == 0 {
		return nil, errors.New(`want {"name": "...", "signers": [...]} with at least one signer`)
	}
	dir := filepath.Dir(path)
	seen := map[string]bool{}
	who := map[string]string{} // signerID -> name
	for i, raw := range list {
		s, err := parseSigner(raw, dir)
		if err != nil {
			return nil, fmt.Errorf("signer %d: %w", i+1, err)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("signer name %q appears twice", s.Name)
		}
		seen[s.Name] = true
		id, err := signerID(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		if other, ok := who[id]; ok {
			return nil, fmt.Errorf("signers %s and %s are the same signer (one key or keyless identity under two names): status could not say which signed, and removing one name would not revoke it; keep one", other, s.Name)
		}
		who[id] = s.Name
		t.Signers = append(t.Signers, s)
	}
	return t, nil
}

// signerID is who a signer is, whatever its name: its key (the PEM block's
// bytes, so a copy of the key in another file is the same key), or its
// keyless identity and issuer.
func signerID(s Signer) (string, error) {
	if s.Req.Key == "" {
		r := s.Req
		return strings.Join([]string{"keyless", r.Identity, r.IdentityRegexp, r.Issuer, r.IssuerRegexp}, "\x00"), nil
	}
	data, err := safeio.ReadRegular(s.Req.Key, "signer key", 1<<20)
	if err != nil {
		return "", err
	}
	if b, _ := pem.Decode(data); b != nil {
		data = b.Bytes
	}
	return "key\x00" + string(bytes.TrimSpace(data)), nil
}

func parseSigner(raw []byte, dir string) (Signer, error) {
	m, err := object(raw, signerMembers, true)
	if err != nil {
		return Signer{}, err
	}
	v := map[string]string{}
	for k, val := range m {
		s, ok := str(val)
		if !ok || s == "" {
			return Signer{}, fmt.Errorf("%s: want a non-empty string", k)
		}
		v[k] = s
	}
	s := Signer{Name: v["name"], Req: attestproto.VerifyRequest{
		Key: v["key"], Identity: v["certificateIdentity"], IdentityRegexp: v["certificateIdentityRegexp"],
		Issuer: v["certificateOidcIssuer"], IssuerRegexp: v["certificateOidcIssuerRegexp"], TrustedRoot: v["trustedRoot"]}}
	if !signerName.get().MatchString(s.Name) {
		return Signer{}, fmt.Errorf("name %s: want 1 to 64 letters, digits, '.', '_' or '-'", termtext.Quoted(s.Name, 80))
	}
	for _, p := range []*string{&s.Req.Key, &s.Req.TrustedRoot} {
		if *p == "" {
			continue
		}
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
		// Whoever could replace a key (or trusted root) names their own
		// signer: it is held to the trust file's rule.
		if err := secureFile(*p); err != nil {
			return Signer{}, fmt.Errorf("%s: %w", s.Name, err)
		}
		if err := secureDir(filepath.Dir(*p)); err != nil {
			return Signer{}, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	if _, err := s.Req.Args(); err != nil {
		return Signer{}, fmt.Errorf("%s: %v", s.Name, strings.NewReplacer("--key PUB", `"key"`, "--certificate-identity", `"certificateIdentity"`,
			"--certificate-oidc-issuer", `"certificateOidcIssuer"`, "--key", `"key"`).Replace(err.Error()))
	}
	return s, nil
}

// Names lists the signers' names.
func (t *Trust) Names() []string {
	out := make([]string, len(t.Signers))
	for i, s := range t.Signers {
		out[i] = s.Name
	}
	return out
}

// Verify finds the signer of data (a release statement) whose signature
// the Sigstore bundle at bundle holds, asking the signing helper once per
// signer, in the trust file's order. No signer matching is a *RefusedError;
// a helper that could not decide for some signer (missing, broken, an
// unreadable key) is that error, when no other signer matched.
func (t *Trust) Verify(ctx context.Context, c attestproto.Client, data []byte, bundle string) (*Signer, *attestproto.Signer, error) {
	var undecided error
	for i := range t.Signers {
		s := &t.Signers[i]
		req := s.Req
		req.Bundle = bundle
		who, err := c.Verify(ctx, data, req)
		if err == nil {
			return s, who, nil
		}
		var he *attestproto.Error
		if errors.As(err, &he) && he.Exit == attestproto.ExitVerdict {
			continue
		}
		if undecided == nil {
			undecided = fmt.Errorf("checking the release's signature against signer %s: %w", s.Name, err)
		}
	}
	if undecided != nil {
		return nil, nil, undecided
	}
	return nil, nil, refuse(WhySigner, "the release is not signed by a signer the organisation trusts (%s names %s)", quote(t.Path), strings.Join(t.Names(), ", "))
}
