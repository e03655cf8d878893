package sumlog

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/tessera"
)

// flakyReader is a FAKE storage reader: its checkpoint read fails the
// first fails times (as an S3 request reset under load does) and then
// returns cp. No real storage fails on cue.
type flakyReader struct {
	tessera.LogReader
	mu    sync.Mutex
	fails int
	cp    []byte
}

func (f *flakyReader) ReadCheckpoint(context.Context) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails != 0 {
		f.fails--
		return nil, errors.New("read tcp 127.0.0.1:9000: connection reset by peer")
	}
	return f.cp, nil
}

func testCheckpoint(size int) []byte {
	return []byte("example.com/log\n" + string(rune('0'+size)) + "\n" + base64.StdEncoding.EncodeToString(make([]byte, 32)) + "\n")
}

// One failed read of the checkpoint does not end the wait for it: the
// next poll reads it again (Tessera's awaiter alone gave up at once, and an
// add over S3 under load failed with its records appended).
func TestAwaitPublishedReadsAgain(t *testing.T) {
	f, err := openFolder(t.TempDir(), "posix")
	if err != nil {
		t.Fatal(err)
	}
	l := &logHandle{st: f, o: Options{PublishTimeout: time.Minute}}
	r := &flakyReader{fails: 2, cp: testCheckpoint(5)}
	cp, err := l.awaitPublished(context.Background(), r, 5)
	if err != nil {
		t.Fatalf("awaitPublished after two failed reads: %v", err)
	}
	if string(cp) != string(r.cp) {
		t.Fatalf("checkpoint %q, want %q", cp, r.cp)
	}
}

// A storage whose checkpoint cannot be read at all ends the wait at the
// publish timeout, and the error says why.
func TestAwaitPublishedNamesReadFailure(t *testing.T) {
	f, err := openFolder(t.TempDir(), "posix")
	if err != nil {
		t.Fatal(err)
	}
	l := &logHandle{st: f, o: Options{PublishTimeout: 300 * time.Millisecond}}
	_, err = l.awaitPublished(context.Background(), &flakyReader{fails: -1}, 5)
	if err == nil || !strings.Contains(err.Error(), "its checkpoint could not be read: read tcp 127.0.0.1:9000: connection reset by peer") {
		t.Fatalf("error %v, want it to name the failed read", err)
	}
}
