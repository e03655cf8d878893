package policy

import (
	"slices"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// Editing JSON objects member by member, with exact keys (never through
// encoding/json's case-insensitive struct decoding). Reading is
// jsonscan.Fields: the exact-key rule shared with verify and the proxy.

// maxCarried bounds a server's inputResponses carried through an approval.
const maxCarried = 64 << 10

// restoreParams is the approved retry's params as the server must see them:
// the proxy's answer removed from inputResponses (with the server's own
// answers of an earlier round put back), and requestState the server's own
// or none.
func restoreParams(params, responses []byte, carry Carry) ([]byte, error) {
	merged := []byte("{}")
	var err error
	if carry.Responses != nil {
		if merged, _, err = withoutMember(carry.Responses, ApproveKey); err != nil {
			return nil, err
		}
	}
	if responses != nil {
		_, err = jsonscan.Members(responses, jsonscan.SkipWS(responses, 0), func(k string, _, vs, ve int) error {
			if k == ApproveKey {
				return nil
			}
			var e error
			merged, e = setMember(merged, k, responses[vs:ve])
			return e
		})
		if err != nil {
			return nil, err
		}
	}
	out := params
	if string(merged) == "{}" {
		out, err = deleteMember(out, "inputResponses")
	} else {
		out, err = setMember(out, "inputResponses", merged)
	}
	if err != nil {
		return nil, err
	}
	if carry.State != nil {
		return setMember(out, "requestState", mustJSON(*carry.State))
	}
	return deleteMember(out, "requestState")
}

// withoutMember returns obj without key, and how many members are left.
func withoutMember(obj []byte, key string) ([]byte, int, error) {
	return jsonscan.Without(obj, jsonscan.SkipWS(obj, 0), func(k string) bool { return k == key })
}

func deleteMember(obj []byte, key string) ([]byte, error) {
	out, _, err := withoutMember(obj, key)
	return out, err
}

// setMember replaces key's value in obj, or appends the member.
func setMember(obj []byte, key string, val []byte) ([]byte, error) {
	rest, n, err := withoutMember(obj, key)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(rest[:len(rest)-1])
	if n > 0 {
		out = append(out, ',')
	}
	out = append(out, mustJSON(key)...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}'), nil
}
