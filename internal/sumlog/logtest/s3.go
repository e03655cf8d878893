package logtest

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// The root credentials every StartS3 server takes, made up for the tests.
const s3Access, s3Secret = "mcpsumtest", "mcpsum-test-secret-key"

// S3Env are the AWS credentials and settings a client of any StartS3
// server needs: the same for every one, so a test binary whose library
// under test reads them from its environment (as the AWS SDK does) may set
// them once in TestMain (SetS3Env) and run its S3 tests in parallel, which
// t.Setenv (S3.Setenv) rules out.
func S3Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s3Access, "AWS_SECRET_ACCESS_KEY=" + s3Secret,
		"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
	}
}

// SetS3Env sets S3Env in this process's environment (for TestMain: every
// test of the binary then reaches any StartS3 server).
func SetS3Env() error {
	for _, kv := range S3Env() {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
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
	cmd := exec.Command(bin, "--access", s3Access, "--secret", s3Secret, "--port", addr, "--quiet", "posix", "--sidecar", filepath.Join(t.TempDir()), root)
	cmd.Env = os.Environ()
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	start(t, cmd, logPath)
	s := &S3{Endpoint: "http://" + addr, Bucket: bucket, Root: root, Env: S3Env()}
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
