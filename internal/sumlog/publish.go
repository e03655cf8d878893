package sumlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// logHandle is an open log: its folder, storage, keys and witness policy.
type logHandle struct {
	dir      string
	st       store
	signer   note.Signer
	verifier note.Verifier
	policy   []byte // the witness policy every checkpoint needs (nil: none)
	o        Options
	http     *http.Client // Tessera's, for the witnesses: idle connections closed at the end
}

// openLog opens the log in dir on the storage it records.
func openLog(ctx context.Context, dir string, o Options) (*logHandle, error) {
	s, err := signer(dir)
	if err != nil {
		return nil, err
	}
	vk, err := Verifier(dir)
	if err != nil {
		return nil, err
	}
	v, err := note.NewVerifier(vk)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, VerifierFile), err)
	}
	policy, err := witnessPolicy(dir, o.WitnessPolicy)
	if err != nil {
		return nil, err
	}
	sto, err := storageOf(dir, o)
	if err != nil {
		return nil, err
	}
	st, err := sto.open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	return &logHandle{dir: dir, st: st, signer: s, verifier: v, policy: policy, o: o, http: &http.Client{Timeout: time.Minute}}, nil
}

func (l *logHandle) close() error {
	l.http.CloseIdleConnections()
	return l.st.close()
}

// witnessPolicy is the witness policy of the log in dir: given (checked,
// and kept in the folder so every later checkpoint needs it too) or the
// one the folder keeps.
func witnessPolicy(dir string, given []byte) ([]byte, error) {
	path := filepath.Join(dir, PolicyFile)
	if len(given) == 0 {
		b, err := safeio.ReadOwn(path, "witness policy", 1<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return b, err
	}
	if _, err := tessera.NewWitnessGroupFromPolicy(given); err != nil {
		return nil, fmt.Errorf("witness policy: %v", err)
	}
	if old, err := safeio.ReadOwn(path, "witness policy", 1<<20); err == nil && bytes.Equal(old, given) {
		return given, nil
	}
	return given, statefile.WriteAtomic(path, given, statefile.WriteOptions{Perm: 0o644, Sync: true})
}

// appendOptions are Tessera's options for this log: its signer, its
// witnesses (when witnessed), batches of batch records and checkpoints at
// most every interval (the driver's least when 0).
func (l *logHandle) appendOptions(batch uint, interval time.Duration, witnessed bool) (*tessera.AppendOptions, error) {
	if interval == 0 {
		interval = l.st.minInterval()
	}
	opts := tessera.NewAppendOptions().WithCheckpointSigner(l.signer).
		WithBatching(max(batch, 1), 100*time.Millisecond).
		WithCheckpointInterval(interval).
		WithPushback(max(batch, tessera.DefaultPushbackMaxOutstanding))
	if witnessed && len(l.policy) > 0 {
		g, err := tessera.NewWitnessGroupFromPolicy(l.policy)
		if err != nil {
			return nil, fmt.Errorf("witness policy %s: %v", filepath.Join(l.dir, PolicyFile), err)
		}
		opts.WithWitnesses(g, &tessera.WitnessOptions{Timeout: 30 * time.Second})
	}
	return opts, nil
}

// appender is Tessera appending to the log. stop waits for what was added
// to be published (up to the publish timeout) and then cancels Tessera's
// context, so none of its goroutines outlives the caller.
type appender struct {
	app    *tessera.Appender
	reader tessera.LogReader
	stop   func()
}

func (l *logHandle) appender(ctx context.Context, opts *tessera.AppendOptions) (*appender, error) {
	drv, err := l.st.driver(ctx)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithCancel(ctx)
	app, shutdown, reader, err := tessera.NewAppender(tctx, drv, opts)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %v", l.st, err)
	}
	var once sync.Once
	return &appender{app: app, reader: reader, stop: func() {
		once.Do(func() {
			sctx, c := context.WithTimeout(ctx, 5*time.Second)
			shutdown(sctx)
			c()
			cancel()
			l.http.CloseIdleConnections()
		})
	}}, nil
}

// awaitPublished waits until the storage's checkpoint covers size records
// and returns it. A witness that does not cosign (or a storage that does
// not publish) ends the wait at the publish timeout with an error saying so.
func (l *logHandle) awaitPublished(ctx context.Context, r tessera.LogReader, size uint64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	tctx, cancel := context.WithTimeout(ctx, l.o.publishTimeout())
	defer cancel()
	// Tessera's awaiter ends every wait at the first failed read; a storage
	// read that fails once (an S3 request reset under load) is read again
	// at the next poll instead, and the last such failure names the cause
	// when the wait runs out.
	var mu sync.Mutex
	var readErr error
	read := func(ctx context.Context) ([]byte, error) {
		cp, err := r.ReadCheckpoint(ctx)
		if err != nil && !errors.Is(err, os.ErrNotExist) && ctx.Err() == nil {
			mu.Lock()
			readErr = err
			mu.Unlock()
			return nil, os.ErrNotExist
		}
		return cp, err
	}
	aw := tessera.NewPublicationAwaiter(tctx, read, 50*time.Millisecond)
	_, cp, err := aw.Await(tctx, func() (tessera.Index, error) { return tessera.Index{Index: size - 1}, nil })
	if err == nil {
		return cp, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	why := l.st.String() + " did not publish it"
	mu.Lock()
	if readErr != nil {
		why += fmt.Sprintf(" (its checkpoint could not be read: %v)", readErr)
	}
	mu.Unlock()
	if len(l.policy) > 0 {
		why = fmt.Sprintf("the witnesses of %s did not cosign it (a witness that is down, or one that holds a tree this one does not extend)", filepath.Join(l.dir, PolicyFile))
	}
	return nil, fmt.Errorf("no checkpoint of %d records was published within %v: %s; the records are appended, and the next add publishes them once a checkpoint can be", size, l.o.publishTimeout(), why)
}
