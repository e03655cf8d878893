//go:build unix

package lockfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A re-lock loads the file, runs servers, then writes under the lock. When
// the file did not change meanwhile, UpdateFrom must not parse and check it
// again (only the output is checked before it is written); when it changed,
// the other writer's change is kept and a broken file is refused.
func TestUpdateFromParsesOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.lock")
	if err := addServer(path, "a", 2); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string) func(f *File) error {
		return func(f *File) error {
			s := syntheticServer(3)
			if err := NewServer(s); err != nil {
				return err
			}
			f.Servers[name] = s
			return nil
		}
	}
	before := parses.Load()
	if err := UpdateFrom(path, loaded, put("b")); err != nil {
		t.Fatal(err)
	}
	if n := parses.Load() - before; n != 1 {
		t.Errorf("UpdateFrom of an unchanged file parsed %d times, want 1 (the output check)", n)
	}
	if _, ok := loaded.Servers["b"]; ok {
		t.Error("UpdateFrom changed the caller's File")
	}
	f, err := Load(path)
	if err != nil || f.Servers["a"] == nil || f.Servers["b"] == nil {
		t.Fatalf("after UpdateFrom: %v, servers %v", err, f)
	}

	// Changed meanwhile (by another writer): parsed again, nothing lost.
	if err := addServer(path, "c", 2); err != nil {
		t.Fatal(err)
	}
	before = parses.Load()
	if err := UpdateFrom(path, f, put("d")); err != nil {
		t.Fatal(err)
	}
	if n := parses.Load() - before; n != 2 {
		t.Errorf("UpdateFrom of a changed file parsed %d times, want 2", n)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if g.Servers[n] == nil {
			t.Errorf("server %s lost", n)
		}
	}

	// Broken meanwhile: refused, the file left as it is.
	data, _ := os.ReadFile(path)
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0x01
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateFrom(path, g, put("e")); err == nil {
		t.Error("UpdateFrom wrote over a file that was broken after it was loaded")
	}
	if now, _ := os.ReadFile(path); string(now) != string(bad) {
		t.Error("the broken file was changed")
	}
}

// BenchmarkRelock1000Tools is the lockfile work of re-locking a 1,000-tool
// server: load, then write the new entry under the lock.
func BenchmarkRelock1000Tools(b *testing.B) {
	path := filepath.Join(b.TempDir(), "mcp.lock")
	s := syntheticServer(1000)
	if err := NewServer(s); err != nil {
		b.Fatal(err)
	}
	data, err := Marshal(&File{Servers: map[string]*Server{"big": s}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := UpdateFrom(path, f, func(f *File) error { f.Generator = "bench"; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
