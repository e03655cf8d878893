package attest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcpsum/mcpsum/pkg/attest"
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
// and calls verify. Each change must be rejected with a *VerificationError,
// unless it left what is signed identical: a flipped bit in the public-key
// hint (an unauthenticated lookup hint), in the bundle version (v0.3 -> v0.2
// is still a valid bundle of the same content) or in the unused low bits of a
// base64 quantum decodes to the same signed content.
func flipEveryByte(t *testing.T, bundleJSON []byte, step int, verify func([]byte) error) {
	t.Helper()
	var orig protobundle.Bundle
	if err := protojson.Unmarshal(bundleJSON, &orig); err != nil {
		t.Fatal(err)
	}
	rejected, benign := 0, 0
	for i := 0; i < len(bundleJSON); i += step {
		bad := flip(bundleJSON, i)
		err := verify(bad)
		if err == nil {
			if !sameSignedContent(&orig, bad) {
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
	t.Logf("%d single-byte changes rejected, %d left the signed content unchanged", rejected, benign)
}

func sameSignedContent(orig *protobundle.Bundle, changed []byte) bool {
	var b protobundle.Bundle
	if protojson.Unmarshal(changed, &b) != nil {
		return false
	}
	a := proto.Clone(orig).(*protobundle.Bundle)
	a.MediaType, b.MediaType = "", ""
	if pk := a.GetVerificationMaterial().GetPublicKey(); pk != nil {
		pk.Hint = ""
	}
	if pk := b.GetVerificationMaterial().GetPublicKey(); pk != nil {
		pk.Hint = ""
	}
	return proto.Equal(a, &b)
}
