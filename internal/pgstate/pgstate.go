package pgstate

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/url"
	"time"

	"github.com/mcpsum/mcpsum/internal/pgwire"
)

// DB is the state the replicas of `mcpsum serve` share in one PostgreSQL
// database: the taint state documents (policy.Docs), the approval key
// (policy.KeyDocs), and which replica is reached where.
type DB struct {
	pool *pgwire.Pool
	name string // the database, for messages (no credentials)
}

// timeout bounds each statement: a database that does not answer fails the
// call that needed it (fail closed), not the whole server.
const timeout = 10 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS mcpsum_taint (
	session text PRIMARY KEY,
	doc bytea NOT NULL,
	updated timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS mcpsum_keys (
	name text PRIMARY KEY,
	key bytea NOT NULL);
CREATE TABLE IF NOT EXISTS mcpsum_replicas (
	id text PRIMARY KEY,
	url text NOT NULL,
	seen timestamptz NOT NULL DEFAULT now());`

// Open connects to the database at dsn (postgres://...) and makes its
// tables when they are missing.
func Open(ctx context.Context, dsn string) (*DB, error) {
	name := nameOf(dsn)
	cfg, err := pgwire.ParseURL(dsn)
	if err != nil {
		return nil, fmt.Errorf("--state %s: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pool := pgwire.NewPool(cfg, 0)
	// One replica's CREATE at a time: they start together.
	tx, err := pool.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7355608)`)
		if err == nil {
			_, err = tx.Exec(ctx, schema)
		}
		if err == nil {
			err = tx.Commit(ctx)
		} else {
			tx.Rollback(ctx)
		}
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("state database %s: %w", name, err)
	}
	return &DB{pool: pool, name: name}, nil
}

// CheckURL says what keeps dsn from being used, before anything connects
// (nil when nothing does).
func CheckURL(dsn string) error {
	if _, err := pgwire.ParseURL(dsn); err != nil {
		return fmt.Errorf("--state %s: %w", nameOf(dsn), err)
	}
	return nil
}

// nameOf is the database URL without its credentials and parameters.
func nameOf(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://..."
	}
	u.User = nil
	u.RawQuery = ""
	return u.Redacted()
}

// Close closes the connections.
func (db *DB) Close() { db.pool.Close() }

// Where names session id's document in messages.
func (db *DB) Where(id string) string { return fmt.Sprintf("of session %s in %s", id, db.name) }

// Read returns session id's document (fs.ErrNotExist when it has none).
func (db *DB) Read(id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	row, err := db.pool.QueryRow(ctx, `SELECT doc FROM mcpsum_taint WHERE session = $1`, id)
	if errors.Is(err, pgwire.ErrNoRows) {
		return nil, fs.ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	return row[0], nil
}

// Change replaces session id's document in one transaction that holds an
// advisory lock on the session: every replica's Change of it waits for
// the one before (a row lock cannot cover a session that has no row yet).
func (db *DB) Change(id string, fn func(cur []byte, err error) ([]byte, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("taint state in %s: %w", db.name, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(id)); err != nil {
		return fmt.Errorf("taint state in %s: %w", db.name, err)
	}
	var cur []byte
	row, rerr := tx.QueryRow(ctx, `SELECT doc FROM mcpsum_taint WHERE session = $1`, id)
	if errors.Is(rerr, pgwire.ErrNoRows) {
		rerr = fs.ErrNotExist
	} else if rerr == nil {
		cur = row[0]
	}
	doc, err := fn(cur, rerr)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO mcpsum_taint (session, doc, updated) VALUES ($1, $2, now())
		ON CONFLICT (session) DO UPDATE SET doc = EXCLUDED.doc, updated = now()`, id, doc); err != nil {
		return fmt.Errorf("taint state in %s: %w", db.name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("taint state in %s: %w", db.name, err)
	}
	return nil
}

// lockKey is the advisory lock of a session (a collision only serialises
// two sessions' changes).
func lockKey(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte("mcpsum-taint:" + id))
	return int64(h.Sum64())
}

// ApprovalKey is the key every replica signs 2026-07-28 approvals with:
// made by the first replica that needs it, read by the others.
func (db *DB) ApprovalKey() ([]byte, error) { return db.key("approval") }

// key returns the shared key called name (32 random bytes, made once).
func (db *DB) key(name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO mcpsum_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, k); err != nil {
		return nil, fmt.Errorf("the %s key in %s: %w", name, db.name, err)
	}
	row, err := db.pool.QueryRow(ctx, `SELECT key FROM mcpsum_keys WHERE name = $1`, name)
	if err != nil {
		return nil, fmt.Errorf("the %s key in %s: %w", name, db.name, err)
	}
	k = row[0]
	if len(k) != 32 {
		return nil, fmt.Errorf("the %s key in %s has %d bytes, want 32", name, db.name, len(k))
	}
	return k, nil
}

// Register records that replica id is reached at url (again: a heartbeat),
// and forgets replicas not seen for a day.
func (db *DB) Register(id, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := db.pool.Exec(ctx, `INSERT INTO mcpsum_replicas (id, url, seen) VALUES ($1, $2, now())
		ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, seen = now()`, id, url); err != nil {
		return fmt.Errorf("replica registry in %s: %w", db.name, err)
	}
	db.pool.Exec(ctx, `DELETE FROM mcpsum_replicas WHERE seen < now() - interval '1 day'`)
	return nil
}

// ReplicaInUse returns the URL another live replica registered id with:
// one reached elsewhere than url that renewed its record (every 30 s)
// within the last 90 seconds; "" when none.
func (db *DB) ReplicaInUse(id, url string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	row, err := db.pool.QueryRow(ctx, `SELECT url FROM mcpsum_replicas WHERE id = $1 AND url <> $2 AND seen > now() - interval '90 seconds'`, id, url)
	if errors.Is(err, pgwire.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("replica registry in %s: %w", db.name, err)
	}
	return string(row[0]), nil
}

// Replica returns the URL replica id is reached at; "" when it is not
// known.
func (db *DB) Replica(id string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	row, err := db.pool.QueryRow(ctx, `SELECT url FROM mcpsum_replicas WHERE id = $1`, id)
	if errors.Is(err, pgwire.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(row[0]), nil
}

// Unregister forgets replica id (it stops).
func (db *DB) Unregister(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	db.pool.Exec(ctx, `DELETE FROM mcpsum_replicas WHERE id = $1`, id)
}
