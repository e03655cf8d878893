package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Who may call. serve listens on loopback or a Unix socket unless it has
// TLS; every request carries the bearer token; its Host must be a name
// this server answers to and its Origin, when a browser sent one, such a
// name too (DNS rebinding: a page of another site that got its name
// pointed at 127.0.0.1 still sends its own Host and Origin).

// Access says which names a request may carry in Host and Origin.
type Access struct {
	// Socket: serve listens on a Unix socket, which no browser reaches:
	// any Host (clients send what they like) and no Origin.
	Socket bool
	// Hosts are the names besides the loopback ones (localhost,
	// 127.0.0.0/8, ::1): a TLS certificate's names.
	Hosts []string
}

// minToken bounds a token's length: shorter ones are guessable.
const minToken = 16

// LoadToken reads the bearer token in path (trailing white space
// dropped), or, when the file does not exist, makes a random one there
// (mode 0600) and says it did. A file others may read is refused: the
// token is a credential.
func LoadToken(path string) (token string, created bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", false, err
		}
		token = base64.RawURLEncoding.EncodeToString(b)
		if err := statefile.CreateExclusive(path, []byte(token+"\n"), 0o600); err != nil {
			return "", false, fmt.Errorf("token file %s: %w", path, err)
		}
		return token, true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("token file %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		kind := "a directory"
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			kind = "a symbolic link"
		case !st.IsDir():
			kind = "a special file (" + st.Mode().String() + ")"
		}
		return "", false, fmt.Errorf("token file %s is %s, not a regular file: give --token-file the file itself (serve makes one, mode 0600, where none exists)", path, kind)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("token file %s must be a regular file only its owner can read (mode 0600; it is %v): run 'chmod 600 %s'", path, st.Mode(), termtext.ShellArg(path))
	}
	b, err := safeio.ReadOwn(path, "token file", 4<<10)
	if err != nil {
		return "", false, fmt.Errorf("token file: %w", err)
	}
	token = strings.TrimRight(string(b), " \t\r\n")
	if len(token) < minToken || strings.ContainsAny(token, " \t\r\n") {
		return "", false, fmt.Errorf("token file %s must hold one token of at least %d characters without spaces; remove it and serve makes a new one", path, minToken)
	}
	return token, false, nil
}

// CheckAllowHost checks an --allow-host value: a name or address as a
// request's Host carries it, without its port. A URL, a port or a space
// could never match a Host (a name may hold "_": Docker Compose service
// names do), so every request through that name would be
// refused (403) with nothing said at the start.
func CheckAllowHost(h string) error {
	if net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")) != nil {
		return nil
	}
	ok := h != "" && len(h) <= 253 && h[0] != '.' && h[0] != '-'
	for _, c := range h {
		ok = ok && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_')
	}
	if !ok {
		return &UsageError{fmt.Sprintf("--allow-host %s: give the host name alone, as clients send it in Host (mcp.example.com): no scheme, port or path", termtext.Quoted(h, 100))}
	}
	return nil
}

// admit checks Host, Origin and the token; a refused request is answered
// (403, 401) and logged, never with the token it carried.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) bool {
	if !s.cfg.Access.Socket {
		if !s.knownHost(r.Host) {
			s.logf("403 for %s %s from %s: Host %s is not a name this server answers to", r.Method, termtext.Quoted(r.URL.Path, 100), r.RemoteAddr, termtext.Quoted(r.Host, 100))
			http.Error(w, "Forbidden: invalid Host header", http.StatusForbidden)
			return false
		}
	}
	if o := r.Header.Get("Origin"); o != "" && !s.knownOrigin(o) {
		s.logf("403 for %s %s from %s: Origin %s is not a name this server answers to", r.Method, termtext.Quoted(r.URL.Path, 100), r.RemoteAddr, termtext.Quoted(o, 100))
		http.Error(w, "Forbidden: invalid Origin header", http.StatusForbidden)
		return false
	}
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "bearer ")
	}
	why := ""
	switch {
	case auth == "":
		why = "no Authorization header"
	case !ok:
		why = "an Authorization header that is not a bearer token"
	case subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) != 1:
		why = "a wrong bearer token"
	}
	if why != "" {
		s.logf("401 for %s %s from %s: %s", r.Method, termtext.Quoted(r.URL.Path, 100), r.RemoteAddr, why)
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpsum serve"`)
		http.Error(w, "Unauthorized: present the token of mcpsum serve's --token-file as 'Authorization: Bearer TOKEN'", http.StatusUnauthorized)
		return false
	}
	return true
}

// knownHost reports whether a Host header names this server.
func (s *Server) knownHost(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if h == "" {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, n := range s.cfg.Access.Hosts {
		if strings.EqualFold(n, h) {
			return true
		}
	}
	return false
}

// knownOrigin reports whether an Origin header is a page of this server's
// own names (a browser-based client on this machine, such as the
// Inspector's UI, sends its own http://localhost:PORT).
func (s *Server) knownOrigin(o string) bool {
	if s.cfg.Access.Socket {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return s.knownHost(u.Host)
}
