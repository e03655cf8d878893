package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// npmRegistry is a FAKE npm registry on loopback, so tests can run real
// cold `npx` installs with no network: it serves, for each package
// installed in e2e/node_modules (the versions `npm ci` put there, nested
// ones too), its packument and a tarball packed from its files, built when
// first asked for, and the packages a test adds (add). Each tarball is answered after delay, so an install
// takes a while, as on a real cold machine. It records, per npm process
// (npm's npm-session header), the span of its requests.
type npmRegistry struct {
	url   string
	delay time.Duration

	mu       sync.Mutex
	dirs     map[string][]string // package name → its folders
	tarballs map[string][]byte   // "name@version" → .tgz
	extra    map[string]string   // package name → its version (add)
	spans    map[string][2]time.Time
}

// add serves one more package, made of files (path under package/ →
// content; "package.json" among them), scripts and all: a package a test
// writes, installed by real npm beside those of e2e/node_modules.
func (r *npmRegistry) add(files map[string]string) {
	var m struct{ Name, Version string }
	if err := json.Unmarshal([]byte(files["package.json"]), &m); err != nil || m.Name == "" || m.Version == "" {
		panic("npmRegistry.add: a package.json with a name and a version")
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o755, Size: int64(len(files[name])), ModTime: time.Unix(499162500, 0), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[name]))
	}
	tw.Close()
	gz.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tarballs[m.Name+"@"+m.Version] = buf.Bytes()
	r.extra[m.Name] = files["package.json"]
}

func startNpmRegistry(t *testing.T, delay time.Duration) *npmRegistry {
	t.Helper()
	root, err := filepath.EvalSymlinks("node_modules")
	if err != nil {
		requirePeers(t, "e2e/node_modules is missing; run `npm ci` in e2e/")
	}
	r := &npmRegistry{delay: delay, dirs: map[string][]string{}, tarballs: map[string][]byte{}, extra: map[string]string{}, spans: map[string][2]time.Time{}}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || filepath.Base(filepath.Dir(p)) == "node_modules" && strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if strings.Contains(strings.TrimPrefix(p, root), "/.bin") {
			return filepath.SkipDir
		}
		b, err := os.ReadFile(filepath.Join(p, "package.json"))
		if err != nil {
			return nil
		}
		var m struct{ Name, Version string }
		parent := filepath.Base(filepath.Dir(p))
		if json.Unmarshal(b, &m) == nil && m.Name != "" && m.Version != "" &&
			(parent == "node_modules" || filepath.Base(filepath.Dir(filepath.Dir(p))) == "node_modules" && strings.HasPrefix(parent, "@")) {
			r.dirs[m.Name] = append(r.dirs[m.Name], p)
		}
		return nil
	})
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/"
	return r
}

func (r *npmRegistry) serve(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	if s := req.Header.Get("npm-session"); s != "" {
		r.mu.Lock()
		sp := r.spans[s]
		if sp[0].IsZero() {
			sp[0] = now
		}
		sp[1] = now
		r.spans[s] = sp
		r.mu.Unlock()
	}
	path, _ := url.PathUnescape(req.URL.EscapedPath())
	path = strings.TrimPrefix(path, "/")
	if spec, ok := strings.CutPrefix(path, "-/tarball/"); ok {
		r.mu.Lock()
		tgz := r.tarballs[spec]
		r.mu.Unlock()
		if tgz == nil {
			http.NotFound(w, req)
			return
		}
		time.Sleep(r.delay)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(tgz)
		return
	}
	r.mu.Lock()
	dirs, extra := r.dirs[path], r.extra[path]
	r.mu.Unlock()
	if extra != "" {
		r.serveAdded(w, path, extra)
		return
	}
	if len(dirs) == 0 {
		http.NotFound(w, req)
		return
	}
	versions := map[string]any{}
	latest := ""
	for _, d := range dirs {
		b, _ := os.ReadFile(filepath.Join(d, "package.json"))
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		v, _ := m["version"].(string)
		spec := path + "@" + v
		r.mu.Lock()
		tgz := r.tarballs[spec]
		r.mu.Unlock()
		if tgz == nil {
			tgz = packDir(d)
			r.mu.Lock()
			r.tarballs[spec] = tgz
			r.mu.Unlock()
		}
		sum := sha512.Sum512(tgz)
		m["dist"] = map[string]string{"tarball": r.url + "-/tarball/" + url.PathEscape(spec), "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
		delete(m, "scripts") // what e2e's npm ci ran (or not) is not the test's business
		versions[v] = m
		if latest == "" || v > latest {
			latest = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": path, "versions": versions, "dist-tags": map[string]string{"latest": latest}})
}

// userConfig makes this registry the npm configuration of the user whose
// home is home (~/.npmrc), read by every npm and npx run with that HOME:
// mcpsum's installs and the servers' own npx alike.
func (r *npmRegistry) userConfig(t *testing.T, home string) {
	t.Helper()
	writeFiles(t, map[string]string{filepath.Join(home, ".npmrc"): "registry=" + r.url + "\nupdate-notifier=false\naudit=false\nfund=false\n"})
}

// serveAdded answers the packument of a package given to add.
func (r *npmRegistry) serveAdded(w http.ResponseWriter, name, manifest string) {
	var m map[string]any
	json.Unmarshal([]byte(manifest), &m)
	v, _ := m["version"].(string)
	r.mu.Lock()
	tgz := r.tarballs[name+"@"+v]
	r.mu.Unlock()
	sum := sha512.Sum512(tgz)
	m["dist"] = map[string]string{"tarball": r.url + "-/tarball/" + url.PathEscape(name+"@"+v), "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": name, "versions": map[string]any{v: m}, "dist-tags": map[string]string{"latest": v}})
}

// packDir packs a package folder as npm does (files under package/),
// without its own node_modules.
func packDir(dir string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		fi, _ := d.Info()
		tw.WriteHeader(&tar.Header{Name: "package/" + filepath.ToSlash(rel), Mode: int64(fi.Mode().Perm()), Size: int64(len(b)), ModTime: time.Unix(499162500, 0), Typeflag: tar.TypeReg})
		tw.Write(b)
		return nil
	})
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// maxOverlap is the most npm processes whose requests' spans overlapped.
func (r *npmRegistry) maxOverlap() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	best := 0
	for _, a := range r.spans {
		n := 0
		for _, b := range r.spans {
			if !b[0].After(a[0]) && !b[1].Before(a[0]) {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}
