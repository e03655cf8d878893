package review

import (
	"regexp"
	"sync"
)

// The text rules, as data. Each is checked on text a server sent; a drift
// label fires when the observed text holds more matches than the locked
// text did, so wording that was already reviewed does not fire again.

// modelAddress are phrases that give the model orders or ask it to keep
// things from the user (lower-cased text).
var modelAddress = &lazyRegexps{exprs: []string{
	`\bignore (all|any|the|your|previous|prior|above|earlier|other|those|these)\b`,
	`\b(do not|don't|dont|never|must not) (tell|inform|mention|reveal|show|notify|alert|ask|disclose|report)\b`,
	`\bwithout (telling|informing|asking|notifying|showing|mentioning|alerting)\b`,
	`\b(you|the assistant|the model|the ai|the agent|assistant|claude) (must|should|shall|need to|have to|are required to|will now)\b`,
	`\b(always|first|instead|also) (call|use|invoke|run|send|read|pass|include|post|upload|forward|attach)\b`,
	`\bbefore (calling|using|invoking|running|answering|responding|you)\b`,
	`<\s*/?\s*(important|system|instructions?|secret|hidden|admin)\s*>`,
	`\b(system prompt|previous instructions|developer message)\b`,
	`\b(secretly|silently|quietly|covertly)\b`,
	`\b(this is|it is|it's) (very |extremely )?(important|critical|mandatory|required)\b`,
	`\bthe user (must not|should not|cannot|can't|won't|will not|does not need to) (know|see|be told|notice)\b`,
	`\bplease (call|use|invoke|run|send|read|pass|include|post|upload|forward|attach|add|append|provide|put|copy|share|fill)\b`,
	`(^|\n)\s*\[\s*(system|admin|assistant|developer|instructions?|important|note to (the )?(ai|assistant|model))\s*\]`,
	`(^|\n)\s*(system|assistant|developer)\s*:`,
	`"role"\s*:\s*"(system|assistant|developer|user|tool)"`,
	`\b(from now on|new instructions|disregard|forget (all|any|everything|previous|your))\b`,
}}

// sensitive are names of data a tool has no business asking the model for:
// the conversation, its own prompt, secrets and the files that hold them
// (lower-cased text).
var sensitive = &lazyRegexps{exprs: []string{
	`\b(the|this|whole|entire|full|current|previous|earlier|recent) (conversation|chat|chat history|dialog|dialogue|message history|transcript)\b`,
	`\b(conversation|chat|message) (history|log|transcript|so far)\b`,
	`\b(system prompt|system message|your instructions|hidden instructions|developer message)\b`,
	`\b(private|secret|ssh|api|access|signing|gpg|pgp) keys?\b`,
	`\b(passwords?|passphrases?|passwd|credentials?|cookies?|session tokens?|access tokens?|bearer tokens?|auth tokens?|refresh tokens?|api tokens?|secrets?|seed phrases?|mnemonic|2fa codes?|otp codes?)\b`,
	`(^|[^a-z0-9])(id_rsa|id_ed25519|id_ecdsa|id_dsa|\.ssh|\.env|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.aws|\.kube|\.docker/config\.json|\.gnupg|authorized_keys|known_hosts|/etc/shadow|/etc/passwd|keychain|wallet\.dat)([^a-z0-9]|$)`,
}}

// destinations are places data can be sent or read: URLs, e-mail addresses,
// host names, IPv4 addresses and file paths.
var destinations = &lazyRegexps{exprs: []string{
	`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>)\]}]+`,
	`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}\b`,
	`(?i)\b([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+(com|net|org|io|dev|ai|app|co|xyz|info|biz|me|sh|ru|cn|site|online|top|cloud|example|internal|local|onion|gg|tk|ly|to)\b`,
	`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`,
	`(^|[\s"'(\x60=:,])((~|\$HOME|\$\{HOME\}|%[A-Z]+%)?/[A-Za-z0-9._-]+(/[A-Za-z0-9._-]*)*)`,
	`(^|[\s"'(\x60=:,])(~|\$HOME)($|[\s"'),;])`,
	`\b[A-Za-z]:\\[^\s"']+`,
}}

// notText are members whose string value is a fixed reference, not text a
// model reads as wording ($schema names the JSON Schema dialect).
func notText(k string) bool { return k == "$schema" }

// textKeys are the JSON Schema and MCP members that hold wording: a change
// confined to them (and firing no text rule) is descriptive.
func textKey(k string) bool { return k == "description" || k == "title" }

// valueKeys are schema members whose value is a value, not a schema: a
// "description" inside a default or an example is data the model may be
// handed, so a change there is never wording.
func valueKey(k string) bool {
	switch k {
	case "default", "enum", "const", "examples":
		return true
	}
	return false
}

// nameMaps are schema members whose children are names, not keywords (a
// property called "description" is not wording).
func nameMap(k string) bool {
	switch k {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
		return true
	}
	return false
}

// wellKnownTools are tool names of widely used servers: text naming one is
// references-tool even when no locked server has it.
var wellKnownTools = []string{
	"read_file", "read_text_file", "read_multiple_files", "write_file", "edit_file", "list_directory",
	"move_file", "search_files", "create_directory", "directory_tree",
	"send_email", "read_email", "search_emails", "create_issue", "create_pull_request", "push_files",
	"create_or_update_file", "get_file_contents", "search_repositories", "merge_pull_request",
	"execute_command", "run_command", "run_terminal_cmd", "browser_navigate", "slack_post_message",
	"git_commit", "git_push", "execute_sql", "read_query", "write_query",
}

// lazyRegexps are expressions compiled on first use: most runs of mcpsum
// (a proxy without drift, show, version) never label anything, and
// compiling them costs every start-up (cmd/mcpsum's TestInitIsCheap). A
// pointer to a literal is data: the package runs no initialiser.
type lazyRegexps struct {
	exprs []string
	once  sync.Once
	res   []*regexp.Regexp
}

// get returns the expressions, compiling them on the first call.
func (l *lazyRegexps) get() []*regexp.Regexp {
	l.once.Do(func() {
		l.res = make([]*regexp.Regexp, len(l.exprs))
		for i, e := range l.exprs {
			l.res[i] = regexp.MustCompile(e)
		}
	})
	return l.res
}
