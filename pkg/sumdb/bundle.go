package sumdb

import (
	"encoding/binary"
	"fmt"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// ParseRecord checks that rec is a well-formed mcp-surface v1 record and
// returns its key and surface digest.
func ParseRecord(rec []byte) (key, surface string, err error) { return parseRecord(rec) }

// SplitBundle splits a C2SP tlog-tiles entry bundle into its entries (each
// a big-endian uint16 length and the bytes); it must hold exactly want.
func SplitBundle(bundle []byte, want int) ([][]byte, error) {
	out := make([][]byte, 0, want)
	for len(bundle) > 0 {
		if len(bundle) < 2 {
			return nil, fmt.Errorf("entry bundle: a truncated length after %d entries", len(out))
		}
		n := int(binary.BigEndian.Uint16(bundle))
		if len(bundle) < 2+n {
			return nil, fmt.Errorf("entry bundle: entry %d is truncated", len(out))
		}
		out = append(out, bundle[2:2+n])
		bundle = bundle[2+n:]
	}
	if len(out) != want {
		return nil, fmt.Errorf("entry bundle holds %d entries, want %d", len(out), want)
	}
	return out, nil
}

// parseSigned opens a checkpoint checking only the log's signature and
// origin (one accepted before, under the witness policy then in force).
func (cfg *Config) parseSigned(raw []byte) (*log.Checkpoint, []byte, *note.Note, error) {
	return log.ParseCheckpoint(raw, cfg.origin, cfg.verifier)
}
