module github.com/mcpsum/mcpsum/tools

go 1.26.8

tool (
	github.com/bazelbuild/bazel-gazelle/cmd/gazelle
	github.com/bazelbuild/buildtools/buildifier
	github.com/bazelbuild/buildtools/buildozer
)

require (
	github.com/bazel-contrib/bazel-gazelle/v2 v2.0.0-3 // indirect
	github.com/bazelbuild/bazel-gazelle v0.53.0 // indirect
	github.com/bazelbuild/buildtools v0.0.0-20250930140053-2eb4fccefb52 // indirect
	github.com/bmatcuk/doublestar/v4 v4.9.1 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/mod v0.23.0 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/tools/go/vcs v0.1.0-deprecated // indirect
	google.golang.org/protobuf v1.36.3 // indirect
)
