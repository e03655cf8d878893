package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// lookupNetIP resolves names for the egress proxy. Tests replace it.
var lookupNetIP lookupFunc = func(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

const (
	maxHeader      = 16 << 10
	headerTimeout  = 15 * time.Second
	resolveTimeout = 10 * time.Second
	dialTimeout    = 10 * time.Second
	maxTunnels     = 256
)

// egressProxy is the audited CONNECT proxy on a unix socket, in the host
// network namespace. It is the sandbox's only way out.
type egressProxy struct {
	ln     net.Listener
	rules  *allowList
	audit  *auditLog
	server string
	lookup lookupFunc

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	done  bool
}

func startEgress(sock string, rules *allowList, audit *auditLog, server string) (*egressProxy, error) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("sandbox egress proxy: %w", err)
	}
	p := &egressProxy{ln: ln, rules: rules, audit: audit, server: server, lookup: lookupNetIP, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *egressProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c, true) {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.track(c, false)
			p.handle(c)
		}()
	}
}

func (p *egressProxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !add {
		delete(p.conns, c)
		return true
	}
	if p.done || len(p.conns) >= maxTunnels {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// Close stops accepting, cuts every tunnel and waits for the handlers.
func (p *egressProxy) Close() error {
	p.mu.Lock()
	p.done = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *egressProxy) handle(c net.Conn) {
	defer c.Close()
	start := time.Now()
	rec := auditRecord{Server: p.server, Decision: "deny"}
	finish := func() {
		rec.DurationMS = time.Since(start).Milliseconds()
		p.audit.write(rec)
	}
	refuse := func(status int, reason string) {
		rec.Reason = reason
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nmcpsum sandbox egress: %s\n",
			status, http.StatusText(status), reason)
		finish()
	}
	_ = c.SetDeadline(time.Now().Add(headerTimeout))
	lr := &io.LimitedReader{R: c, N: maxHeader}
	br := bufio.NewReader(lr)
	req, err := http.ReadRequest(br)
	if err != nil {
		refuse(http.StatusBadRequest, "malformed or oversized request")
		return
	}
	if req.Method != http.MethodConnect {
		rec.Host = req.Host
		if h, pt, err := splitHostPort(req.Host); err == nil {
			if n, err := parsePort(pt); err == nil {
				rec.Host, rec.Port = h, n
			}
		}
		refuse(http.StatusMethodNotAllowed, "only CONNECT (HTTPS) is proxied")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	d := p.rules.decide(ctx, req.RequestURI, p.lookup)
	cancel()
	rec.Host, rec.Port = d.Host, d.Port
	if !d.Allow {
		refuse(http.StatusForbidden, d.Reason)
		return
	}
	var remote net.Conn
	var dialErr error
	for _, ip := range d.IPs {
		remote, dialErr = net.DialTimeout("tcp", netip.AddrPortFrom(ip, d.Port).String(), dialTimeout)
		if dialErr == nil {
			rec.IP = ip.String()
			break
		}
	}
	if remote == nil {
		rec.Decision = "fail"
		refuse(http.StatusBadGateway, "allowed, but no address answered: "+errString(dialErr))
		return
	}
	defer remote.Close()
	rec.Decision = "allow"
	if !p.track(remote, true) {
		rec.Decision, rec.Reason = "fail", "proxy closing"
		finish()
		return
	}
	defer p.track(remote, false)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		rec.Reason = "client went away"
		finish()
		return
	}
	_ = c.SetDeadline(time.Time{})
	lr.N = 1 << 62 // the header limit is over; br keeps bytes already sent
	rec.BytesUp, rec.BytesDown = splice(c, br, remote)
	finish()
}

// splice copies both ways until both directions end, passing half-closes on;
// an error in either direction closes both connections. It returns the bytes
// copied from a to b and from b to a.
func splice(a net.Conn, aReader io.Reader, b net.Conn) (ab, ba int64) {
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst net.Conn, r io.Reader, n *int64) {
		defer wg.Done()
		var err error
		*n, err = io.Copy(dst, r)
		if err != nil {
			a.Close()
			b.Close()
			return
		}
		closeWrite(dst)
	}
	go pipe(b, aReader, &ab)
	go pipe(a, b, &ba)
	wg.Wait()
	return ab, ba
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

func errString(err error) string {
	if err == nil {
		return "no address"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}
