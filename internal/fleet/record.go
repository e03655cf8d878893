package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Record is what the last sync that changed anything installed, kept
// beside the lock (ORG.sync.json) for `fleet status`: the serial and
// signer, where it came from, when, and the log checkpoint its surfaces
// were checked against. It is local state mcpsum writes; the release
// statement and its bundle stay the organisation's signed word.
type Record struct {
	Serial   int64       `json:"serial"`
	Signer   string      `json:"signer"`
	Lockfile string      `json:"lockfile"`
	From     string      `json:"from"`
	Synced   time.Time   `json:"synced"`
	Log      *Checkpoint `json:"log"`
}

// readRecord reads the record beside the lock at lockPath; (nil, nil) when
// there is none.
func readRecord(lockPath string) (*Record, error) {
	p := lockPath + RecordSuffix
	if err := secureFile(p); err != nil {
		if missing(err) {
			return nil, nil
		}
		return nil, err
	}
	data, err := safeio.ReadOwn(p, "sync record", 1<<20)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("sync record %s: %v (it is written by mcpsum fleet sync; run the sync again to rewrite it)", quote(p), err)
	}
	return &r, nil
}
