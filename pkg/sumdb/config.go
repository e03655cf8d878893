package sumdb

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/transparency-dev/formats/witness"
	"golang.org/x/mod/sumdb/note"

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
	u, err := url.Parse(f[1])
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("MCPSUMDB: log address %q: want an http(s) URL", f[1])
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

// Excluded reports whether key matches an MCPSUM_NOSUMDB pattern: such a
// key is never looked up. A pattern matches the ECOSYSTEM/PACKAGE part of
// the key, or any leading path of it ("npm/@corp" covers "npm/@corp/x"),
// as GONOSUMDB does.
func (c *Config) Excluded(key string) bool {
	mod := Module(key)
	for _, g := range c.Exclude {
		for p := mod; ; {
			if ok, _ := path.Match(g, p); ok {
				return true
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return false
}
