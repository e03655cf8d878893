package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Where serve listens: loopback or a Unix socket, with a token; any other
// address only with TLS (a certificate and its key) and a token.

// ListenOptions say where to listen.
type ListenOptions struct {
	Addr     string // HOST:PORT (empty with Socket)
	Socket   string // a Unix socket's path
	CertFile string // TLS certificate (PEM), required for a non-loopback Addr
	KeyFile  string
}

// UsageError is a bad combination of listen options.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Listener is where serve listens: its listener, who may call, and the
// base URL clients use ("" for a Unix socket).
type Listener struct {
	net.Listener
	Access Access
	URL    string
	TLS    *tls.Config
}

// Listen opens the listener o names.
func Listen(o ListenOptions) (*Listener, error) {
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, &UsageError{"--tls-cert and --tls-key go together"}
	}
	if o.Socket != "" {
		if o.Addr != "" {
			return nil, &UsageError{"--addr and --socket exclude each other"}
		}
		if o.CertFile != "" {
			return nil, &UsageError{"--tls-cert is for --addr: a Unix socket needs no TLS"}
		}
		return listenSocket(o.Socket)
	}
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, &UsageError{fmt.Sprintf("--addr %s must be HOST:PORT (127.0.0.1:8808)", termtext.Quoted(o.Addr, 100))}
	}
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 0 || n > 65535) {
		return nil, &UsageError{fmt.Sprintf("--addr %s: port %s is not a port number (1 to 65535; 0 picks a free one)", termtext.Quoted(o.Addr, 100), termtext.Quoted(port, 20))}
	}
	loop := strings.EqualFold(host, "localhost")
	if ip := net.ParseIP(host); ip != nil {
		loop = ip.IsLoopback()
	}
	if !loop && o.CertFile == "" {
		return nil, &UsageError{fmt.Sprintf("--addr %s is not a loopback address: serving beyond this machine needs TLS (--tls-cert and --tls-key) as well as the token", termtext.Quoted(o.Addr, 100))}
	}
	ln, err := net.Listen("tcp", o.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, hint.Wrap(fmt.Errorf("--addr %s: %w", termtext.Quoted(o.Addr, 100), err),
			"another program listens there (another mcpsum serve?): stop it, or give --addr a free port")
	}
	if err != nil {
		return nil, fmt.Errorf("--addr %s: %w", termtext.Quoted(o.Addr, 100), err)
	}
	l := &Listener{Listener: ln}
	scheme := "http"
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("TLS certificate %s and key %s: %w", o.CertFile, o.KeyFile, err)
		}
		l.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		l.Listener = tls.NewListener(ln, l.TLS)
		scheme = "https"
		if leaf := cert.Leaf; leaf != nil {
			l.Access.Hosts = append(l.Access.Hosts, leaf.DNSNames...)
			for _, ip := range leaf.IPAddresses {
				l.Access.Hosts = append(l.Access.Hosts, ip.String())
			}
		}
	}
	hostport := ln.Addr().String()
	if !loop {
		_, port, _ := net.SplitHostPort(hostport)
		hostport = net.JoinHostPort(host, port)
	}
	l.URL = scheme + "://" + hostport
	return l, nil
}

// listenSocket listens on a Unix socket only its owner may connect to; a
// socket file left by a serve that is gone is replaced, a live one is not.
func listenSocket(path string) (*Listener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("--socket %s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("--socket %s: another server listens there", path)
		}
		os.Remove(path)
	}
	old := umask(0o077)
	ln, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, err
	}
	return &Listener{Listener: ln, Access: Access{Socket: true}}, nil
}

// Run serves s on l until ctx ends; then it ends every session (their
// servers stop) and closes the listener.
func Run(ctx context.Context, s *Server, l *Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second, TLSConfig: l.TLS}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	select {
	case err := <-done:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
