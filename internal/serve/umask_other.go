//go:build !unix

package serve

func umask(m int) int { return 0 }
