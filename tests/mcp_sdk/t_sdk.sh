# revline mcp driven by a client no one here wrote: the official MCP
# TypeScript SDK (@modelcontextprotocol/sdk, the version pinned in
# package.json and package-lock.json), its Client over its
# StdioClientTransport (client.mjs says what is checked). share/setup.sh
# --test installs it with npm into the build tree (build/mcp-sdk); this test
# never fetches it, and is skipped (77) saying why when node or the SDK is
# not there.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

skip() {
	echo "skipped: $*"
	exit 77
}

command -v node >/dev/null || skip "node is not installed (share/setup.sh --test installs it)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is older than the SDK needs (18)"
# The SDK of this build tree, else of the default one (an ASan tree is built beside build/).
sdk=
for dir in "${REVLINE_BUILD_DIR:-}/mcp-sdk" "$REVLINE_SOURCE_DIR/build/mcp-sdk"; do
	if [ -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
		sdk=$dir
		break
	fi
done
[ -n "$sdk" ] || skip "the MCP SDK is not installed in ${REVLINE_BUILD_DIR:-build}/mcp-sdk (share/setup.sh --test installs it)"
want=$(node -p "require('$REVLINE_SOURCE_DIR/tests/mcp_sdk/package.json').dependencies['@modelcontextprotocol/sdk']")
got=$(node -p "require('$sdk/node_modules/@modelcontextprotocol/sdk/package.json').version")
[ "$got" = "$want" ] || fail "the SDK in $sdk is $got, tests/mcp_sdk/package.json pins $want: run share/setup.sh --test"

fake_llm_env
python3 - "$TMP/script.json" <<'PY'
import json, sys
finding = {"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection in run()",
           "issue": "shell=True with a caller's string", "suggestion": "Pass a list",
           "verification": {"code_examined": "return subprocess.call(cmd, shell=True)",
                            "line_range_examined": [1, 5], "verification_method": "read run()",
                            "checked_for_handling_elsewhere": True}}
rules = [
    {"match": "Rule injection:", "answer": {"status": "attention", "reasoning": "r", "findings": [finding]}},
    {"match": "Rule slow:", "latency_ms": 2500, "answer": {"status": "compliant", "reasoning": "ok", "findings": []}},
    {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "critical", "findings": []}},
    {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
for id in injection slow; do
	printf -- '---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" >"$rules/$id.md"
done
repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

if REVLINE=$REVLINE RULES=$rules REPO=$repo MCP_SDK_DIR=$sdk \
	node "$REVLINE_SOURCE_DIR/tests/mcp_sdk/client.mjs"; then
	pass "the SDK's client (@modelcontextprotocol/sdk $got) drove revline mcp"
else
	fail "the SDK's client (above)"
fi
finish
