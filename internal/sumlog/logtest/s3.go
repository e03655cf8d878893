package logtest

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// S3 is a running S3-compatible server with one empty bucket.
type S3 struct {
	Endpoint string   // http://127.0.0.1:PORT
	Bucket   string   // an empty bucket
	Root     string   // the folder it serves (Root/Bucket holds the objects)
	Env      []string // the AWS credentials and settings a client needs
}

// StartS3 starts Versity's S3 gateway over a temporary folder with one
// bucket, named bucket, and root credentials made up for the test.
func StartS3(t testing.TB, bucket string) *S3 {
	t.Helper()
	bin := Peer(t, "versitygw")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	const access, secret = "mcpsumtest", "mcpsum-test-secret-key"
	cmd := exec.Command(bin, "--access", access, "--secret", secret, "--port", addr, "--quiet", "posix", "--sidecar", filepath.Join(t.TempDir()), root)
	cmd.Env = os.Environ()
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	start(t, cmd, logPath)
	s := &S3{Endpoint: "http://" + addr, Bucket: bucket, Root: root, Env: []string{
		"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret,
		"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
	}}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not start: %v\n%s", err, tail(logPath))
		}
	}
}

// Setenv sets the server's AWS settings in the test's environment (for
// a library under test that reads them, as the AWS SDK does).
func (s *S3) Setenv(t *testing.T) {
	for _, kv := range s.Env {
		for i := range kv {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
}
