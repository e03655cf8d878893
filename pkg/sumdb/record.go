package sumdb

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/pkgspec"
)

// Kinds are the item kinds of a surface, in record order.
var Kinds = [4]string{"tools", "prompts", "resources", "resourceTemplates"}

// Surface is the definitional part of a locked entry as the log records it:
// its era and the digests of its instructions and items. It leaves out what
// differs from machine to machine for the same package (the path of npx,
// serverInfo, capabilities), so everyone who runs the same key logs the
// same surface.
type Surface struct {
	Era          string               // "legacy" or "modern"
	Instructions string               // "sha256:…" or "" when the server sent none
	Items        [4]map[string]string // per Kinds: item key -> "sha256:…"
}

// Identity is what a key is made of: the locked argv, the names of the
// variables passed through, the era and the client capabilities mcpsum
// declares in that era.
type Identity struct {
	Argv         []string
	Env          []string
	Era          string
	Capabilities []byte // compact JSON, as sent
}

// Key names a surface everyone can reproduce: ECOSYSTEM/PACKAGE@VERSION of
// the pinned package, then '#' and 24 hex digits of a hash over the rest of
// the argv (argv[0] by its base name), the env names, the era and the
// capabilities. ok is false for an entry without an exact registry pin: it
// is private and never looked up.
func Key(id Identity) (key string, ok bool) {
	pin, ok := pkgspec.FindPinned(id.Argv)
	if !ok {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "mcp-key v1\nprogram %s\n", strconv.Quote(pkgspec.Program(id.Argv[0])))
	for i, a := range id.Argv[1:] {
		if i+1 == pin.Index {
			a = "\x00package"
		}
		fmt.Fprintf(h, "arg %s\n", strconv.Quote(a))
	}
	env := append([]string(nil), id.Env...)
	sort.Strings(env)
	for _, e := range env {
		fmt.Fprintf(h, "env %s\n", strconv.Quote(e))
	}
	fmt.Fprintf(h, "era %s\ncapabilities %s\n", strconv.Quote(id.Era), strconv.Quote(string(id.Capabilities)))
	return pin.Name() + "#" + hex.EncodeToString(h.Sum(nil)[:12]), true
}

// Module is the ECOSYSTEM/PACKAGE part of a key (what MCPSUM_NOSUMDB matches).
func Module(key string) string {
	k, _, _ := strings.Cut(key, "#")
	if at := strings.LastIndexByte(k, '@'); at > 0 {
		return k[:at]
	}
	return k
}

const recordHeader = "mcp-surface v1\n"

// Record is the text the log holds for key and s:
//
//	mcp-surface v1
//	key npm/pkg@1.2.3#…
//	era legacy
//	surface sha256:…
//	instructions sha256:… (or none)
//	tools sha256:…
//	prompts sha256:…
//	resources sha256:…
//	resourceTemplates sha256:…
//
// Each kind's digest is SHA-256 over its "quoted-key SP digest" lines in
// byte order of keys; surface is SHA-256 over the lines from era on.
func Record(key string, s Surface) []byte {
	var b bytes.Buffer
	b.WriteString(recordHeader)
	b.WriteString("key " + key + "\n")
	b.Write(body(s))
	return b.Bytes()
}

func body(s Surface) []byte {
	var defs bytes.Buffer
	fmt.Fprintf(&defs, "era %s\n", s.Era)
	ins := s.Instructions
	if ins == "" {
		ins = "none"
	}
	fmt.Fprintf(&defs, "instructions %s\n", ins)
	for i, k := range Kinds {
		fmt.Fprintf(&defs, "%s %s\n", k, kindDigest(s.Items[i]))
	}
	sum := sha256.Sum256(defs.Bytes())
	var out bytes.Buffer
	lines := bytes.SplitAfterN(defs.Bytes(), []byte("\n"), 2)
	out.Write(lines[0])
	fmt.Fprintf(&out, "surface sha256:%x\n", sum)
	out.Write(lines[1])
	return out.Bytes()
}

func kindDigest(items map[string]string) string {
	keys := make([]string, 0, len(items))
	for k := range items {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s %s\n", strconv.Quote(k), items[k])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Digest is the surface digest a record states ("sha256:…").
func Digest(s Surface) string {
	d, _ := field(body(s), "surface")
	return d
}

// field returns the value of the first "name value" line of a record.
func field(rec []byte, name string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(rec))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return v, true
		}
	}
	return "", false
}

// ParseRecord checks that rec is a well-formed mcp-surface v1 record and
// returns its key and surface digest (what a log's operator rebuilds its
// key index from, and a monitor reads).
func ParseRecord(rec []byte) (key, surface string, err error) {
	if !bytes.HasPrefix(rec, []byte(recordHeader)) || !bytes.HasSuffix(rec, []byte("\n")) {
		return "", "", fmt.Errorf("not an mcp-surface v1 record")
	}
	lines := strings.Split(strings.TrimSuffix(string(rec), "\n"), "\n")
	want := []string{"mcp-surface v1", "key", "era", "surface", "instructions", Kinds[0], Kinds[1], Kinds[2], Kinds[3]}
	if len(lines) != len(want) {
		return "", "", fmt.Errorf("an mcp-surface v1 record has %d lines, this one %d", len(want), len(lines))
	}
	for i := 1; i < len(want); i++ {
		if !strings.HasPrefix(lines[i], want[i]+" ") {
			return "", "", fmt.Errorf("record line %d: want %q", i+1, want[i])
		}
	}
	surface = strings.TrimPrefix(lines[3], "surface ")
	if !digestRe.get().MatchString(surface) {
		return "", "", fmt.Errorf("record's surface is not a sha256 digest: %q", surface)
	}
	return strings.TrimPrefix(lines[1], "key "), surface, nil
}

var digestRe = &lazyRegexp{expr: `^sha256:[0-9a-f]{64}$`}
