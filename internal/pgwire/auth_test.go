package pgwire

import (
	"strings"
	"testing"
)

// TestScramRFC7677 runs the exchange of RFC 7677 section 3 (the client's
// nonce and user name fixed to the RFC's).
func TestScramRFC7677(t *testing.T) {
	s := &scram{password: saslprep("pencil"), clientNonce: "rOprNGfwEbeRWgbNEkqO"}
	s.clientFirst = "n=user,r=" + s.clientNonce
	final, err := s.final("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
	if err != nil {
		t.Fatal(err)
	}
	if want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="; final != want {
		t.Fatalf("client-final\n got %s\nwant %s", final, want)
	}
	if err := s.verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="); err != nil {
		t.Fatal(err)
	}
	if err := s.verify("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="); err == nil {
		t.Fatal("a wrong server signature verified")
	}
	if err := s.verify("e=invalid-proof"); err == nil || !strings.Contains(err.Error(), "invalid-proof") {
		t.Fatalf("server error: %v", err)
	}
}

func TestScramRefusesHostileServerFirst(t *testing.T) {
	for _, sf := range []string{
		"r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",   // nonce not ours
		"r=CLIENT,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",        // nonce not extended
		"r=CLIENTx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1073741824", // a billion iterations
		"r=CLIENTx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",          // none
		"r=CLIENTx,s=!!!,i=4096",                            // salt not base64
		"r=CLIENTx,i=4096",                                  // no salt
		"s=W22ZaJ0SNY7soEsUEjb6gQ==,r=CLIENTx,i=4096",       // out of order
	} {
		s := &scram{password: "pw", clientNonce: "CLIENT", clientFirst: "n=,r=CLIENT"}
		if _, err := s.final(sf); err == nil {
			t.Errorf("server-first %q accepted", sf)
		}
	}
	s := &scram{password: "pw", clientNonce: "CLIENT"}
	if err := s.verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="); err == nil {
		t.Error("a server-final before server-first verified")
	}
}

// TestSaslprep checks libpq's pg_saslprep rules: what normalises is
// normalised, anything prohibited falls back to the raw password.
func TestSaslprep(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pencil", "pencil"},
		{"a\x07b", "a\x07b"},             // ASCII passes unchanged, controls too (libpq)
		{"I\u00adX", "IX"},               // soft hyphen maps to nothing
		{"user\u00a0name", "user name"},  // non-ASCII space becomes a space
		{"\u00aa", "a"},                  // NFKC
		{"\u2168", "IX"},                 // NFKC
		{"\ufb01x", "fix"},               // NFKC of the ligature
		{"é\u0007", "é\u0007"},           // prohibited (a control): raw
		{"é\ue000", "é\ue000"},           // private use: raw
		{"\u0627\u0031", "\u0627\u0031"}, // RandALCat not at both ends: raw
		{"\u0627\u0031\u0628", "\u0627\u0031\u0628"},
		{"\u0627a\u0628", "\u0627a\u0628"}, // RandALCat and LCat mixed: raw
		{"\xff\xfe", "\xff\xfe"},           // not UTF-8: raw
		{"\u00ad", "\u00ad"},               // maps to nothing at all: raw
	} {
		if got := saslprep(c.in); got != c.want {
			t.Errorf("saslprep(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
