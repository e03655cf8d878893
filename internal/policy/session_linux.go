package policy

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpsum/mcpsum/internal/process"
)

// bootID reads the kernel's boot id once. The memo is plain data (a
// sync.OnceValues would be an initialiser run before every command's main).
func bootID() (string, error) {
	boot.once.Do(func() {
		b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
		boot.id, boot.err = strings.TrimSpace(string(b)), err
	})
	return boot.id, boot.err
}

var boot struct {
	once sync.Once
	id   string
	err  error
}

// ProcessClient describes the running process pid.
func ProcessClient(pid int) (Client, error) {
	boot, err := bootID()
	if err != nil {
		return Client{}, fmt.Errorf("read the boot id: %w", err)
	}
	start, err := startTime(pid)
	if err != nil {
		return Client{}, err
	}
	c := Client{PID: pid, Start: start, Boot: boot}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		c.Command = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		if len(c.Command) > maxCommand {
			c.Command = c.Command[:maxCommand]
		}
	}
	return c, nil
}

func startTime(pid int) (uint64, error) {
	st, err := process.ReadStat(strconv.Itoa(pid))
	if err != nil {
		return 0, fmt.Errorf("read process %d: %w", pid, err)
	}
	t, err := st.Uint(22) // starttime
	if err != nil {
		return 0, fmt.Errorf("read process %d: %w", pid, err)
	}
	return t, nil
}

// Alive reports whether c is still running: same boot, and the pid is held
// by a process that started at the same time.
func (c Client) Alive() bool {
	if c.PID <= 0 {
		return false
	}
	boot, err := bootID()
	if err != nil || boot != c.Boot {
		return false
	}
	t, err := startTime(c.PID)
	return err == nil && t == c.Start
}
