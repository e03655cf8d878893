package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Record is what the last sync that changed anything installed, kept
// beside the lock (ORG.sync.json) for `fleet status`: the serial and
// signer, where it came from, when, and the log checkpoint its surfaces
// were checked against. It is local state mcpsum writes; the release
// statement and its bundle stay the organisation's signed word. Highest is
// the highest serial of the org lock Name this machine ever installed: a
// rollback floor that holds when the statement is removed (a reset after
// a broken one), so only removing the record too lowers it.
type Record struct {
	Name     string      `json:"name"`
	Serial   int64       `json:"serial"`
	Highest  int64       `json:"highestSerial"`
	Signer   string      `json:"signer"`
	Lockfile string      `json:"lockfile"`
	Expires  time.Time   `json:"expires"`
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
	err = dec.Decode(&r)
	if err == nil && (CheckName(r.Name) != nil || r.Serial < 1 || r.Highest < r.Serial || !validDigest(r.Lockfile)) {
		err = errors.New("not a record mcpsum fleet sync wrote")
	}
	if err != nil {
		// It holds the rollback floor: sync does not guess it.
		return nil, hint.Errorf("remove it and run mcpsum fleet sync again (the installed release statement is then the only rollback floor)",
			"sync record %s: %v", quote(p), err)
	}
	return &r, nil
}
