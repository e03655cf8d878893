package clientconfig

import (
	"bytes"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Dirs are the directories Locations are relative to.
type Dirs struct {
	OS           string // runtime.GOOS unless a test says otherwise
	Home         string
	AppData      string // Windows %APPDATA%
	LocalAppData string // Windows %LOCALAPPDATA%
	XDGConfig    string // $XDG_CONFIG_HOME or ~/.config
	Project      string // the project directory
}

// DirsFromEnv reads the directories from the environment, with project as
// the project directory.
func DirsFromEnv(project string) Dirs {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	return Dirs{
		OS:           runtime.GOOS,
		Home:         home,
		AppData:      os.Getenv("APPDATA"),
		LocalAppData: os.Getenv("LOCALAPPDATA"),
		XDGConfig:    xdg,
		Project:      project,
	}
}

func (d Dirs) base(b Base) string {
	switch b {
	case Home:
		return d.Home
	case AppData:
		return d.AppData
	case LocalAppData:
		return d.LocalAppData
	case XDGConfig:
		return d.XDGConfig
	case MacAppSupport:
		if d.Home == "" {
			return ""
		}
		return filepath.Join(d.Home, "Library", "Application Support")
	case Project:
		return d.Project
	}
	return ""
}

// Paths are the files Find looks at for client under d, in table order
// (a pattern with '*' for a location that may expand to several).
func (d Dirs) Paths(client *Client) []string {
	var out []string
	for _, l := range client.Locations {
		if base := d.base(l.Base); base != "" && (l.OS == "" || l.OS == d.OS) {
			out = append(out, filepath.Join(base, filepath.FromSlash(l.Rel)))
		}
	}
	return slices.Compact(out)
}

// Found is a config file that exists.
type Found struct {
	Client   *Client
	Location Location
	Path     string
}

// Find lists the config files of client (or of every client when nil) that
// exist under dirs, in table order. Locations for other operating systems
// are not looked at; a location may expand to several files (MSIX folders).
func Find(dirs Dirs, client *Client) []Found {
	var out []Found
	seen := map[string]bool{}
	for i := range Clients {
		c := &Clients[i]
		if client != nil && c.Name != client.Name {
			continue
		}
		for _, l := range c.Locations {
			if l.OS != "" && l.OS != dirs.OS {
				continue
			}
			base := dirs.base(l.Base)
			if base == "" {
				continue
			}
			pattern := filepath.Join(base, filepath.FromSlash(l.Rel))
			var paths []string
			if strings.Contains(l.Rel, "*") {
				paths, _ = filepath.Glob(pattern)
				slices.Sort(paths)
			} else {
				paths = []string{pattern}
			}
			for _, p := range paths {
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
					continue
				}
				key := c.Name + "\x00" + p
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Found{Client: c, Location: l, Path: p})
			}
		}
	}
	return out
}

