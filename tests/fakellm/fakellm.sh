# The fake LLM server from a shell test. Source this file, then:
#
#   fakellm_start SCRIPT.json [DIR]   # DIR defaults to $TMP, else a new one
#   curl "$FAKELLM_URL/v1/chat/completions" ...
#   fakellm_requests                  # one merged JSON line per request
#   fakellm_max_concurrency           # the most requests handled at once
#   fakellm_stop                      # also run from the EXIT trap you set
#
# fakellm_start sets FAKELLM_PID, FAKELLM_PORT, FAKELLM_URL (no trailing
# slash) and FAKELLM_LOG; the server's stderr is in $FAKELLM_DIR/fakellm.err.

FAKELLM_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fake_llm.py

fakellm_start() {
	local script=$1 i
	FAKELLM_DIR=${2:-${TMP:-$(mktemp -d "${TMPDIR:-/tmp}/revline-fakellm-XXXXXX")}}
	FAKELLM_LOG=$FAKELLM_DIR/fakellm.jsonl
	rm -f "$FAKELLM_DIR/fakellm.port" "$FAKELLM_LOG"
	python3 "$FAKELLM_PY" --script "$script" --log "$FAKELLM_LOG" \
		--port-file "$FAKELLM_DIR/fakellm.port" \
		>"$FAKELLM_DIR/fakellm.err" 2>&1 &
	FAKELLM_PID=$!
	for ((i = 0; i < 1000; i++)); do
		[ -s "$FAKELLM_DIR/fakellm.port" ] && break
		if ! kill -0 "$FAKELLM_PID" 2>/dev/null; then
			echo "fake LLM server exited: $(cat "$FAKELLM_DIR/fakellm.err")" >&2
			return 1
		fi
		sleep 0.01
	done
	FAKELLM_PORT=$(cat "$FAKELLM_DIR/fakellm.port")
	FAKELLM_URL=http://127.0.0.1:$FAKELLM_PORT
	export FAKELLM_PID FAKELLM_PORT FAKELLM_URL FAKELLM_LOG FAKELLM_DIR
}

fakellm_stop() {
	if [ -n "${FAKELLM_PID:-}" ]; then
		kill "$FAKELLM_PID" 2>/dev/null || true
		wait "$FAKELLM_PID" 2>/dev/null || true
		FAKELLM_PID=
	fi
}

fakellm_requests() {
	python3 "$FAKELLM_PY" --requests "$FAKELLM_LOG"
}

fakellm_max_concurrency() {
	python3 "$FAKELLM_PY" --max-concurrency "$FAKELLM_LOG"
}
