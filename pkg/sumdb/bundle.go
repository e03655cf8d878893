package sumdb

import "fmt"

// SplitBundle splits a C2SP tlog-tiles entry bundle into its entries (each
// a big-endian uint16 length and the bytes); it must hold exactly want.
func SplitBundle(bundle []byte, want int) ([][]byte, error) {
	out := make([][]byte, 0, want)
	for len(bundle) > 0 {
		if len(bundle) < 2 {
			return nil, fmt.Errorf("entry bundle: a truncated length after %d entries", len(out))
		}
		n := int(bundle[0])<<8 | int(bundle[1])
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
