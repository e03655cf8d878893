module github.com/mcpsum/mcpsum/tools

go 1.26.8

tool (
	github.com/bazelbuild/bazel-gazelle/cmd/gazelle
	github.com/bazelbuild/buildtools/buildifier
	github.com/bazelbuild/buildtools/buildozer
	honnef.co/go/tools/cmd/staticcheck
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/bazel-contrib/bazel-gazelle/v2 v2.0.0-3 // indirect
	github.com/bazelbuild/bazel-gazelle v0.53.0 // indirect
	github.com/bazelbuild/buildtools v0.0.0-20250930140053-2eb4fccefb52 // indirect
	github.com/bmatcuk/doublestar/v4 v4.9.1 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	golang.org/x/tools/go/vcs v0.1.0-deprecated // indirect
	google.golang.org/protobuf v1.36.3 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)
