package pgwire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Conn is one connection. It is not safe for concurrent use: a Pool hands
// each goroutine its own.
type Conn struct {
	nc     net.Conn // raw, or TLS over it
	raw    net.Conn // the socket
	rd     *reader
	w      writer
	status byte // the transaction status of the last ReadyForQuery: I, T or E
	broken bool // an I/O, protocol or cancel error: the connection must go
	tls    bool
	verify bool // TLS with the server's certificate verified (verify-ca, verify-full)

	stmts       map[string]string // the named statements: SQL and parameter types → name
	nstmt       int               // names given so far
	using       string            // the statement key of the request in flight
	pending     string            // the key being parsed under pendingName, until ParseComplete
	pendingName string
}

// TxStatus is the transaction status the server last reported: 'I' idle,
// 'T' in a transaction, 'E' in a failed transaction.
func (c *Conn) TxStatus() byte { return c.status }

// TLS reports whether the connection is encrypted.
func (c *Conn) TLS() bool { return c.tls }

// Close ends the connection (politely when it is still in sync).
func (c *Conn) Close() error {
	if !c.broken {
		c.nc.SetWriteDeadline(time.Now().Add(time.Second))
		c.nc.Write([]byte{'X', 0, 0, 0, 4})
	}
	c.broken = true
	return c.nc.Close()
}

// Connect opens a connection as cfg says and authenticates.
func Connect(ctx context.Context, cfg *Config) (*Conn, error) {
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, cfg.Network, cfg.Addr)
	if err != nil {
		return nil, err
	}
	return connectOn(ctx, nc, cfg)
}

// connectOn starts the protocol on nc (the tests' fake servers hand it one
// end of a pipe).
func connectOn(ctx context.Context, nc net.Conn, cfg *Config) (*Conn, error) {
	c := &Conn{nc: nc, raw: nc}
	err := c.guard(ctx, func() error {
		if err := c.startTLS(cfg); err != nil {
			return err
		}
		c.rd = newReader(c.nc)
		return c.startup(cfg)
	})
	if err != nil {
		c.broken = true
		c.nc.Close()
		return nil, err
	}
	return c, nil
}

// guard runs fn under ctx: the context's deadline is the connection's, and
// its cancellation breaks the connection (the server may be mid-answer, so
// the connection cannot be reused).
func (c *Conn) guard(ctx context.Context, fn func() error) error {
	if c.broken {
		return errors.New("the connection is broken")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Deadlines go on the socket (TLS's are its socket's): c.nc changes
	// from the socket to TLS inside fn while the AfterFunc may run.
	d, _ := ctx.Deadline()
	c.raw.SetDeadline(d)
	stop := context.AfterFunc(ctx, func() { c.raw.SetDeadline(time.Unix(1, 0)) })
	err := fn()
	if !stop() {
		c.broken = true
		c.raw.Close()
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
	}
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) || pe.Severity == "FATAL" || pe.Severity == "PANIC" {
			c.broken = true
			c.nc.Close()
		}
		cerr := ctx.Err()
		var ne net.Error
		if cerr == nil && errors.As(err, &ne) && ne.Timeout() && !d.IsZero() && !time.Now().Before(d) {
			cerr = context.DeadlineExceeded // the socket saw the deadline before the context's timer
		}
		if cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%v)", cerr, err)
		}
	}
	return err
}

// startTLS asks for TLS as cfg.SSLMode says. A Unix socket is never
// encrypted (libpq does the same): the kernel carries it.
func (c *Conn) startTLS(cfg *Config) error {
	if cfg.SSLMode == "disable" || cfg.Network == "unix" {
		return nil
	}
	// SSLRequest: length 8, code 80877103.
	if _, err := c.nc.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}); err != nil {
		return err
	}
	// Exactly one byte, unbuffered: bytes the server (or a man in the
	// middle) sends before the handshake must not be read as if encrypted
	// (CVE-2021-23222).
	var b [1]byte
	if _, err := c.nc.Read(b[:]); err != nil {
		return err
	}
	switch b[0] {
	case 'N':
		if cfg.SSLMode != "prefer" {
			return fmt.Errorf("the server does not offer TLS, and sslmode is %s", cfg.SSLMode)
		}
		return nil
	case 'S':
	default:
		return protoErr("the server answered the TLS request with %q", b[0])
	}
	tc, err := tlsConfig(cfg)
	if err != nil {
		return err
	}
	t := tls.Client(c.nc, tc)
	if err := t.Handshake(); err != nil {
		return fmt.Errorf("TLS with the server: %w", err)
	}
	c.nc, c.tls = t, true
	c.verify = !tc.InsecureSkipVerify || tc.VerifyConnection != nil
	return nil
}

