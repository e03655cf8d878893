package sumdb_test

import (
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/sumlog/logtest"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// A witness policy set after first use does not lock the user out: the
// checkpoint this machine remembers from before has no cosignature, the
// log's new one (cosigned by a real omniwitness) extends it, and lookups
// under the policy go on.
func TestWitnessPolicyAfterFirstUse(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "later.test/log")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/a@1.0.0#00", Surface: surface(1)}}); err != nil {
		t.Fatal(err)
	}
	h, closeStorage, err := sumlog.Handler(ctx, dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStorage()
	srv := httptest.NewServer(h)
	defer srv.Close()
	state := t.TempDir()
	cfg, err := sumdb.ParseConfig(vkey+" "+srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&sumdb.Client{Config: cfg, StateDir: state}).Check(ctx, "npm/a@1.0.0#00", surface(1)); err != nil {
		t.Fatal(err)
	}
	w := logtest.StartWitness(t, "w.test", vkey)
	policy := []byte(w.PolicyLine() + "quorum w.test\n")
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{WitnessPolicy: policy}, []sumlog.Entry{{Key: "npm/b@1.0.0#00", Surface: surface(2)}}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.WithWitnesses("policy", policy); err != nil {
		t.Fatal(err)
	}
	if res, err := (&sumdb.Client{Config: cfg, StateDir: state}).Check(ctx, "npm/b@1.0.0#00", surface(2)); err != nil || !res.Found {
		t.Fatalf("lookup under a policy set after first use: %+v %v", res, err)
	}
}
