package attest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/digitorus/timestamp"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcpsum/mcpsum/internal/attest"
)

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func decodeB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// flipEveryByte flips one bit of every step-th byte of bundleJSON in turn
// and calls verify. Each change must be rejected with a *VerificationError
// unless it left what is signed and verified identical. The bytes that may
// change without effect are unauthenticated labels: the public-key hint, a
// log entry's kindVersion (the log-signed canonicalized body is
// authoritative), the signer name in a checkpoint's note signature line (the
// signature is checked with the log key from the trusted root), the bundle
// version (v0.3 -> v0.2 is a valid bundle of the same content), the unused low
// bits of a base64 quantum, the ASN.1 wrapper of an RFC 3161 response; and an
// RFC 3161 timestamp may break as long as the result then no longer counts it
// (Rekor's integrated time suffices).
func flipEveryByte(t *testing.T, bundleJSON []byte, step int, verify func([]byte) (*attest.Result, error)) {
	t.Helper()
	var orig protobundle.Bundle
	if err := protojson.Unmarshal(bundleJSON, &orig); err != nil {
		t.Fatal(err)
	}
	rejected, benign := 0, 0
	for i := 0; i < len(bundleJSON); i += step {
		bad := flip(bundleJSON, i)
		res, err := verify(bad)
		if err == nil {
			same, tsChanged := sameSignedContent(&orig, bad)
			if !same || (tsChanged && countSource(res, "tsa") > 0) {
				t.Fatalf("bundle with byte %d flipped verified: ...%s...", i, bad[max(0, i-20):min(len(bad), i+20)])
			}
			benign++
			continue
		}
		var ve *attest.VerificationError
		if !errors.As(err, &ve) {
			t.Fatalf("byte %d flipped: want *VerificationError, got %T: %v", i, err, err)
		}
		rejected++
	}
	t.Logf("%d single-byte changes rejected, %d left the verified content unchanged", rejected, benign)
}

func countSource(r *attest.Result, source string) int {
	n := 0
	for _, ts := range r.Timestamps {
		if ts.Source == source {
			n++
		}
	}
	return n
}

var noteSignerNamesRE = regexp.MustCompile(`(?m)^\x{2014} \S+ `)

var noteSignatureRE = regexp.MustCompile(`(?m)^\x{2014} (\S+)$`)

// canonicalNoteSignatures re-encodes each signature line of a checkpoint
// note: base64's last character before padding has unused low bits, so two
// spellings decode to the same signature bytes (flipping such a bit is not a
// change of what was signed).
func canonicalNoteSignatures(note string) string {
	return noteSignatureRE.ReplaceAllStringFunc(note, func(line string) string {
		sig, err := base64.StdEncoding.DecodeString(noteSignatureRE.FindStringSubmatch(line)[1])
		if err != nil {
			return line
		}
		return "\u2014 " + base64.StdEncoding.EncodeToString(sig)
	})
}

func sameSignedContent(orig *protobundle.Bundle, changed []byte) (same, timestampsChanged bool) {
	var b protobundle.Bundle
	if protojson.Unmarshal(changed, &b) != nil {
		return false, false
	}
	a := proto.Clone(orig).(*protobundle.Bundle)
	timestampsChanged = !sameTimestamps(a.GetVerificationMaterial().GetTimestampVerificationData().GetRfc3161Timestamps(),
		b.GetVerificationMaterial().GetTimestampVerificationData().GetRfc3161Timestamps())
	a.MediaType, b.MediaType = "", ""
	for _, bb := range []*protobundle.Bundle{a, &b} {
		bb.GetVerificationMaterial().TimestampVerificationData = nil
		if pk := bb.GetVerificationMaterial().GetPublicKey(); pk != nil {
			pk.Hint = ""
		}
		for _, e := range bb.GetVerificationMaterial().GetTlogEntries() {
			e.KindVersion = nil
			if cp := e.GetInclusionProof().GetCheckpoint(); cp != nil {
				cp.Envelope = canonicalNoteSignatures(noteSignerNamesRE.ReplaceAllString(cp.Envelope, "\u2014 "))
			}
		}
	}
	return proto.Equal(a, &b), timestampsChanged
}

// sameTimestamps compares what RFC 3161 responses assert (the ASN.1 wrapper
// around the signed TSTInfo is parsed leniently by upstream code).
func sameTimestamps(a, b []*protocommon.RFC3161SignedTimestamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, errX := timestamp.ParseResponse(a[i].GetSignedTimestamp())
		y, errY := timestamp.ParseResponse(b[i].GetSignedTimestamp())
		if errX != nil || errY != nil || !x.Time.Equal(y.Time) || x.HashAlgorithm != y.HashAlgorithm ||
			!bytes.Equal(x.HashedMessage, y.HashedMessage) || x.SerialNumber.Cmp(y.SerialNumber) != 0 {
			return false
		}
	}
	return true
}

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }
