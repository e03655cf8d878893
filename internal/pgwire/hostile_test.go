package pgwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests talk to fake backends over net.Pipe: they are hostile or
// broken servers, which no real PostgreSQL is (the real server's side is
// e2e TestPgwire*).

type backend struct {
	c net.Conn
	r *bufio.Reader
}

// startup reads the client's startup message.
func (b *backend) startup() map[string]string {
	var n [4]byte
	io.ReadFull(b.r, n[:])
	body := make([]byte, binary.BigEndian.Uint32(n[:])-4)
	io.ReadFull(b.r, body)
	kv := strings.Split(string(body[4:]), "\x00")
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// read reads one typed message from the client.
func (b *backend) read() (byte, []byte) {
	var h [5]byte
	if _, err := io.ReadFull(b.r, h[:]); err != nil {
		return 0, nil
	}
	body := make([]byte, binary.BigEndian.Uint32(h[1:])-4)
	io.ReadFull(b.r, body)
	return h[0], body
}

func (b *backend) send(t byte, body ...[]byte) {
	var all []byte
	for _, p := range body {
		all = append(all, p...)
	}
	msg := append([]byte{t}, binary.BigEndian.AppendUint32(nil, uint32(len(all)+4))...)
	b.c.Write(append(msg, all...))
}

func i32(v int) []byte     { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func i16(v int) []byte     { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func cstr(s string) []byte { return append([]byte(s), 0) }

var authOK = i32(0)

func ready(b *backend) { b.send('Z', []byte("I")) }

// fake connects a client with cfg to a backend running script; it returns
// the client's connection and error.
func fake(t *testing.T, cfg *Config, script func(b *backend)) (*Conn, error) {
	t.Helper()
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close()
		script(&backend{c: server, r: bufio.NewReader(server)})
	}()
	c, err := connectOn(context.Background(), client, cfg)
	if err != nil {
		client.Close()
	}
	t.Cleanup(func() {
		client.Close()
		<-done
	})
	return c, err
}

func plainCfg() *Config {
	return &Config{Network: "tcp", Addr: "db:5432", Host: "db", User: "u", Password: "hunter2", Database: "d", SSLMode: "disable"}
}

// TestHostileAuth: a server that skips or fakes authentication, or asks for
// what would expose the password, is refused.
func TestHostileAuth(t *testing.T) {
	for _, c := range []struct {
		name, want string
		cfg        func(*Config)
		script     func(b *backend)
	}{
		{"cleartext over plain TCP", "cleartext over an unencrypted connection", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(3))
			b.read()
		}},
		{"AuthenticationOk skipping SCRAM's proof", "accepted before proving", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(10), cstr("SCRAM-SHA-256"), cstr(""))
			b.read()
			b.send('R', authOK)
		}},
		{"SCRAM with a wrong server signature", "signature is wrong", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(10), cstr("SCRAM-SHA-256"), cstr(""))
			_, first := b.read()
			nonce := string(first[strings.Index(string(first), "r=")+2:])
			b.send('R', i32(11), []byte("r="+nonce+"srv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
			b.read()
			b.send('R', i32(12), []byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
			b.send('R', authOK)
		}},
		{"SASL without SCRAM-SHA-256", "SCRAM-SHA-256", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(10), cstr("SCRAM-SHA-256-PLUS"), cstr(""))
		}},
		{"GSSAPI", "authentication method 7", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(7))
		}},
		{"md5 without a salt", "md5 salt", nil, func(b *backend) {
			b.startup()
			b.send('R', i32(5), []byte{1, 2})
		}},
		{"TLS refused under require", "does not offer TLS", func(c *Config) { c.SSLMode = "require" }, func(b *backend) {
			io.ReadFull(b.r, make([]byte, 8))
			b.c.Write([]byte("N"))
		}},
		{"TLS request answered with junk", "answered the TLS request", func(c *Config) { c.SSLMode = "prefer" }, func(b *backend) {
			io.ReadFull(b.r, make([]byte, 8))
			b.c.Write([]byte("E"))
		}},
		{"client_encoding not UTF8", "client_encoding", nil, func(b *backend) {
			b.startup()
			b.send('R', authOK)
			b.send('S', cstr("client_encoding"), cstr("SQL_ASCII"))
			ready(b)
		}},
		{"ReadyForQuery with a bad status", "ReadyForQuery", nil, func(b *backend) {
			b.startup()
			b.send('R', authOK)
			b.send('Z', []byte("X"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := plainCfg()
			if c.cfg != nil {
				c.cfg(cfg)
			}
			_, err := fake(t, cfg, c.script)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("the error holds the password: %v", err)
			}
		})
	}
}