// Detect decides which client a file given by path belongs to: by the
// longest match of its path's tail against the table's locations, then, when
// several clients share a file name (mcp.json, settings.json), by the root
// key the content uses. project is the project directory, used to tell a
// project file from a user file. It returns an error naming the candidates
// when it cannot decide; --client settles it.
func Detect(file string, content []byte, project string) (*Client, Location, error) {
	slash := filepath.ToSlash(file)
	best := 0
	var cands []Found
	for i := range Clients {
		c := &Clients[i]
		for _, l := range c.Locations {
			n := tailMatch(slash, l.Rel)
			if n == 0 || n < best {
				continue
			}
			if n > best {
				best, cands = n, nil
			}
			if !slices.ContainsFunc(cands, func(f Found) bool { return f.Client == c }) {
				cands = append(cands, Found{Client: c, Location: l})
			}
		}
	}
	if len(cands) > 1 {
		var byContent []Found
		for _, f := range cands {
			if usesRoot(content, f.Client) {
				byContent = append(byContent, f)
			}
		}
		if len(byContent) > 0 {
			cands = byContent
		}
	}
	if len(cands) > 1 && sameShape(cands) {
		cands = cands[:1] // e.g. ~/x/mcp.json in Cursor's and LM Studio's format: read alike
	}
	if len(cands) == 0 {
		// An unknown file name: decide by content alone.
		for i := range Clients {
			c := &Clients[i]
			if c.Format != TOML && usesRoot(content, c) {
				cands = append(cands, Found{Client: c, Location: Location{Base: Home}})
			}
		}
		if len(cands) > 1 && slices.ContainsFunc(cands, func(f Found) bool { return f.Client.Name == "claude-desktop" }) {
			// "mcpServers" is the de-facto common format; read it as Claude Desktop's.
			cands = cands[:1]
		}
	}
	switch len(cands) {
	case 0:
		return nil, Location{}, hint.Errorf("name the client with --client ("+strings.Join(Names(), ", ")+")",
			"%s: not a client config mcpsum knows (no mcpServers, servers, context_servers or [mcp_servers])", file)
	case 1:
		l := cands[0].Location
		if l.Base == Project && !underDir(file, project) {
			l.Base = Home // a project file of another project: no workspace variable applies here
		}
		return cands[0].Client, l, nil
	}
	var names []string
	for _, f := range cands {
		names = append(names, f.Client.Name)
	}
	return nil, Location{}, hint.Errorf("say which with --client", "%s could belong to %s", file, strings.Join(names, " or "))
}

// sameShape reports whether every candidate reads and writes files alike.
func sameShape(cands []Found) bool {
	for _, f := range cands[1:] {
		a, b := f.Client, cands[0].Client
		if a.Format != b.Format || !slices.EqualFunc(a.Roots, b.Roots, slices.Equal) ||
			a.Command != b.Command || a.Args != b.Args || a.CommandPath != b.CommandPath ||
			(f.Location.Project() && a.WorkspaceVar != b.WorkspaceVar) {
			return false
		}
	}
	return true
}

// tailMatch returns how many path elements of rel match the end of file
// (0 when the file name itself differs).
func tailMatch(file, rel string) int {
	fe := strings.Split(file, "/")
	re := strings.Split(rel, "/")
	n := 0
	for n < len(re) && n < len(fe) {
		ok, _ := path.Match(re[len(re)-1-n], fe[len(fe)-1-n])
		if !ok {
			break
		}
		n++
	}
	if n == 0 {
		return 0
	}
	return n
}

// usesRoot reports whether content has the first key of one of c's roots
// (a quick look; the real parse comes later).
func usesRoot(content []byte, c *Client) bool {
	for _, r := range c.Roots {
		if c.Format == TOML {
			if bytes.Contains(content, []byte("["+r[0]+".")) {
				return true
			}
			continue
		}
		if bytes.Contains(content, []byte(`"`+r[0]+`"`)) {
			return true
		}
	}
	return false
}

// IsProjectFile reports whether file's path ends in a client's project
// location (.mcp.json, .vscode/mcp.json, …), whichever project it is in,
// other than the home folder (~/.cursor/mcp.json is the user's own).
func IsProjectFile(file, home string) bool {
	abs, err := filepath.Abs(file)
	if err != nil {
		return true // fail closed: treat it as a repository's
	}
	slash := filepath.ToSlash(abs)
	for i := range Clients {
		for _, l := range Clients[i].Locations {
			n := len(strings.Split(l.Rel, "/"))
			if !l.Project() || tailMatch(slash, l.Rel) != n {
				continue
			}
			dir := abs
			for range n {
				dir = filepath.Dir(dir)
			}
			if home == "" || !sameDir(dir, home) {
				return true
			}
		}
	}
	return false
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// UnderDir reports whether file is dir or inside it (lexically, after
// making both absolute).
func UnderDir(file, dir string) bool { return underDir(file, dir) }

func underDir(file, dir string) bool {
	if dir == "" {
		return false
	}
	af, err1 := filepath.Abs(file)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ad, af)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
