package lockfile

import (
	"strconv"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// fileTooLarge is the *LimitError of a file over MaxFileSize (marshal's
// sizes): it names the largest entry and that entry's largest item.
func fileTooLarge(f *File, sizes map[string]int) *LimitError {
	name := largest(sizes, nil)
	item, n := largestItem(f.Servers[name])
	detail := "written, this entry alone would take " + atLeast(sizes[name])
	if item != "" {
		detail += "; its " + item + " is " + mib(n) + " as the server sent it"
	}
	return &LimitError{Server: name, Item: item, Limit: fileLimit, Detail: detail}
}

// largest is the name with the largest size (of those in only, when
// set); ties go to the first name in byte order.
func largest(sizes map[string]int, only func(string) bool) string {
	var name string
	for n, sz := range sizes {
		if only != nil && !only(n) {
			continue
		}
		if name == "" || sz > sizes[name] || sz == sizes[name] && n < name {
			name = n
		}
	}
	return name
}

// atLeast is an entry's size as marshal measured it, which stops past
// MaxFileSize.
func atLeast(n int) string {
	if n > MaxFileSize {
		return "more than " + mib(MaxFileSize)
	}
	return mib(n) + " (with the others, over the limit)"
}

var fileLimit = "the " + mib(MaxFileSize) + " a lockfile may hold"

// largestItem names the largest item of s (`tool "deep"`, "" for none)
// and says its size.
func largestItem(s *Server) (string, int) {
	if s == nil {
		return "", 0
	}
	best, name := 0, ""
	for i, k := range mcpspec.Kinds {
		for _, it := range *s.items(i) {
			if len(it) > best {
				key, _ := itemKey(it, k.Key)
				best, name = len(it), k.Name+" "+termtext.Quoted(key, 80)
			}
		}
	}
	return name, best
}

// mib writes a byte count in MiB with one decimal ("64 MiB", "70.2 MiB").
func mib(n int) string {
	if n%(1<<20) == 0 && n > 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// Fit makes f readable again after entries were put into it: while the
// file would exceed MaxFileSize, the largest entry among those named in
// fresh is taken back out (its previous version from prev put back, or
// none) and refused with a *LimitError naming it, its largest item and the
// limit. The other entries fitted before and stay. Lock writes the entries
// that fit and reports the ones refused; nothing is cut short.
func Fit(f *File, fresh map[string]*Server, prev map[string]*Server) []*LimitError {
	var refused []*LimitError
	for {
		out, sizes, err := marshal(f)
		if err != nil || out != nil {
			return refused // a marshal error is Update's to report
		}
		name := largest(sizes, func(n string) bool { return fresh[n] != nil && f.Servers[n] == fresh[n] })
		if name == "" {
			return refused
		}
		refused = append(refused, fileTooLarge(f, map[string]int{name: sizes[name]}))
		if old := prev[name]; old != nil {
			f.Servers[name] = old
		} else {
			delete(f.Servers, name)
		}
	}
}
