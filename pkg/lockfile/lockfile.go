package lockfile

import (
	"crypto/sha256"
	"encoding/json"
	"slices"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Era names, as returned by Server.Era and used in era findings.
const (
	EraLegacy = mcpspec.EraLegacy // initialize handshake (protocol versions up to 2025-11-25)
	EraModern = mcpspec.EraModern // 2026-07-28 server/discover, versions listed in supportedVersions
)

// File is a whole mcp.lock.
type File struct {
	// Version is the lockfileVersion read from the file. Marshal ignores it and
	// writes 2 when any server is modern, else 1 (see Marshal).
	Version int
	// Generator is the mcpsum version that wrote the file ("mcpsum 0.1.0").
	// Informational: read as-is, set by the writer, omitted when empty.
	Generator string
	Servers   map[string]*Server

	// srcSum is the SHA-256 of the bytes Parse read this File from, so
	// UpdateFrom can skip a second parse of an unchanged file.
	srcSum *[sha256.Size]byte
}

// Server is one servers.<name> entry.
type Server struct {
	Command        []string
	EnvPassthrough []string

	// URL and Headers make a remote (Streamable HTTP) entry, which has no
	// Command or EnvPassthrough (lockfileVersion 3; see remote.go). Headers
	// maps a header name to the environment variable its value comes from.
	URL     string
	Headers map[string]string
	// OAuth pins the authorization server a remote entry signs in with
	// (nil: none).
	OAuth *OAuth

	ProtocolVersion   string
	SupportedVersions []string // nil => legacy era; non-nil => modern (must list ProtocolVersion)

	ServerInfo   json.RawMessage // a JSON object, compact
	Instructions *string         // nil when the server sent none
	Capabilities json.RawMessage // a JSON object, compact

	// Raw items, compact, sorted by key.
	Tools, Prompts, Resources, ResourceTemplates []json.RawMessage

	Policy *Policy // nil when absent; written by the user, never by the server

	Digests Digests

	// LogProof is the C2SP tlog-proof that the transparency log (MCPSUMDB)
	// held this entry's record when it was locked ("" when not looked up).
	// Like Policy it is not covered by the digests: verify --offline checks
	// it against the log's key and the record the entry's digests give.
	LogProof string
}

// Era reports "legacy" or "modern" ("modern" iff SupportedVersions != nil).
func (s *Server) Era() string {
	if s.SupportedVersions != nil {
		return EraModern
	}
	return EraLegacy
}

// Digests are "sha256:<64 lowercase hex>" strings; see NewServer.
type Digests struct {
	Surface      string
	Instructions *string // nil iff Server.Instructions is nil
	// Item key -> digest.
	Tools, Prompts, Resources, ResourceTemplates map[string]string
}

// Policy is the optional, user-written policy section. It is not covered by
// digests and is kept across re-lock (KeepPolicy).
type Policy struct {
	Taint   *Taint
	Sandbox *Sandbox
	// Unpinned lists item kinds the reviewer declared data, not definitions
	// ("resources", "resourceTemplates"; never tools or prompts): they are
	// kept in the lock as seen at lock time but not compared, and the proxy
	// serves them live. nil when absent.
	Unpinned []string
}

// Unpinnable are the item kinds (their field names) policy.unpinned may list.
var Unpinnable = []string{"resources", "resourceTemplates"}

// IsUnpinned reports whether the items of field ("resources", …) are
// declared data in s's policy.
func (s *Server) IsUnpinned(field string) bool {
	return s.Policy != nil && slices.Contains(s.Policy.Unpinned, field)
}

// Taint lists tool names (or the wildcards "resources:*" and "prompts:*").
// Parse returns non-nil slices; the order is the user's and is preserved.
type Taint struct {
	Sources, Sinks []string
}

// Wildcards allowed in taint lists besides locked tool names.
const (
	AllResources = "resources:*" // every resources/read
	AllPrompts   = "prompts:*"   // every prompts/get
)

// Sandbox is policy.sandbox. Missing sub-sections mean "nothing extra":
// no extra paths and no network.
type Sandbox struct {
	Filesystem Filesystem
	Network    Network
}

// Filesystem paths are absolute, "~/..." (the home folder; "~/" alone is the
// folder itself) or "${TMP}/...", with no ".." component: a bare "~" or
// "${TMP}" is refused (internal/policysyntax.Path). Whether they exist is
// checked by the sandbox at run time.
type Filesystem struct {
	Read, Write []string
}

// Network.Allow lists host:port entries. A non-nil empty slice means no
// network; Parse never returns nil, and Marshal writes nil as [] (no network),
// so an unset value fails closed.
type Network struct {
	Allow []string
}

// Item kinds as used in Finding.Kind, IntegrityError.Kind and ItemKey (the
// names internal/mcpspec gives them).
const (
	KindTool             = mcpspec.KindTool
	KindPrompt           = mcpspec.KindPrompt
	KindResource         = mcpspec.KindResource
	KindResourceTemplate = mcpspec.KindResourceTemplate
)

// Items returns the entry's items of kind (mcpspec.KindTool, …; nil for an
// unknown kind).
func (s *Server) Items(kind string) []json.RawMessage {
	if i, ok := mcpspec.KindIndex(kind); ok {
		return *s.items(i)
	}
	return nil
}

// Of returns the item digests of kind (nil for an unknown kind).
func (d *Digests) Of(kind string) map[string]string {
	if i, ok := mcpspec.KindIndex(kind); ok {
		return *d.items(i)
	}
	return nil
}

func (s *Server) items(i int) *[]json.RawMessage {
	switch i {
	case 0:
		return &s.Tools
	case 1:
		return &s.Prompts
	case 2:
		return &s.Resources
	default:
		return &s.ResourceTemplates
	}
}

func (d *Digests) items(i int) *map[string]string {
	switch i {
	case 0:
		return &d.Tools
	case 1:
		return &d.Prompts
	case 2:
		return &d.Resources
	default:
		return &d.ResourceTemplates
	}
}

// Find returns the locked item of kind ("tool", "prompt", "resource",
// "resourceTemplate") whose key is key, or nil.
func (s *Server) Find(kind, key string) json.RawMessage {
	i, ok := mcpspec.KindIndex(kind)
	if !ok {
		return nil
	}
	for _, it := range *s.items(i) {
		if k, err := itemKey(it, mcpspec.Kinds[i].Key); err == nil && k == key {
			return it
		}
	}
	return nil
}

// ItemKey returns the key of a raw item of the given kind: the "name" of a
// tool or prompt, the "uri" of a resource, the "uriTemplate" of a template.
func ItemKey(kind string, item json.RawMessage) (string, error) {
	i, ok := mcpspec.KindIndex(kind)
	if !ok {
		return "", &FormatError{Item: "kind " + termtext.Quoted(kind, 80), Err: errUnknownKind}
	}
	return itemKey(item, mcpspec.Kinds[i].Key)
}

// MaxFileSize caps the bytes of a lockfile mcpsum reads (64 MiB: far above
// any lock of real servers, far below what would exhaust memory).
const MaxFileSize = 64 << 20

// ReadFile reads the bytes of the lockfile at path: opened without blocking,
// a regular file only (a FIFO, /dev/zero or a directory is refused with an
// error naming it), at most MaxFileSize bytes. A missing file gives an error
// matching fs.ErrNotExist. A lockfile inside mcpsum's config (or state)
// folder is read only when that folder is the user's own
// (statefile.CheckOwn): who else can write it could swap the lockfile for
// one that runs their command.
func ReadFile(path string) ([]byte, error) {
	if err := statefile.CheckOwn(path); err != nil {
		return nil, err
	}
	return safeio.ReadRegular(path, "lockfile", MaxFileSize)
}

// KeyField is the member that keys items of kind ("name", "uri" or
// "uriTemplate"; "" for an unknown kind).
func KeyField(kind string) string {
	if i, ok := mcpspec.KindIndex(kind); ok {
		return mcpspec.Kinds[i].Key
	}
	return ""
}

// Load reads and parses the lockfile at path (strict, digests recomputed).
func Load(path string) (*File, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}
