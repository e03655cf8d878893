package process

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const (
	prSetDumpable       = 4
	prGetDumpable       = 3
	prSetChildSubreaper = 36
	prGetChildSubreaper = 37
)

// guard is the process-wide state Guard sets up: which protections are on,
// and the servers Start launched that are not reaped yet (any other child of
// a subreaper is an orphaned descendant of a server).
var guard struct {
	mu         sync.Mutex
	subreaper  bool
	undumpable bool
	live       map[int]bool
	kept       map[int]bool // children that are no servers (StartKept): never swept
}

// Guard readies the running program to start servers. On Linux it
//   - becomes a child subreaper (PR_SET_CHILD_SUBREAPER): a server's
//     descendants that daemonise (setsid and a double fork) are reparented to
//     this process instead of init, and Stop ends them once no server runs;
//   - makes itself non-dumpable (PR_SET_DUMPABLE 0): other processes of the
//     same user, servers included, can no longer read its memory or
//     /proc/PID/environ, where variables withheld from the server live;
//   - clears its original environment block (what /proc/PID/environ shows), so
//     even the moment it must be dumpable (starting a sandbox as a non-root
//     user, see Start) shows no variable.
//
// Call it once, from main, before starting any server (mcpsum's main runs it
// through Before, so that it overlaps reading the flags and the lock), and
// start every child process through Start afterwards: when no server runs, every other child is
// treated as a server's orphan and ended. It returns what could not be set up;
// the program may go on (Protections reports it).
func Guard() error {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	var errs []error
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		errs = append(errs, fmt.Errorf("become a child subreaper (daemonising servers could outlive mcpsum): %w", err))
	} else {
		guard.subreaper = true
	}
	// Before PR_SET_DUMPABLE: a non-dumpable non-root process cannot open its
	// own /proc/self/mem.
	if err := scrubEnviron(); err != nil {
		errs = append(errs, fmt.Errorf("clear /proc/self/environ: %w", err))
	}
	if err := prctl(prSetDumpable, 0); err != nil {
		errs = append(errs, fmt.Errorf("make mcpsum non-dumpable (same-user processes could read its environment): %w", err))
	} else {
		guard.undumpable = true
	}
	return errors.Join(errs...)
}

// Protections says, one line each, which of Guard's protections are in force
// in this process (for `mcpsum doctor`), and whether all are.
func Protections() ([]string, bool) {
	waitBefore() // a Guard under way (Before) is reported once done
	var out []string
	ok := true
	if v, err := prctlGet(prGetChildSubreaper); err == nil && v == 1 {
		out = append(out, "child subreaper: yes (servers' daemonised descendants are ended with them)")
	} else {
		ok = false
		out = append(out, fmt.Sprintf("child subreaper: NO (%v): a server that daemonises can outlive mcpsum", errOr(err, "not set")))
	}
	if v, err := prctlGet(prGetDumpable); err == nil && v == 0 {
		out = append(out, "non-dumpable: yes (same-user processes cannot read mcpsum's memory or environment)")
	} else {
		ok = false
		out = append(out, fmt.Sprintf("non-dumpable: NO (%v): an unsandboxed server can read mcpsum's environment", errOr(err, "dumpable")))
	}
	if os.Geteuid() == 0 {
		out = append(out, "running as root: an unsandboxed server running as root can read any process; only the sandbox confines it")
	}
	return out, ok
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func prctl(op, arg uintptr) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, op, arg, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

func prctlGet(op uintptr) (int, error) {
	switch op {
	case prGetDumpable:
		r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, op, 0, 0, 0, 0, 0)
		if e != 0 {
			return 0, e
		}
		return int(r), nil
	default:
		var v int32
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, op, uintptrOf(&v), 0, 0, 0, 0); e != 0 {
			return 0, e
		}
		return int(v), nil
	}
}