// TestHostileLengths: lengths the server announces are checked before
// anything is allocated for them.
func TestHostileLengths(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
	}{
		{"2 GiB message", append([]byte{'R'}, i32(0x7fffffff)...)},
		{"negative length", append([]byte{'R'}, i32(-5)...)},
		{"length under 4", append([]byte{'R'}, i32(3)...)},
		{"60 MiB announced, 10 bytes sent", append(append([]byte{'R'}, i32(60<<20)...), make([]byte, 10)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := fake(t, plainCfg(), func(b *backend) {
				b.startup()
				b.c.Write(c.raw)
			})
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("accepted")
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
				t.Fatalf("allocated %d bytes for it", grew)
			}
		})
	}
}

// TestHostileResults: a result that does not add up is a protocol error
// that breaks the connection; an error's text is cleaned.
func TestHostileResults(t *testing.T) {
	rowDesc := append(append(i16(1), cstr("doc")...), append(append(i32(0), i16(0)...), append(append(i32(17), i16(-1)...), append(i32(-1), i16(0)...)...)...)...)
	for _, c := range []struct {
		name, want string
		answer     func(b *backend)
	}{
		{"value longer than its row", "too short", func(b *backend) {
			b.send('T', rowDesc)
			b.send('D', i16(1), i32(1000), []byte("\\x00"))
		}},
		{"more columns than described", "2 columns", func(b *backend) {
			b.send('T', rowDesc)
			b.send('D', i16(2), i32(-1), i32(-1))
		}},
		{"row before description", "before its description", func(b *backend) {
			b.send('D', i16(1), i32(-1))
		}},
		{"bytea not hex", "not hex", func(b *backend) {
			b.send('T', rowDesc)
			b.send('D', i16(1), i32(4), []byte("\\xZZ"))
		}},
		{"column count beyond the message", "row description", func(b *backend) {
			b.send('T', i16(3000))
		}},
		{"unknown message", "unexpected message", func(b *backend) {
			b.send('!', nil)
		}},
		{"error text with escapes", "PostgreSQL ERROR: evil\ufffd[2Jtext (SQLSTATE 42P01)", func(b *backend) {
			b.send('E', []byte("SERROR\x00VERROR\x00C42P01\x00Mevil\x1b[2Jtext\x00\x00"))
			ready(b)
		}},
		{"unterminated error", "too short", func(b *backend) {
			b.send('E', []byte("SERROR\x00Mno end"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := fake(t, plainCfg(), func(b *backend) {
				b.startup()
				b.send('R', authOK)
				ready(b)
				b.read() // Parse ... Sync arrive in one write
				c.answer(b)
				b.read()
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.Query(context.Background(), "SELECT doc FROM t WHERE k = $1", "k")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			var pe *Error
			if !errors.As(err, &pe) && !conn.broken {
				t.Fatal("a protocol error left the connection in use")
			}
		})
	}
}

// TestSilentServer: a server that stops answering is bounded by the
// caller's context, and the connection is not reused.
func TestSilentServer(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	conn, err := fake(t, plainCfg(), func(b *backend) {
		b.startup()
		b.send('R', authOK)
		ready(b)
		b.read()
		<-stop
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = conn.Query(ctx, "SELECT 1")
	if !errors.Is(err, context.DeadlineExceeded) || !conn.broken {
		t.Fatalf("error %v, broken %v", err, conn.broken)
	}
}
