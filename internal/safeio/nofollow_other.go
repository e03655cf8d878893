//go:build !unix

package safeio

// oNoFollow: no O_NOFOLLOW here; ReadOwn follows a link on this platform.
const oNoFollow = 0
