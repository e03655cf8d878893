package sumdb

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/formats/witness"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/pkgspec"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Config is the log mcpsum checks surfaces against: MCPSUMDB, MCPSUM_NOSUMDB
// and the optional witness policy.
type Config struct {
	VerifierKey string // the log's signed-note verifier key, ORIGIN+HASH+KEY
	URL         string // where its tiles, checkpoint and lookups are served
	Exclude     []string

	verifier note.Verifier
	origin   string
	witness  *witness.Group
	policy   string // the witness policy's file name, for messages
}

// ParseConfig reads MCPSUMDB ("VERIFIER-KEY URL", "off" or empty) and
// MCPSUM_NOSUMDB (comma-separated globs over ECOSYSTEM/PACKAGE). A nil
// Config means no log is configured.
func ParseConfig(db, nosumdb string) (*Config, error) {
	db = strings.TrimSpace(db)
	if db == "" || db == "off" {
		return nil, nil
	}
	f := strings.Fields(db)
	if len(f) != 2 {
		return nil, fmt.Errorf("MCPSUMDB: want \"VERIFIER-KEY URL\" (the key mcpsum-log init printed and the log's address) or off, got %d words", len(f))
	}
	v, err := note.NewVerifier(f[0])
	if err != nil {
		return nil, fmt.Errorf("MCPSUMDB: verifier key %q: %v (want the ORIGIN+HASH+KEY line mcpsum-log init printed)", f[0], err)
	}
	if err := logURL(f[1]); err != nil {
		return nil, fmt.Errorf("MCPSUMDB: log address %q: %v", f[1], err)
	}
	c := &Config{VerifierKey: f[0], URL: strings.TrimSuffix(f[1], "/"), verifier: v, origin: v.Name()}
	for _, g := range strings.Split(nosumdb, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("MCPSUM_NOSUMDB: pattern %q: %v", g, err)
		}
		c.Exclude = append(c.Exclude, g)
	}
	return c, nil
}

// ConfigFromEnv is the log configured by the environment getenv reads:
// MCPSUMDB, MCPSUM_NOSUMDB and MCPSUM_WITNESS_POLICY (a file naming the
// witnesses every checkpoint must satisfy). A nil Config means no log is
// configured; every error is a mistake in those variables.
func ConfigFromEnv(getenv func(string) string) (*Config, error) {
	cfg, err := ParseConfig(getenv("MCPSUMDB"), getenv("MCPSUM_NOSUMDB"))
	if err != nil || cfg == nil {
		return nil, err
	}
	if p := getenv("MCPSUM_WITNESS_POLICY"); p != "" {
		data, err := safeio.ReadRegular(p, "witness policy", 1<<20)
		if err != nil {
			return nil, fmt.Errorf("MCPSUM_WITNESS_POLICY: %v", err)
		}
		if err := cfg.WithWitnesses(p, data); err != nil {
			return nil, fmt.Errorf("MCPSUM_WITNESS_POLICY: %v", err)
		}
	}
	return cfg, nil
}

// WithWitnesses adds a witness policy (Sigsum policy format: witness,
// group k-of-n, quorum lines; keys are C2SP tlog-cosignature verifier keys)
// that every checkpoint must satisfy. name is used in messages.
func (c *Config) WithWitnesses(name string, policy []byte) error {
	g, err := witness.ParsePolicy(policy)
	if err != nil {
		return fmt.Errorf("witness policy %s: %v", name, err)
	}
	c.witness, c.policy = &g, name
	return nil
}

// Origin is the log's origin line (the verifier key's name).
func (c *Config) Origin() string { return c.origin }

// logURL checks a log's address as remote servers' are checked: https, or
// plain http to this machine only (anyone on the path could answer a plain
// http request, and a 404 of theirs would make a logged key look
// unlogged); no user name or password, query or fragment.
func logURL(raw string) error {
	u, err := netrule.ParseServerURL(raw)
	if err != nil {
		return err
	}
	if u.RawQuery != "" || u.ForceQuery {
		return fmt.Errorf("has a ?query: the log's paths are appended to the address")
	}
	return nil
}

// Excluded reports whether key matches an MCPSUM_NOSUMDB pattern: such a
// key is never looked up. A pattern matches the ECOSYSTEM/PACKAGE part of
// the key, or any leading path of it ("npm/@corp" covers "npm/@corp/x"),
// as GONOSUMDB does. Keys are in normal form (see Key), and so is a
// pattern before it is matched: case is ignored, a PyPI name is
// normalised (PEP 503: "pypi/Internal_Tool" covers "pypi/internal-tool")
// and an image name resolved as Docker does ("oci/mcp/*" covers
// "oci/docker.io/mcp/x"), so a package is never sent to the log under
// another spelling of an excluded name.
func (c *Config) Excluded(key string) bool {
	mod := strings.ToLower(Module(key))
	for _, g := range c.Exclude {
		for _, form := range patternForms(g) {
			for p := mod; ; {
				if ok, _ := path.Match(form, p); ok {
					return true
				}
				i := strings.LastIndexByte(p, '/')
				if i < 0 {
					break
				}
				p = p[:i]
			}
		}
	}
	return false
}

// patternForms are the spellings of an MCPSUM_NOSUMDB pattern a key is
// matched against: as written (lower case), and with its package part in
// the normal form of each ecosystem its first element matches. Matching
// more forms only ever excludes more.
func patternForms(g string) []string {
	g = strings.ToLower(g)
	forms := []string{g}
	eco, rest, ok := strings.Cut(g, "/")
	if !ok {
		return forms
	}
	if m, _ := path.Match(eco, "pypi"); m {
		forms = append(forms, "pypi/"+pkgspec.NormalPyPI(rest))
	}
	if m, _ := path.Match(eco, "oci"); m {
		forms = append(forms, "oci/"+pkgspec.NormalImage(rest))
	}
	return forms
}

// openLog opens a checkpoint signed by the log (its key and origin): the
// tree it states. A root hash that is not 32 bytes, or a size beyond
// int64, is an error, never a crash or a truncated hash.
func (cfg *Config) openLog(raw []byte) (tlog.Tree, error) {
	cp, _, _, err := log.ParseCheckpoint(raw, cfg.origin, cfg.verifier)
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("checkpoint: %v", err)
	}
	if len(cp.Hash) != tlog.HashSize {
		return tlog.Tree{}, fmt.Errorf("checkpoint: root hash of %d bytes, want %d", len(cp.Hash), tlog.HashSize)
	}
	if cp.Size > math.MaxInt64 {
		return tlog.Tree{}, fmt.Errorf("checkpoint: size %d is beyond any log", cp.Size)
	}
	return tlog.Tree{N: int64(cp.Size), Hash: tlog.Hash(cp.Hash)}, nil
}

// open checks a checkpoint's log signature, origin and witness policy.
func (cfg *Config) open(raw []byte) (tlog.Tree, error) {
	t, err := cfg.openLog(raw)
	if err != nil {
		return t, err
	}
	if cfg.witness != nil && !cfg.witness.Satisfied(raw) {
		return t, fmt.Errorf("checkpoint of size %d is not cosigned as the witness policy %s requires", t.N, cfg.policy)
	}
	return t, nil
}
