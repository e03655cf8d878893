package attesttest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/digitorus/timestamp"
	"github.com/go-openapi/runtime"
	"github.com/go-openapi/strfmt"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1" // the entry kind sigstore-go uploads
	rekorutil "github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// serveFulcio implements POST /api/v2/signingCert for a public key, trusting
// the bearer token's claims without checking its signature (but refusing an
// expired token, as Fulcio does).
func (s *Sigstore) serveFulcio(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
		httpError(w, http.StatusNotFound, "virtual fulcio: no route %s %s", r.Method, r.URL.Path)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(tok, ".")
	if !ok || len(parts) != 3 {
		httpError(w, http.StatusUnauthorized, "virtual fulcio: no bearer JWT")
		return
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss, Sub, Email string
		Exp             int64
	}
	if err != nil || json.Unmarshal(raw, &claims) != nil || claims.Iss == "" {
		httpError(w, http.StatusUnauthorized, "virtual fulcio: unreadable token claims")
		return
	}
	if claims.Exp != 0 && time.Unix(claims.Exp, 0).Before(time.Now()) {
		httpError(w, http.StatusUnauthorized, "virtual fulcio: the identity token has expired")
		return
	}
	subject := claims.Sub
	if claims.Email != "" {
		subject = claims.Email
	}
	var req struct {
		PublicKeyRequest struct {
			PublicKey struct {
				Algorithm, Content string
			}
			ProofOfPossession string
		}
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "virtual fulcio: %v", err)
		return
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
	if err != nil {
		httpError(w, http.StatusBadRequest, "virtual fulcio: public key: %v", err)
		return
	}
	// Proof of possession: the key signed the token's subject.
	pop, err := base64.StdEncoding.DecodeString(req.PublicKeyRequest.ProofOfPossession)
	ek, isEC := pub.(*ecdsa.PublicKey)
	digest := sha256.Sum256([]byte(subject))
	if err != nil || !isEC || !ecdsa.VerifyASN1(ek, digest[:], pop) {
		httpError(w, http.StatusBadRequest, "virtual fulcio: proof of possession does not verify")
		return
	}
	leaf, err := s.leafCert(pub, subject, claims.Iss)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "virtual fulcio: %v", err)
		return
	}
	var resp struct {
		SignedCertificateEmbeddedSct struct {
			Chain struct {
				Certificates []string `json:"certificates"`
			} `json:"chain"`
		} `json:"signedCertificateEmbeddedSct"`
	}
	resp.SignedCertificateEmbeddedSct.Chain.Certificates = []string{pemCert(leaf), pemCert(s.fulcioCert), pemCert(s.rootCert)}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp) // 200, as Fulcio's v2 API answers
}

// serveTSA implements an RFC 3161 timestamp authority.
func (s *Sigstore) serveTSA(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || r.Method != http.MethodPost {
		httpError(w, http.StatusBadRequest, "virtual tsa: POST a timestamp query")
		return
	}
	req, err := timestamp.ParseRequest(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, "virtual tsa: %v", err)
		return
	}
	ts := timestamp.Timestamp{HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage,
		Time: time.Now(), Nonce: req.Nonce, Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2},
		ExtraExtensions: req.Extensions}
	resp, err := ts.CreateResponseWithOpts(s.tsaCert, s.tsaKey, crypto.SHA256)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "virtual tsa: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	_, _ = w.Write(resp)
}

// serveRekor implements POST /api/v1/log/entries for hashedrekord entries.
// Each entry is the only leaf of its own tree (size 1), which is a valid
// inclusion proof; the SET and the checkpoint are signed with the log key.
func (s *Sigstore) serveRekor(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		httpError(w, http.StatusNotFound, "virtual rekor: no route %s %s", r.Method, r.URL.Path)
		return
	}
	ctx := r.Context()
	pe, err := models.UnmarshalProposedEntry(io.LimitReader(r.Body, 1<<20), runtime.JSONConsumer())
	if err != nil {
		httpError(w, http.StatusBadRequest, "virtual rekor: %v", err)
		return
	}
	entry, err := types.CreateVersionedEntry(pe)
	if err != nil {
		httpError(w, http.StatusBadRequest, "virtual rekor: %v", err)
		return
	}
	body, err := types.CanonicalizeEntry(ctx, entry)
	if err != nil {
		httpError(w, http.StatusBadRequest, "virtual rekor: %v", err)
		return
	}
	anon, uuid, err := s.logEntry(ctx, body)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "virtual rekor: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]models.LogEntryAnon{uuid: anon})
}

func (s *Sigstore) logEntry(ctx context.Context, body []byte) (models.LogEntryAnon, string, error) {
	s.mu.Lock()
	index := s.logIndex
	s.logIndex++
	s.mu.Unlock()
	now := time.Now().Unix()
	b64 := base64.StdEncoding.EncodeToString(body)
	leaf := sha256.Sum256(append([]byte{0}, body...)) // RFC 6962 leaf hash
	signer, err := signature.LoadECDSASignerVerifier(s.rekorKey, crypto.SHA256)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	payload, err := json.Marshal(tlog.RekorPayload{Body: b64, IntegratedTime: now, LogIndex: index, LogID: s.rekorLogID})
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	canon, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	set, err := signer.SignMessage(strings.NewReader(string(canon)))
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	checkpoint, err := rekorutil.CreateAndSignCheckpoint(ctx, "rekor.localhost", 1, 1, leaf[:], signer)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	root, zero, one, cp := hex.EncodeToString(leaf[:]), int64(0), int64(1), string(checkpoint)
	return models.LogEntryAnon{
		Body: b64, IntegratedTime: &now, LogID: &s.rekorLogID, LogIndex: &index,
		Verification: &models.LogEntryAnonVerification{
			InclusionProof: &models.InclusionProof{Checkpoint: &cp, Hashes: []string{},
				LogIndex: &zero, RootHash: &root, TreeSize: &one},
			SignedEntryTimestamp: strfmt.Base64(set),
		},
	}, root, nil
}