// scrubEnviron zeroes the process's original environment block (fields
// env_start and env_end of /proc/self/stat). Go copied it at start-up, so
// os.Getenv and os.Environ are unaffected.
func scrubEnviron() error {
	st, err := ReadStat("self")
	if err != nil {
		return err
	}
	// env_start and env_end are fields 50 and 51.
	start, err1 := st.Uint(50)
	end, err2 := st.Uint(51)
	if err1 != nil || err2 != nil || end <= start || end-start > 1<<24 {
		return errors.New("/proc/self/stat has no usable env_start/env_end")
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	_, err = mem.WriteAt(make([]byte, end-start), int64(start))
	return err
}

// startGuarded runs cmd.Start under the guard: the new child is registered
// as a live server (so a sweep never takes it for an orphan), and when the
// child gets user-namespace id maps from a non-root parent, the parent is
// dumpable for the duration of the start (the kernel lets a non-root parent
// write /proc/CHILD/uid_map only then; Guard cleared the environment block).
func startGuarded(start func() error, pid func() int, idMaps bool) error {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	toggle := idMaps && guard.undumpable && os.Geteuid() != 0
	if toggle {
		if err := prctl(prSetDumpable, 1); err != nil {
			return fmt.Errorf("allow the sandbox's id maps to be written: %w", err)
		}
	}
	err := start()
	if toggle {
		if e := prctl(prSetDumpable, 0); e != nil && err == nil {
			err = fmt.Errorf("make mcpsum non-dumpable again: %w", e)
		}
	}
	if err == nil {
		if guard.live == nil {
			guard.live = map[int]bool{}
		}
		guard.live[pid()] = true
	}
	return err
}

// startKept starts a child that is no server (StartKept): a sweep leaves
// it alone until keptDone.
func startKept(start func() error, pid func() int) error {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if err := start(); err != nil {
		return err
	}
	if guard.kept == nil {
		guard.kept = map[int]bool{}
	}
	guard.kept[pid()] = true
	return nil
}

// keptDone forgets a kept child once it is reaped.
func keptDone(pid int) {
	guard.mu.Lock()
	delete(guard.kept, pid)
	guard.mu.Unlock()
}

// reaped forgets a server once cmd.Wait has reaped it.
func reaped(pid int) {
	guard.mu.Lock()
	delete(guard.live, pid)
	guard.mu.Unlock()
}

// sweepOrphans ends the orphaned descendants of servers: children of this
// subreaper that Start did not launch. It only runs when no server is live
// (an orphan found then can only come from a stopped server); each round
// sends SIGTERM, waits up to grace for them to exit, then SIGKILLs the rest
// and reaps them, until none is left (their own children are reparented here
// in turn). It returns an error when some could not be ended.
func sweepOrphans(grace time.Duration) error {
	if !guard.subreaper {
		return nil
	}
	for round := 0; round < 20; round++ {
		guard.mu.Lock()
		if len(guard.live) > 0 {
			guard.mu.Unlock()
			return nil
		}
		skip := maps.Clone(guard.live)
		if skip == nil {
			skip = map[int]bool{}
		}
		maps.Copy(skip, guard.kept)
		orphans := childrenOf(os.Getpid(), skip)
		for _, pid := range orphans {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		guard.mu.Unlock()
		if len(orphans) == 0 {
			return nil
		}
		left := reapWithin(orphans, grace)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if left = reapWithin(left, 2*time.Second); len(left) > 0 {
			return fmt.Errorf("orphaned server processes %v did not end after SIGKILL", left)
		}
	}
	return errors.New("server processes kept forking while being ended")
}

// reapWithin waits up to d for the given children to exit, reaping them, and
// returns those still running.
func reapWithin(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, pid := range pids {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err == syscall.ECHILD {
				continue
			}
			left = append(left, pid)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		pids = left
		time.Sleep(10 * time.Millisecond)
	}
}

// childrenOf lists the children of ppid (zombies included) not in skip.
func childrenOf(ppid int, skip map[int]bool) []int {
	if ppid == os.Getpid() {
		if out, ok := ownChildren(skip); ok {
			return out
		}
	}
	return scanChildren(ppid, skip)
}

// scanChildren is childrenOf by reading every process's stat.
func scanChildren(ppid int, skip map[int]bool) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || skip[pid] {
			continue
		}
		st, err := ReadStat(n)
		if err != nil {
			continue
		}
		if p, err := strconv.Atoi(st.Field(4)); err == nil && p == ppid {
			out = append(out, pid)
		}
	}
	return out
}

// ownChildren lists this process's children (zombies included) not in
// skip from the kernel's own lists, /proc/self/task/TID/children (a
// child, adopted orphans too, is on the list of the thread that is its
// parent): a file per thread instead of one per process on the machine
// (152 here: 12 ms a scan). ok is false where the kernel keeps no such
// list (CONFIG_PROC_CHILDREN off): the caller scans /proc then.
func ownChildren(skip map[int]bool) (out []int, ok bool) {
	self := strconv.Itoa(os.Getpid())
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return nil, false
	}
	tids, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, false
	}
	for _, tid := range tids {
		b, err := readProcFile("/proc/self/task/" + tid + "/children")
		if err != nil && tid == self {
			return nil, false // the main thread runs: the kernel keeps no such list
		}
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && !skip[pid] && !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out, true
}

func uintptrOf(v *int32) uintptr { return uintptr(unsafe.Pointer(v)) }

// hasIDMaps reports whether a start writes user-namespace id maps.
func hasIDMaps(a *syscall.SysProcAttr) bool {
	return a != nil && (len(a.UidMappings) > 0 || len(a.GidMappings) > 0)
}
