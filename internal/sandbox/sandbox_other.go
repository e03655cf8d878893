//go:build !linux

package sandbox

import "runtime"

// Prepare refuses everywhere but Linux: a server with a sandbox policy does not
// start (the error matches ErrUnsupported).
func Prepare(cfg Config, argv, env []string) (*Launch, error) {
	if err := refuseLauncher(argv); err != nil {
		return nil, err
	}
	return nil, ErrUnsupported
}

// Helper handles nothing outside Linux.
func Helper(args []string) (handled bool, code int) { return false, 0 }

// Status reports that no sandbox is available.
func Status() Report {
	return Report{OS: runtime.GOOS, Arch: runtime.GOARCH, Backend: "none",
		Reasons: []string{ErrUnsupported.Error()}}
}
