# The man page lists every key of the UI and every option, as the program has them.
. "$(dirname "$0")/lib.sh"

man=$REVLINE_SOURCE_DIR/share/man/revline.1
sed 's/\\-/-/g; s/\\(em/-/g' "$man" >"$TMP/man.txt"

run help keys
expect_status 0 "help keys"
while IFS= read -r line; do
	case $line in
	"  "*)
		keys=$(printf '%s' "$line" | sed 's/^  \(.\{14\}\).*/\1/; s/ *$//')
		help=$(printf '%s' "$line" | cut -c18-)
		if grep -qxF ".B $keys" "$TMP/man.txt" && grep -qxF "$help" "$TMP/man.txt"; then
			pass "man page has key $keys"
		else
			fail "man page lacks '$keys' / '$help'"
		fi ;;
	esac
done <"$TMP/out"

for cmd in "" diff rules init bench check doctor feedback history fixes stats detect-fixes signals fix undo hook completion mcp db; do
	run help $cmd
	for opt in $(grep -o -- '--[a-z-]*' "$TMP/out" | sort -u); do
		if grep -q -- "$opt" "$TMP/man.txt"; then pass "man page has $opt"
		else fail "man page lacks option $opt"; fi
	done
done

if command -v groff >/dev/null; then
	if groff -man -Tutf8 -ww "$man" 2>"$TMP/groff.err" >/dev/null && [ ! -s "$TMP/groff.err" ]; then
		pass "groff renders the man page without warnings"
	else
		fail "groff: $(cat "$TMP/groff.err")"
	fi
fi
finish
