package pgwire

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"
)

// TestChannelBinding: over TLS the client binds SCRAM to the server's
// certificate when the server offers SCRAM-SHA-256-PLUS, and says "y"
// (binding supported, not offered) when it does not, so a server whose
// offer was stripped on the way refuses. A fake backend over TLS on a
// pipe records what the client sent (e2e TestPgwire signs in to the real
// server this way).
func TestChannelBinding(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "db"}, DNSNames: []string{"db"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der) // ECDSA with SHA-256: the binding hashes with SHA-256
	for _, c := range []struct {
		mechs      []string
		mech, want string
	}{
		{[]string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}, "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,"},
		{[]string{"SCRAM-SHA-256"}, "SCRAM-SHA-256", "y,,"},
	} {
		var gotMech, gotFirst, gotFinal string
		cfg := plainCfg()
		cfg.SSLMode = "require"
		fake(t, cfg, func(b *backend) {
			io.ReadFull(b.r, make([]byte, 8))
			b.c.Write([]byte("S"))
			tc := tls.Server(b.c, &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
			if tc.Handshake() != nil {
				return
			}
			b.c, b.r = tc, bufio.NewReader(tc)
			b.startup()
			var list []byte
			for _, m := range c.mechs {
				list = append(list, cstr(m)...)
			}
			b.send('R', i32(10), list, cstr(""))
			_, body := b.read()
			mech, rest, _ := strings.Cut(string(body), "\x00")
			gotMech, gotFirst = mech, rest[4:]
			nonce := gotFirst[strings.Index(gotFirst, "r=")+2:]
			b.send('R', i32(11), []byte("r="+nonce+"srv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
			_, body = b.read()
			gotFinal = string(body)
		})
		if gotMech != c.mech || !strings.HasPrefix(gotFirst, c.want) {
			t.Fatalf("offered %v: the client chose %q with %q", c.mechs, gotMech, gotFirst)
		}
		want := base64.StdEncoding.EncodeToString([]byte(c.want))
		if c.mech == "SCRAM-SHA-256-PLUS" {
			want = base64.StdEncoding.EncodeToString(append([]byte(c.want), sum[:]...))
		}
		if !strings.HasPrefix(gotFinal, "c="+want+",") {
			t.Fatalf("offered %v: client-final %q, want c=%s", c.mechs, gotFinal, want)
		}
	}
}
