package sumlog_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/sumlog/logtest"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

func wSurface(c byte) sumdb.Surface {
	return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat(string(c), 64)}, {}, {}, {}}}
}

// mcpsum-log asks the witnesses of its policy (real omniwitnesses) to
// cosign; the folder keeps the policy, so a later add without it still
// publishes only cosigned checkpoints; a client whose policy needs k of n
// of them accepts the cosigned checkpoint (lookups and offline proofs), and
// one that needs a witness who did not cosign refuses it with a clear error.
func TestWitnessCosigning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "witnessed.test/log")
	if err != nil {
		t.Fatal(err)
	}
	w1 := logtest.StartWitness(t, "w1.test", vkey)
	w2 := logtest.StartWitness(t, "w2.test", vkey)
	absent := logtest.StartWitness(t, "w3.test", vkey) // never asked by the log
	policy := w1.PolicyLine() + w2.PolicyLine() + "group g 2 w1.test w2.test\nquorum g\n"
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{WitnessPolicy: []byte(policy)}, []sumlog.Entry{{Key: "npm/a@1.0.0#00", Surface: wSurface('a')}}); err != nil {
		t.Fatalf("add with the policy: %v", err)
	}
	// No policy given: the log's own applies (the second add needs a
	// consistency proof, which omniwitness checks).
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/b@1.0.0#00", Surface: wSurface('b')}}); err != nil {
		t.Fatalf("add without the policy: %v", err)
	}
	cp := readAll(t, filepath.Join(dir, sumlog.TilesDir, "checkpoint"))
	if !strings.HasPrefix(cp, "witnessed.test/log\n2\n") || !strings.Contains(cp, "\n— w1.test ") || !strings.Contains(cp, "\n— w2.test ") {
		t.Fatalf("the checkpoint of the second add is not cosigned by both witnesses:\n%s", cp)
	}
	url := serveLog(t, dir, sumlog.Options{})
	client := func(policy string) (*sumdb.Config, *sumdb.Client) {
		cfg, err := sumdb.ParseConfig(vkey+" "+url, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.WithWitnesses("policy.txt", []byte(policy)); err != nil {
			t.Fatal(err)
		}
		return cfg, &sumdb.Client{Config: cfg, StateDir: t.TempDir()}
	}
	cfg, c := client(w1.PolicyLine() + absent.PolicyLine() + "group g 1 w1.test w3.test\nquorum g\n")
	res, err := c.Check(ctx, "npm/b@1.0.0#00", wSurface('b'))
	if err != nil || !res.Found {
		t.Fatalf("1-of-2 policy: %+v %v", res, err)
	}
	if err := cfg.CheckProof("npm/b@1.0.0#00", wSurface('b'), string(res.Proof)); err != nil {
		t.Errorf("offline proof under the witness policy: %v", err)
	}
	_, c = client(w1.PolicyLine() + absent.PolicyLine() + "group g 2 w1.test w3.test\nquorum g\n")
	if _, err := c.Check(ctx, "npm/b@1.0.0#00", wSurface('b')); err == nil || !strings.Contains(err.Error(), "not cosigned as the witness policy policy.txt requires") || !sumdb.IsSecurity(err) {
		t.Errorf("2-of-2 policy with an absent witness: %v", err)
	}
}

// A log that shows two different trees is caught by the witness: a copy of
// the log folder (same key) that appends something else than the log
// cannot get its fork cosigned, publishes nothing new, and the add says
// why; the honest log keeps growing.
func TestWitnessCatchesFork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "forked.test/log")
	if err != nil {
		t.Fatal(err)
	}
	w := logtest.StartWitness(t, "w.test", vkey)
	o := sumlog.Options{WitnessPolicy: []byte(w.PolicyLine() + "quorum w.test\n"), PublishTimeout: 10 * time.Second}
	if _, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: "npm/a@1.0.0#00", Surface: wSurface('a')}}); err != nil {
		t.Fatal(err)
	}
	fork := filepath.Join(t.TempDir(), "fork")
	if out, err := exec.Command("cp", "-a", dir, fork).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if _, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: "npm/b@1.0.0#00", Surface: wSurface('b')}}); err != nil {
		t.Fatal(err)
	}
	forkCP := filepath.Join(fork, sumlog.TilesDir, "checkpoint")
	before := readAll(t, forkCP)
	_, err = sumlog.Add(ctx, fork, o, []sumlog.Entry{{Key: "npm/evil@1.0.0#00", Surface: wSurface('e')}})
	if err == nil || !strings.Contains(err.Error(), "did not cosign") {
		t.Fatalf("the fork's add: %v, want the witness's refusal", err)
	}
	if readAll(t, forkCP) != before {
		t.Errorf("the fork published a checkpoint the witness did not cosign:\n%s", readAll(t, forkCP))
	}
	if _, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: "npm/c@1.0.0#00", Surface: wSurface('c')}}); err != nil {
		t.Errorf("the honest log after the fork was refused: %v", err)
	}
}
