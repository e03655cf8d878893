package sumlog

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/transparency-dev/tessera"
	tsaws "github.com/transparency-dev/tessera/storage/aws"
)

// bucket is Tessera's AWS storage: checkpoint, tiles and lookups as
// objects of an S3-compatible bucket (served by the bucket or a CDN in
// front of it), and a MySQL-compatible database that coordinates writers.
type bucket struct {
	s      Storage
	dsn    string
	sdk    aws.Config
	s3opts func(*s3.Options)
	client *s3.Client
	db     *sql.DB
}

func openS3(ctx context.Context, s Storage, o Options) (store, error) {
	dsn, err := s.dsn(o)
	if err != nil {
		return nil, err
	}
	var lo []func(*config.LoadOptions) error
	if s.Region != "" {
		lo = append(lo, config.WithRegion(s.Region))
	} else if s.Endpoint != "" {
		lo = append(lo, config.WithRegion("us-east-1")) // an S3-compatible server ignores it, the SDK needs one
	}
	sdk, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, fmt.Errorf("storage %s: AWS configuration: %v", s, err)
	}
	s3opts := func(*s3.Options) {}
	if s.Endpoint != "" {
		ep := s.Endpoint
		s3opts = func(so *s3.Options) {
			so.BaseEndpoint = aws.String(ep)
			so.UsePathStyle = true // S3-compatible servers name buckets in the path
		}
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, fmt.Errorf("storage %s: database DSN: %v", s, redactDSN(err, dsn))
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage %s: database: %v", s, redactDSN(err, dsn))
	}
	return &bucket{s: s, dsn: dsn, sdk: sdk, s3opts: s3opts, client: s3.NewFromConfig(sdk, s3opts), db: db}, nil
}

// redactDSN keeps the DSN (it holds a password) out of an error.
func redactDSN(err error, dsn string) error {
	msg := err.Error()
	if dsn != "" && bytes.Contains([]byte(msg), []byte(dsn)) {
		msg = string(bytes.ReplaceAll([]byte(msg), []byte(dsn), []byte("[DSN]")))
	}
	return errors.New(msg)
}

func (b *bucket) key(p string) string {
	if b.s.Prefix == "" {
		return p
	}
	return path.Join(b.s.Prefix, p)
}

func (b *bucket) read(ctx context.Context, p string) ([]byte, error) {
	if !fs.ValidPath(p) {
		return nil, fmt.Errorf("storage path %q", p)
	}
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.s.Bucket), Key: aws.String(b.key(p))})
	if err != nil {
		var ae smithy.APIError
		if errors.As(err, &ae) && (ae.ErrorCode() == "NoSuchKey" || ae.ErrorCode() == "NotFound") {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("storage %s: read %s: %v", b.s, p, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, maxObject+1))
	if err != nil {
		return nil, fmt.Errorf("storage %s: read %s: %v", b.s, p, err)
	}
	if len(data) > maxObject {
		return nil, fmt.Errorf("storage %s: %s is over %d bytes", b.s, p, maxObject)
	}
	return data, nil
}

func (b *bucket) write(ctx context.Context, p string, data []byte) error {
	if !fs.ValidPath(p) {
		return fmt.Errorf("storage path %q", p)
	}
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(b.s.Bucket), Key: aws.String(b.key(p)), Body: bytes.NewReader(data),
		ContentType: aws.String("text/plain; charset=utf-8"),
	})
	if err != nil {
		return fmt.Errorf("storage %s: write %s: %v", b.s, p, err)
	}
	return nil
}

// flush: a completed PutObject is durable.
func (b *bucket) flush(context.Context) error { return nil }

func (b *bucket) driver(ctx context.Context) (tessera.Driver, error) {
	sdk := b.sdk
	return tsaws.New(ctx, tsaws.Config{SDKConfig: &sdk, S3Options: b.s3opts, Bucket: b.s.Bucket, BucketPrefix: b.s.Prefix, DSN: b.dsn})
}

// lock takes a named lock in the database (GET_LOCK), so adds from
// several machines to one log are serialised like adds on one machine.
func (b *bucket) lock(ctx context.Context) (func(), error) {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("storage %s: database: %v", b.s, redactDSN(err, b.dsn))
	}
	name := "mcpsum-log " + b.s.Bucket + "/" + b.s.Prefix
	if len(name) > 64 { // MySQL's limit on lock names
		name = name[:64]
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 60)", name).Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("storage %s: lock: %v", b.s, redactDSN(err, b.dsn))
	}
	if got.Int64 != 1 {
		conn.Close()
		return nil, fmt.Errorf("storage %s: another mcpsum-log holds the log's lock (waited 60s)", b.s)
	}
	return func() {
		conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", name)
		conn.Close()
	}, nil
}

func (b *bucket) close() error               { return b.db.Close() }
func (b *bucket) minInterval() time.Duration { return time.Second } // the AWS driver allows no less
func (b *bucket) String() string             { return b.s.String() }
