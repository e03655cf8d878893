package logtest

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// Witness is a running omniwitness that witnesses one log.
type Witness struct {
	Name string // its name in policies
	URL  string // http://127.0.0.1:PORT (POST /add-checkpoint)
	VKey string // its C2SP tlog-cosignature verifier key
	stop func()
}

// PolicyLine is the witness's line of a witness policy.
func (w *Witness) PolicyLine() string {
	return fmt.Sprintf("witness %s %s %s\n", w.Name, w.VKey, w.URL)
}

// Stop stops the witness (a witness that is down).
func (w *Witness) Stop() { w.stop() }

// StartWitness starts omniwitness, configured to witness the log whose
// signed-note verifier key is logVKey, with a fresh signing key named name
// and its state in a SQLite file of the test.
func StartWitness(t testing.TB, name, logVKey string) *Witness {
	t.Helper()
	bin := Peer(t, "omniwitness")
	dir := t.TempDir()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	cvkey, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(logVKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, logs := filepath.Join(dir, "witness.key"), filepath.Join(dir, "logs.yaml")
	if err := os.WriteFile(keyFile, []byte(skey), 0o600); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf("Logs:\n  - Origin: %q\n    PublicKey: %q\n    URL: %q\n", v.Name(), logVKey, "http://"+v.Name())
	if err := os.WriteFile(logs, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--listen", addr, "--metrics_listen", "", "--private_key_path", keyFile,
		"--additional_logs", logs, "--db_file", filepath.Join(dir, "witness.db"), "--logtostderr")
	logPath := filepath.Join(dir, "omniwitness.log")
	start(t, cmd, logPath)
	w := &Witness{Name: name, URL: "http://" + addr, VKey: cvkey, stop: func() { cmd.Process.Kill() }}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(w.URL + "/add-checkpoint") // GET: 405, but it answers
		if err == nil {
			resp.Body.Close()
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("omniwitness did not start: %v\n%s", err, tail(logPath))
		}
	}
}
