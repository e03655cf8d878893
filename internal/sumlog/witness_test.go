package sumlog_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
	"github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// testWitness is a C2SP tlog-witness for one log, written for this test
// (no witness server ships as a Go package): POST /add-checkpoint checks
// the log's signature, the old size it last cosigned (409 otherwise) and
// the consistency proof, then answers its tlog-cosignature line.
type testWitness struct {
	logV   note.Verifier
	origin string
	signer note.Signer
	vkey   string // cosignature/v1 verifier key
	mu     sync.Mutex
	size   uint64
	root   []byte
	calls  int
}

func newTestWitness(t *testing.T, name, logVKey string) (*testWitness, string) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := note.NewVerifier(logVKey)
	if err != nil {
		t.Fatal(err)
	}
	w := &testWitness{logV: lv, origin: lv.Name(), signer: s, vkey: cv}
	srv := httptest.NewServer(http.HandlerFunc(w.addCheckpoint))
	t.Cleanup(srv.Close)
	return w, srv.URL
}

func (w *testWitness) addCheckpoint(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/add-checkpoint" {
		http.NotFound(rw, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	head, cp, ok := bytes.Cut(body, []byte("\n\n"))
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Scan()
	old, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "old "), 10, 64)
	if !ok || err != nil {
		http.Error(rw, "bad request", http.StatusBadRequest)
		return
	}
	var hashes [][]byte
	for sc.Scan() {
		h, err := base64.StdEncoding.DecodeString(sc.Text())
		if err != nil {
			http.Error(rw, "bad proof", http.StatusBadRequest)
			return
		}
		hashes = append(hashes, h)
	}
	c, _, n, err := log.ParseCheckpoint(cp, w.origin, w.logV)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusForbidden)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if old != w.size {
		rw.Header().Set("Content-Type", "text/x.tlog.size")
		rw.WriteHeader(http.StatusConflict)
		fmt.Fprintf(rw, "%d\n", w.size)
		return
	}
	if w.size > 0 {
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, w.size, c.Size, hashes, w.root, c.Hash); err != nil {
			http.Error(rw, "inconsistent: "+err.Error(), http.StatusUnprocessableEntity)
			return
		}
	}
	signed, err := note.Sign(&note.Note{Text: n.Text}, w.signer)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	w.size, w.root = c.Size, c.Hash
	_, sigs, _ := bytes.Cut(signed, []byte("\n\n"))
	rw.Write(sigs)
}

// mcpsum-log asks the witnesses of its policy to cosign; a client whose
// policy needs k of n of them accepts the cosigned checkpoint (lookups and
// offline proofs), and one that needs a witness who did not cosign refuses
// it with a clear error.
func TestWitnessCosigning(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "witnessed.test/log")
	if err != nil {
		t.Fatal(err)
	}
	w1, u1 := newTestWitness(t, "w1.test", vkey)
	w2, u2 := newTestWitness(t, "w2.test", vkey)
	absent, _ := newTestWitness(t, "w3.test", vkey) // never asked by the log
	logPolicy := fmt.Sprintf("witness w1 %s %s\nwitness w2 %s %s\ngroup g 2 w1 w2\nquorum g\n", w1.vkey, u1, w2.vkey, u2)
	surf := sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("c", 64)}, {}, {}, {}}}
	opts := sumlog.Options{WitnessPolicy: []byte(logPolicy)}
	for i, key := range []string{"npm/a@1.0.0#00", "npm/b@1.0.0#00"} { // two adds: the second needs a consistency proof
		if _, err := sumlog.Add(ctx, dir, opts, []sumlog.Entry{{Key: key, Surface: surf}}); err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
	}
	if w1.calls == 0 || w2.calls == 0 || w1.size != 2 {
		t.Fatalf("witnesses not asked: w1 %d calls (size %d), w2 %d calls", w1.calls, w1.size, w2.calls)
	}
	h, _, err := sumlog.Handler(ctx, dir, sumlog.Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := func(policy string) (*sumdb.Config, *sumdb.Client) {
		cfg, err := sumdb.ParseConfig(vkey+" "+srv.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.WithWitnesses("policy.txt", []byte(policy)); err != nil {
			t.Fatal(err)
		}
		return cfg, &sumdb.Client{Config: cfg, StateDir: t.TempDir()}
	}
	cfg, c := client(fmt.Sprintf("witness w1 %s %s\nwitness w3 %s http://w3.invalid\ngroup g 1 w1 w3\nquorum g\n", w1.vkey, u1, absent.vkey))
	res, err := c.Check(ctx, "npm/b@1.0.0#00", surf)
	if err != nil || !res.Found {
		t.Fatalf("1-of-2 policy: %+v %v", res, err)
	}
	if err := cfg.CheckProof("npm/b@1.0.0#00", surf, string(res.Proof)); err != nil {
		t.Errorf("offline proof under the witness policy: %v", err)
	}
	_, c = client(fmt.Sprintf("witness w1 %s %s\nwitness w3 %s http://w3.invalid\ngroup g 2 w1 w3\nquorum g\n", w1.vkey, u1, absent.vkey))
	if _, err := c.Check(ctx, "npm/b@1.0.0#00", surf); err == nil || !strings.Contains(err.Error(), "not cosigned as the witness policy policy.txt requires") || !sumdb.IsSecurity(err) {
		t.Errorf("2-of-2 policy with an absent witness: %v", err)
	}
}
