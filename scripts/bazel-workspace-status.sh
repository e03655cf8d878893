#!/bin/sh
# Bazel workspace status (see .bazelrc, --config=release): the version that
# //cmd/mcpsum:mcpsum stamps into main.version, as scripts/release.sh derives it.
echo "STABLE_MCPSUM_VERSION $(git describe --tags --always --dirty --abbrev=12 2>/dev/null || echo devel)"