// tlsConfig is sslmode's TLS: prefer and require encrypt without verifying
// (require with sslrootcert verifies as verify-ca does, as libpq does);
// verify-ca checks the chain against sslrootcert; verify-full also the host
// name.
func tlsConfig(cfg *Config) (*tls.Config, error) {
	mode := cfg.SSLMode
	if mode == "require" && cfg.SSLRootCert != "" {
		mode = "verify-ca"
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.Host}
	if mode == "prefer" || mode == "require" {
		tc.InsecureSkipVerify = true
		return tc, nil
	}
	roots, err := rootCAs(cfg.SSLRootCert)
	if err != nil {
		return nil, err
	}
	tc.RootCAs = roots
	if mode == "verify-ca" {
		tc.InsecureSkipVerify = true // the chain is checked below, the name is not
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return tc, nil
}

// rootCAs reads sslrootcert: a PEM file, "system" for the system's roots,
// or (empty) ~/.postgresql/root.crt as libpq does.
func rootCAs(file string) (*x509.CertPool, error) {
	if file == "system" {
		return x509.SystemCertPool()
	}
	if file == "" {
		home, _ := os.UserHomeDir()
		file = filepath.Join(home, ".postgresql", "root.crt")
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("sslrootcert: %w (name the CA's PEM file with sslrootcert=, or sslrootcert=system)", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("sslrootcert %s holds no PEM certificate", file)
	}
	return pool, nil
}

// startup sends the startup message, authenticates and waits for the
// server to be ready.
func (c *Conn) startup(cfg *Config) error {
	c.w.b = c.w.b[:0]
	at := c.w.begin(0)
	c.w.int32(196608) // protocol 3.0
	for _, kv := range [][2]string{{"user", cfg.User}, {"database", cfg.Database}, {"client_encoding", "UTF8"}, {"application_name", cfg.AppName}} {
		if kv[1] != "" {
			c.w.str(kv[0])
			c.w.str(kv[1])
		}
	}
	c.w.b = append(c.w.b, 0)
	c.w.end(at)
	if err := c.flush(); err != nil {
		return err
	}
	if err := c.authenticate(cfg); err != nil {
		return err
	}
	for {
		t, body, err := c.rd.next()
		if err != nil {
			return err
		}
		switch t {
		case 'K', 'N': // BackendKeyData (cancel is by closing), NoticeResponse
		case 'S':
			if err := c.parameter(body); err != nil {
				return err
			}
		case 'E':
			f, err := parseFields(body)
			if err != nil {
				return err
			}
			return pgError(f)
		case 'Z':
			return c.ready(body)
		default:
			return protoErr("unexpected message %q while starting", t)
		}
	}
}

// parameter checks a ParameterStatus: text must travel as UTF-8.
func (c *Conn) parameter(body []byte) error {
	cur := &cursor{b: body}
	name, value := cur.cstring("name"), cur.cstring("value")
	if cur.err != nil {
		return cur.err
	}
	if name == "client_encoding" && !strings.EqualFold(value, "UTF8") {
		return fmt.Errorf("the server's client_encoding is %q, not UTF8", clean(value))
	}
	return nil
}

func (c *Conn) ready(body []byte) error {
	if len(body) != 1 || (body[0] != 'I' && body[0] != 'T' && body[0] != 'E') {
		return protoErr("ReadyForQuery with status %q", body)
	}
	c.status = body[0]
	return nil
}

// authenticate answers the server's authentication requests until it
// accepts (AuthenticationOk) or refuses.
func (c *Conn) authenticate(cfg *Config) error {
	var sc *scram
	for {
		t, body, err := c.rd.next()
		if err != nil {
			return err
		}
		if t == 'E' {
			f, err := parseFields(body)
			if err != nil {
				return err
			}
			return pgError(f)
		}
		if t != 'R' {
			return protoErr("unexpected message %q while authenticating", t)
		}
		cur := &cursor{b: body}
		code := cur.int32("authentication code")
		if cur.err != nil {
			return cur.err
		}
		switch code {
		case 0: // AuthenticationOk
			if sc != nil {
				return errors.New("SCRAM: the server accepted before proving it knows the password (not the server you meant?)")
			}
			return nil
		case 3: // cleartext password
			// Only to a server proven to be the one meant: over TLS that
			// was not verified, whoever answered could be asking.
			switch {
			case cfg.Network == "unix" || c.verify:
			case c.tls:
				return errors.New("the server asks for the password in cleartext over TLS whose certificate was not verified (sslmode=" + cfg.SSLMode + "); refused (use sslmode=verify-full with sslrootcert, or a Unix socket)")
			default:
				return errors.New("the server asks for the password in cleartext over an unencrypted connection; refused (use sslmode=verify-full with sslrootcert, or a Unix socket)")
			}
			if err := c.password(cfg, cfg.Password); err != nil {
				return err
			}
		case 5: // md5
			salt := cur.bytes(4, "md5 salt")
			if cur.err != nil {
				return cur.err
			}
			if err := c.password(cfg, md5Password(cfg.User, cfg.Password, salt)); err != nil {
				return err
			}
		case 10: // SASL: a list of mechanisms
			var mechs []string
			for m := cur.cstring("mechanism"); m != "" && cur.err == nil; m = cur.cstring("mechanism") {
				mechs = append(mechs, m)
			}
			if cur.err != nil {
				return cur.err
			}
			if cfg.Password == "" {
				return errors.New("the server asks for a password and the URL gives none")
			}
			if sc, err = newScram(cfg.Password); err != nil {
				return err
			}
			// Over TLS, bind the exchange to the server's certificate when
			// the server offers it: a man in the middle holding another
			// certificate cannot relay it. "y" tells a server that would
			// have offered it that the offer was removed on the way.
			mech := "SCRAM-SHA-256"
			if c.tls {
				sc.gs2 = "y,,"
				if slices.Contains(mechs, "SCRAM-SHA-256-PLUS") {
					certs := c.nc.(*tls.Conn).ConnectionState().PeerCertificates
					if len(certs) == 0 {
						return errors.New("SCRAM channel binding: the server sent no certificate")
					}
					if sc.cbind, err = endPoint(certs[0]); err != nil {
						return err
					}
					mech, sc.gs2 = "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,"
				}
			}
			if !slices.Contains(mechs, mech) {
				return fmt.Errorf("the server offers SASL mechanisms %q; this client speaks SCRAM-SHA-256", clean(strings.Join(mechs, " ")))
			}
			c.w.b = c.w.b[:0]
			at := c.w.begin('p')
			c.w.str(mech)
			first := sc.first()
			c.w.int32(int32(len(first)))
			c.w.b = append(c.w.b, first...)
			c.w.end(at)
			if err := c.flush(); err != nil {
				return err
			}
		case 11: // SASLContinue
			if sc == nil || sc.saltedPass != nil {
				return protoErr("unexpected SASL continuation")
			}
			final, err := sc.final(string(cur.b))
			if err != nil {
				return err
			}
			c.w.b = c.w.b[:0]
			at := c.w.begin('p')
			c.w.b = append(c.w.b, final...)
			c.w.end(at)
			if err := c.flush(); err != nil {
				return err
			}
		case 12: // SASLFinal
			if sc == nil {
				return protoErr("unexpected SASL final message")
			}
			if err := sc.verify(string(cur.b)); err != nil {
				return err
			}
			sc = nil
		default:
			return fmt.Errorf("the server asks for authentication method %d; this client speaks trust, SCRAM-SHA-256, md5 and (over TLS or a Unix socket) password", code)
		}
	}
}

// password sends a PasswordMessage.
func (c *Conn) password(cfg *Config, pw string) error {
	if cfg.Password == "" {
		return errors.New("the server asks for a password and the URL gives none")
	}
	c.w.b = c.w.b[:0]
	at := c.w.begin('p')
	c.w.str(pw)
	c.w.end(at)
	return c.flush()
}

func (c *Conn) flush() error {
	_, err := c.nc.Write(c.w.b)
	return err
}
