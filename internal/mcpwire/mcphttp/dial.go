package mcphttp

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// NewHTTPClient returns the HTTP client of a remote server locked at u. It
// connects only to u's origin:
//
//   - no proxy from the environment (HTTPS_PROXY would be another place the
//     traffic goes);
//   - a redirect is followed only to the same origin and only when it keeps
//     the method and body (307, 308); anything else is refused and told to
//     note;
//   - https with the system's roots (Go reads SSL_CERT_FILE and
//     SSL_CERT_DIR), TLS 1.2 or later;
//   - a host name is resolved by mcpsum and only vetted addresses are dialled:
//     "localhost" is loopback without DNS; any other name must resolve to
//     public addresses (netrule.NonPublic, the sandbox egress proxy's rule),
//     so a public name cannot be turned against this machine or its network
//     by DNS (rebinding). An address in the URL itself is dialled as is.
func NewHTTPClient(u *url.URL, note func(string)) *http.Client {
	origin := netrule.Origin(u)
	d := &dialer{host: strings.ToLower(u.Hostname()), port: originPort(u), net: &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			why := ""
			switch {
			case netrule.Origin(req.URL) != origin:
				why = "it leads to another origin (" + termtext.TruncateQuote(netrule.Origin(req.URL), 200) + "); mcpsum connects only to the locked origin " + origin
			case status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect:
				why = fmt.Sprintf("HTTP %d would turn the POST into a GET", status)
			case len(via) >= 3:
				why = "more than 3 redirects"
			}
			if why == "" {
				return nil
			}
			msg := fmt.Sprintf("refused a redirect from %s to %s: %s", termtext.TruncateQuote(via[0].URL.String(), 200), termtext.TruncateQuote(req.URL.String(), 200), why)
			if note != nil {
				note(msg)
			}
			return &RedirectError{Msg: msg}
		},
	}
}

// NewSignInClient is the HTTP client of an OAuth sign-in for the server at
// serverURL: the origins it asks (the authorization server, its endpoints)
// come from metadata, so no single origin is pinned, but every host is
// vetted: a name must resolve to public addresses, an address in a URL
// must be public, and this machine (loopback) is reachable only when the
// MCP server itself is there. No proxy from the environment, no redirects.
func NewSignInClient(serverURL *url.URL) *http.Client {
	d := &dialer{anyHost: true, loopback: netrule.LoopbackHost(serverURL.Hostname()), net: &net.Dialer{Timeout: 30 * time.Second}}
	return &http.Client{
		Timeout: time.Minute,
		Transport: &http.Transport{Proxy: nil, DialContext: d.dial, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 15 * time.Second,
			TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			return &RedirectError{Msg: "refused a redirect from " + termtext.TruncateQuote(via[0].URL.String(), 200) + " during sign-in"}
		},
	}
}

// RedirectError is a redirect mcpsum refused (see NewHTTPClient).
type RedirectError struct{ Msg string }

func (e *RedirectError) Error() string {
	return e.Msg + "; if the server moved, lock it again with its new URL"
}

func originPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

type dialer struct {
	host, port string
	anyHost    bool // NewSignInClient: any vetted host
	loopback   bool // with anyHost: this machine may be reached
	net        *net.Dialer
	// lookup resolves a name (nil: the system resolver); tests replace it.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// dial connects to the locked host only, to vetted addresses.
func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if d.anyHost {
		if err := d.signInHost(host); err != nil {
			return nil, err
		}
	} else if !strings.EqualFold(host, d.host) || port != d.port {
		return nil, fmt.Errorf("refused a connection to %s: mcpsum connects only to the locked %s", termtext.TruncateQuote(addr, 200), net.JoinHostPort(d.host, d.port))
	}
	ips, err := d.vetted(ctx, host)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ip := range ips {
		c, err := d.net.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// signInHost applies NewSignInClient's rule to an address or name in a URL.
func (d *dialer) signInHost(host string) error {
	if netrule.LoopbackHost(host) {
		if d.loopback {
			return nil
		}
		return fmt.Errorf("refused to connect to %s during sign-in: this machine is reachable only when the MCP server itself runs here", termtext.TruncateQuote(host, 100))
	}
	if ip, err := netip.ParseAddr(host); err == nil && netrule.NonPublic(ip) {
		return fmt.Errorf("refused to connect to %s during sign-in: a non-public address named by metadata", ip)
	}
	return nil
}

// vetted returns the addresses host may be dialled at (see NewHTTPClient).
func (d *dialer) vetted(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	if netrule.LoopbackHost(host) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
	}
	lookup := d.lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	var refused []string
	var out []netip.Addr
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		if netrule.NonPublic(a) {
			refused = append(refused, a.String())
			continue
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		if len(refused) == 0 {
			return nil, fmt.Errorf("%s has no addresses", host)
		}
		return nil, &PrivateAddressError{Host: host, Addrs: refused}
	}
	return out, nil
}

// PrivateAddressError is a locked host name that resolved only to loopback,
// private or link-local addresses.
type PrivateAddressError struct {
	Host  string
	Addrs []string
}

func (e *PrivateAddressError) Error() string {
	return fmt.Sprintf("refused to connect: %s resolves only to non-public addresses [%s]; mcpsum does not let a host name reach this machine or a private network (DNS rebinding), the rule of the sandbox's egress proxy. Lock the server by its address (https://ADDRESS/...) if it really lives there", e.Host, strings.Join(e.Addrs, " "))
}
