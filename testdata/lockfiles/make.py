#!/usr/bin/env python3
"""Writes the test lockfiles with digests computed by ../digests/jcs.py, an
implementation independent of pkg/lockfile. Run from this directory:

  python3 make.py

valid.lock and modern.lock are written in the layout pkg/lockfile.Marshal
promises (2-space indent, fixed key order, trailing newline), so the Go tests
can check marshal(parse(file)) is byte-identical. seed.lock is the seed's
LOCKFILE.md example verbatim, with its "sha256:…" placeholders replaced by the
real digests. ../digests/entry.json is a whole server entry for the vectors.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'digests'))
import jcs  # noqa: E402

ORDER = ['command', 'envPassthrough', 'protocolVersion', 'supportedVersions', 'serverInfo',
         'instructions', 'capabilities', 'tools', 'prompts', 'resources', 'resourceTemplates',
         'policy', 'digests']


def finish(entry):
    for field, key in jcs.KINDS:
        entry[field] = sorted(entry[field], key=lambda it: it[key])
    entry['digests'] = jcs.entry_digests(entry)
    return {k: entry[k] for k in ORDER if k in entry}


def write(path, doc):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + '\n')


TIME_TOOLS = [
    {"name": "get_current_time",
     "description": "Get current time in a specific timezones",
     "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string",
         "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no timezone provided by the user."}},
         "required": ["timezone"]},
     "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}},
    {"name": "convert_time",
     "description": "Convert time between timezones",
     "inputSchema": {"type": "object", "properties": {
         "source_timezone": {"type": "string", "description": "Source IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no source timezone provided by the user."},
         "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
         "target_timezone": {"type": "string", "description": "Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco'). Use 'UTC' as local timezone if no target timezone provided by the user."}},
         "required": ["source_timezone", "time", "target_timezone"]},
     "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}},
]


def time_entry(policy=None):
    e = {"command": ["uvx", "mcp-server-time==2026.8.18"], "envPassthrough": [],
         "protocolVersion": "2025-11-25",
         "serverInfo": {"name": "mcp-time", "version": "1.30.0"},
         "instructions": None,
         "capabilities": {"experimental": {}, "tools": {"listChanged": False}},
         "tools": json.loads(json.dumps(TIME_TOOLS)), "prompts": [], "resources": [], "resourceTemplates": []}
    if policy:
        e['policy'] = policy
    return finish(e)


def fetch_entry():
    return finish({
        "command": ["uvx", "mcp-server-fetch==2026.8.18", "--ignore-robots-txt"],
        "envPassthrough": ["HTTPS_PROXY", "NO_PROXY"],
        "protocolVersion": "2025-06-18",
        "serverInfo": {"name": "mcp-fetch", "version": "1.26.0"},
        "instructions": None,
        "capabilities": {"experimental": {}, "prompts": {"listChanged": False}, "tools": {"listChanged": False}},
        "tools": [{"name": "fetch",
                   "description": "Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.",
                   "inputSchema": {"description": "Parameters for fetching a URL.", "properties": {
                       "url": {"description": "URL to fetch", "format": "uri", "minLength": 1, "title": "Url", "type": "string"},
                       "max_length": {"default": 5000, "description": "Maximum number of characters to return.", "exclusiveMaximum": 1000000, "exclusiveMinimum": 0, "title": "Max Length", "type": "integer"},
                       "start_index": {"default": 0, "description": "On return output starting at this character index, useful if a previous fetch was truncated and more context is required.", "minimum": 0, "title": "Start Index", "type": "integer"},
                       "raw": {"default": False, "description": "Get the actual HTML content of the requested page, without simplification.", "title": "Raw", "type": "boolean"}},
                       "required": ["url"], "title": "Fetch", "type": "object"}}],
        "prompts": [{"name": "fetch", "description": "Fetch a URL and extract its contents as markdown",
                     "arguments": [{"name": "url", "description": "URL to fetch", "required": True}]}],
        "resources": [], "resourceTemplates": [],
        "policy": {"taint": {"sources": ["fetch"], "sinks": ["fetch"]},
                   "sandbox": {"filesystem": {"read": [], "write": ["${TMP}/cache"]},
                               "network": {"allow": ["*.wikipedia.org:443", "api.github.com:443", "10.0.0.5:8080", "[::1]:9000"]}}},
    })


def acme_entry():
    return finish({
        "command": ["npx", "-y", "@acme/mcp-files@2.4.1", "--root", "/srv/workspace"],
        "envPassthrough": ["ACME_TOKEN"],
        "protocolVersion": "2026-07-28",
        "supportedVersions": ["2026-07-28", "2025-11-25"],
        "serverInfo": {"name": "acme-files", "version": "2.4.1"},
        "instructions": "All paths are relative to the workspace root.",
        "capabilities": {"tools": {"listChanged": True}, "prompts": {}, "resources": {"subscribe": False}},
        "tools": [
            {"name": "write_file", "description": "Write a file in the workspace, replacing it.",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]},
             "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}},
            {"name": "read_file", "title": "Read file", "description": "Read a file from the workspace.",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"]},
             "outputSchema": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
             "annotations": {"readOnlyHint": True, "openWorldHint": False}},
        ],
        "prompts": [{"name": "summarize", "title": "Summarize a file",
                     "arguments": [{"name": "path", "description": "File to summarize", "required": True}]}],
        "resources": [{"uri": "file:///srv/workspace/README.md", "name": "README.md", "mimeType": "text/markdown", "size": 2048}],
        "resourceTemplates": [{"uriTemplate": "file:///srv/workspace/{+path}", "name": "workspace-file", "description": "Any file in the workspace"}],
        "policy": {"taint": {"sources": ["read_file", "resources:*", "prompts:*"], "sinks": ["write_file"]},
                   "sandbox": {"filesystem": {"read": ["~/.config/acme"], "write": ["/srv/workspace"]}, "network": {"allow": []}}},
    })


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    os.chdir(here)
    write('valid.lock', {"lockfileVersion": 1, "generator": "mcpsum 0.1.0", "servers": {
        "fetch": fetch_entry(),
        "time": time_entry({"taint": {"sources": ["resources:*"], "sinks": ["convert_time"]},
                            "sandbox": {"filesystem": {"read": ["~/notes"], "write": ["${TMP}/work"]},
                                        "network": {"allow": []}}})}})
    write('modern.lock', {"lockfileVersion": 2, "generator": "mcpsum 0.3.0", "servers": {
        "acme": acme_entry(), "time": time_entry()}})

    # The seed example, verbatim apart from the digests.
    text = open(os.path.join(here, '..', '..', '..', 'shared', 'seed', 'LOCKFILE.md'), encoding='utf-8').read() \
        if os.path.exists(os.path.join(here, '..', '..', '..', 'shared', 'seed', 'LOCKFILE.md')) else None
    if text is not None:
        start = text.index('{\n  "lockfileVersion": 1')
        end = text.index('\n}\n', start) + 3
        seed = text[start:end]
        d = jcs.entry_digests(jcs.load(seed)['servers']['time'])
        seed = seed.replace('"surface": "sha256:…"', '"surface": "%s"' % d['surface'])
        seed = seed.replace('"tools": { "convert_time": "sha256:…", "get_current_time": "sha256:…" }',
                            '"tools": { "convert_time": "%s", "get_current_time": "%s" }'
                            % (d['tools']['convert_time'], d['tools']['get_current_time']))
        assert '…"' not in re.sub(r'"…": "…"|IANA timezone name …', '', seed), 'placeholder left'
        open('seed.lock', 'w', encoding='utf-8').write(seed)

    # Whole-entry vector: items deliberately out of order, with a policy and digests.
    e = acme_entry()
    e['tools'] = list(reversed(e['tools']))
    with open(os.path.join('..', 'digests', 'entry.json'), 'w', encoding='utf-8') as f:
        f.write(json.dumps(e, indent=1, ensure_ascii=True) + '\n')


if __name__ == '__main__':
    main()
