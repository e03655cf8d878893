package sumlog_test

import (
	"os"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog/logtest"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestMain runs the tests with a HOME, XDG folders and TMPDIR of their own
// (testbin.Run), never the real user's, and with the AWS settings every
// test S3 server takes (logtest.S3Env: the same for each), so the S3 tests
// run in parallel instead of setting them one test at a time.
func TestMain(m *testing.M) { os.Exit(testbin.Run(m, logtest.SetS3Env)) }
