package review

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func loadLock(t testing.TB, path string) *lockfile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lockfile.Parse(filepath.Base(path), data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// labelled renders findings as "kind name: label,label" lines.
func labelled(fs []lockfile.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Class != lockfile.Definitional {
			continue
		}
		out = append(out, f.Kind+" "+f.Name+": "+strings.Join(f.Labels, ","))
	}
	return out
}

// TestLabelsOfRealVersionBumps labels the drift between the official npm
// servers' early-2026 releases and 2026.8.31, each locked with mcpsum from
// the real packages (testdata/npm-bump). The expected labels are a
// reviewer's reading of each diff (see the comments).
func TestLabelsOfRealVersionBumps(t *testing.T) {
	old := loadLock(t, "testdata/npm-bump/2026.1.lock")
	cur := loadLock(t, "testdata/npm-bump/2026.8.lock")
	var got []string
	for _, n := range []string{"everything", "filesystem", "memory", "sequential-thinking"} {
		fs := lockfile.Compare(old.Servers[n], cur.Servers[n])
		Label(fs, old.Servers[n], cur.Servers[n])
		for _, l := range labelled(fs) {
			got = append(got, n+": "+l)
		}
	}
	want := []string{
		// zod 4 stopped writing "additionalProperties": false (the tool now
		// accepts extra arguments), and annotations appeared where there were
		// none (a stronger promise, still a change to review).
		"everything: tool echo: schema-widened,changed",
		"everything: tool get-annotated-message: schema-widened,changed",
		"everything: tool get-env: changed",
		"everything: tool get-resource-links: schema-widened,changed",
		"everything: tool get-resource-reference: schema-widened,changed",
		"everything: tool get-roots-list: changed",
		"everything: tool get-structured-content: schema-widened,changed",
		"everything: tool get-sum: schema-widened,changed",
		"everything: tool get-tiny-image: changed",
		"everything: tool gzip-file-as-resource: schema-widened,changed",
		"everything: tool simulate-research-query: schema-widened,changed",
		"everything: tool toggle-simulated-logging: changed",
		"everything: tool toggle-subscriber-updates: changed",
		"everything: tool trigger-elicitation-request: changed",
		"everything: tool trigger-long-running-operation: schema-widened,changed",
		"everything: tool trigger-sampling-request: schema-widened,changed",
		"everything: tool trigger-url-elicitation: added",
		// An argument's description was dropped: wording only.
		"everything: prompt args-prompt: descriptive",
		// "openWorldHint": false added: a stronger promise.
		"filesystem: tool create_directory: changed",
		"filesystem: tool directory_tree: changed",
		"filesystem: tool edit_file: changed",
		"filesystem: tool get_file_info: changed",
		"filesystem: tool list_allowed_directories: changed",
		"filesystem: tool list_directory: changed",
		"filesystem: tool list_directory_with_sizes: changed",
		// destructiveHint false→true: it now says it may destroy data.
		"filesystem: tool move_file: annotation-weakened",
		"filesystem: tool read_file: changed",
		// New wording, an output schema that also returns embedded
		// resources (anyOf), and openWorldHint added.
		"filesystem: tool read_media_file: schema-widened,changed,reworded",
		"filesystem: tool read_multiple_files: changed",
		"filesystem: tool read_text_file: changed",
		"filesystem: tool search_files: changed",
		"filesystem: tool write_file: changed",
		"memory: tool add_observations: changed",
		"memory: tool create_entities: changed",
		"memory: tool create_relations: changed",
		"memory: tool delete_entities: changed",
		"memory: tool delete_observations: changed",
		"memory: tool delete_relations: changed",
		"memory: tool open_nodes: changed",
		"memory: tool read_graph: changed",
		"memory: tool search_nodes: changed",
		// A new resource; its own memory:// uri is not a new destination.
		"memory: resource memory://knowledge-graph: added",
		// nextThoughtNeeded now also takes a string; additionalProperties
		// dropped; annotations appeared.
		"sequential-thinking: tool sequentialthinking: schema-widened,changed",
	}
	if !slices.Equal(got, want) {
		t.Errorf("labels of the real 2026.1 → 2026.8 bumps:\n got %q\nwant %q", got, want)
	}
}
