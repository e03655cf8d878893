package sumlog_test

import (
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// A storage spec reads back as itself (the folder records it), and a spec
// that could carry a secret or is malformed is refused.
func TestParseStorage(t *testing.T) {
	for _, spec := range []string{
		"posix", "posix:/srv/log",
		"s3://bucket", "s3://bucket/a/b?endpoint=http://127.0.0.1:9000",
		"s3://bucket/p?endpoint=https://s3.example&region=eu-west-1&dsn-file=/etc/mcpsum/dsn%20file",
	} {
		s, err := sumlog.ParseStorage(spec)
		if err != nil {
			t.Errorf("ParseStorage(%q): %v", spec, err)
			continue
		}
		if s.String() != spec {
			t.Errorf("ParseStorage(%q).String() = %q", spec, s.String())
		}
		again, err := sumlog.ParseStorage(s.String())
		if err != nil || again != s {
			t.Errorf("%q does not read back: %+v %v", spec, again, err)
		}
	}
	if s, err := sumlog.ParseStorage("/srv/log"); err != nil || s.String() != "posix:/srv/log" {
		t.Errorf("a folder as the spec: %v %v", s, err)
	}
	for _, bad := range []string{
		"posix:relative", "s3://", "s3://user:pass@bucket", "s3://b?dsn=root:pw@tcp(x)/db",
		"s3://b?endpoint=ftp://x", "s3://b?endpoint=http://u:p@x", "s3://b?dsn-file=rel", "gs://b",
		"s3://b?region=a&region=b",
	} {
		if _, err := sumlog.ParseStorage(bad); err == nil {
			t.Errorf("ParseStorage(%q) accepted it", bad)
		}
	}
}
