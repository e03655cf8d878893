#!/bin/sh
# Runs `mcpsum verify` for the GitHub Action (action.yml): the text report
# goes to the log and to the job summary, SARIF to ACTION_SARIF_FILE (when
# set), and the exit code is kept for the last step, so SARIF is uploaded
# before the job fails. Inputs (environment): ACTION_LOCKFILE, ACTION_STRICT
# (true/false), ACTION_TIMEOUT_SECS, ACTION_START_TIMEOUT_SECS,
# ACTION_SARIF_FILE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT. Writes exit-code=N to
# GITHUB_OUTPUT.
set -u
lock=${ACTION_LOCKFILE:-mcp.lock}
set -- verify --lockfile "$lock" --timeout-secs "${ACTION_TIMEOUT_SECS:-30}" --start-timeout-secs "${ACTION_START_TIMEOUT_SECS:-60}"
[ "${ACTION_STRICT:-false}" = true ] && set -- "$@" --strict
[ -n "${ACTION_SARIF_FILE:-}" ] && set -- "$@" --sarif-file "$ACTION_SARIF_FILE"

report=$(mktemp)
mcpsum "$@" >"$report" 2>&1
code=$?
cat "$report"

case $code in
0) verdict="✅ every server matches \`$lock\`" ;;
1) verdict="❌ drift: a server no longer matches \`$lock\` (or the lock's digests do not match)" ;;
2) verdict="⚠️ mcpsum was called wrongly (exit 2)" ;;
*) verdict="⚠️ could not decide: a server did not start or answer (exit $code)" ;;
esac
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{
		echo "### mcpsum verify"
		echo
		echo "$verdict"
		echo
		echo "<pre>"
		sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' "$report"
		echo "</pre>"
	} >>"$GITHUB_STEP_SUMMARY"
fi
[ -z "${GITHUB_OUTPUT:-}" ] || echo "exit-code=$code" >>"$GITHUB_OUTPUT"
rm -f "$report"
exit 0
