package attest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
	"github.com/mcpsum/mcpsum/internal/attestproto"
)

func serveJSON(t *testing.T, stdin []byte, env map[string]string, args ...string) (attestproto.Response, int) {
	t.Helper()
	var out bytes.Buffer
	code := attest.Serve(context.Background(), args, bytes.NewReader(stdin), &out, func(k string) string { return env[k] })
	var r attestproto.Response
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("stdout is not exactly one JSON line: %q (%v)", out.String(), err)
	}
	if r.Protocol != attestproto.Version || r.Exit != code {
		t.Fatalf("response %+v with exit status %d", r, code)
	}
	return r, code
}

// The helper's protocol: the data comes on stdin only, one JSON answer on
// stdout, exit status = the answer's exit; verdicts 1, usage 2.
func TestServeProtocol(t *testing.T) {
	dir := t.TempDir()
	data := []byte("{\"lockfileVersion\":1}\n")
	priv, pub := attesttest.GenerateKeyPEM(t, []byte("pw"))
	key, pubPath := filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
	os.WriteFile(key, priv, 0o600)
	os.WriteFile(pubPath, pub, 0o644)
	env := map[string]string{attest.EnvKeyPassword: "pw"}

	r, code := serveJSON(t, data, env, "sign", "--protocol", "1", "--key", key)
	if code != 0 || len(r.Bundle) == 0 {
		t.Fatalf("sign: exit %d %+v", code, r)
	}
	bundle := filepath.Join(dir, "b.json")
	os.WriteFile(bundle, r.Bundle, 0o644)
	r, code = serveJSON(t, data, env, "verify", "--protocol", "1", "--bundle", bundle, "--key", pubPath)
	if code != 0 || r.Signer == nil || r.Signer.Keyless || !strings.HasPrefix(r.Signer.Digest, "sha256:") {
		t.Fatalf("verify: exit %d %+v", code, r)
	}
	// Other bytes on stdin: a verdict.
	if r, code = serveJSON(t, append(data, ' '), env, "verify", "--protocol", "1", "--bundle", bundle, "--key", pubPath); code != 1 || !strings.Contains(r.Error, "signature") {
		t.Errorf("changed data: exit %d %+v", code, r)
	}
	if r, code = serveJSON(t, data, env, "verify", "--protocol", "1", "--bundle", filepath.Join(dir, "none.json"), "--key", pubPath); code != 1 || !strings.HasPrefix(r.Error, "no signature: ") {
		t.Errorf("missing bundle: exit %d %+v", code, r)
	}
	// Operator mistakes and protocol mismatches: usage.
	for _, args := range [][]string{
		{"verify", "--protocol", "2", "--bundle", bundle, "--key", pubPath},
		{"verify", "--bundle", bundle, "--key", pubPath},
		{"frobnicate", "--protocol", "1"},
		{},
		{"verify", "--protocol", "1", "--bundle", bundle, "--key", filepath.Join(dir, "nokey.pub")},
		{"sign", "--protocol", "1", "--key", key, "extra"},
	} {
		if r, code := serveJSON(t, data, map[string]string{}, args...); code != 2 || r.Error == "" {
			t.Errorf("%q: exit %d %+v, want a usage error", args, code, r)
		}
	}
	if r, _ := serveJSON(t, data, nil, "verify", "--protocol", "2"); !strings.Contains(r.Error, "speaks protocol 1") {
		t.Errorf("protocol mismatch message: %q", r.Error)
	}
	// Wrong passphrase: usage, and no bundle.
	if r, code := serveJSON(t, data, map[string]string{attest.EnvKeyPassword: "nope"}, "sign", "--protocol", "1", "--key", key); code != 2 || r.Bundle != nil {
		t.Errorf("wrong passphrase: exit %d %+v", code, r)
	}
}
