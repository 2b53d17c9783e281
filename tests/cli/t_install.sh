# cmake --install puts the program, its man page and its data where the
# installed program finds them.
. "$(dirname "$0")/lib.sh"

: "${REVLINE_BUILD_DIR:?}"
prefix=$TMP/prefix
cmake --install "$REVLINE_BUILD_DIR" --prefix "$prefix" >/dev/null
for f in bin/revline bin/git-revline share/man/man1/revline.1 share/revline/themes/default-dark \
	 share/revline/themes/mono share/revline/themes/light share/bash-completion/completions/revline \
	 share/zsh/vendor-completions/_revline share/fish/vendor_completions.d/revline.fish; do
	if [ -e "$prefix/$f" ]; then pass "installed $f"; else fail "missing $prefix/$f"; fi
done

# The installed program runs from anywhere and finds its themes.
repo=$(new_repo inst)
echo a >"$repo/a.txt"
git -C "$repo" add a.txt && git -C "$repo" commit -q -m a
echo b >>"$repo/a.txt"
printf ':save-display %s\n' "$TMP/screen.txt" >"$TMP/script"
cd "$repo"
unset REVLINE_DATADIR
REVLINE=$prefix/bin/revline
REVLINE_SCRIPT=$TMP/script REVLINE_THEME=solarized-dark run
expect_status 0 "installed revline runs headless"
if grep -q "not found" "$TMP/screen.txt"; then
	fail "installed revline did not find its theme: $(tail -1 "$TMP/screen.txt")"
else
	pass "installed revline found the solarized-dark theme"
fi
grep -q "a.txt" "$TMP/screen.txt" && pass "the screen shows the change" || fail "no a.txt on screen"

# git revline runs the installed program; the installed bash completion is the program's.
run_git() {
	set +e
	PATH="$prefix/bin:$PATH" git "$@" >"$TMP/out" 2>"$TMP/err"
	status=$?
	set -e
}
run_git revline diff --name-status
expect_status 0 "git revline diff"
grep -q "a.txt" "$TMP/out" && pass "git revline ran revline" || fail "git revline: $(cat "$TMP/out" "$TMP/err")"
"$REVLINE" completion bash | cmp -s - "$prefix/share/bash-completion/completions/revline" &&
	pass "the installed bash completion is revline's" || fail "the installed bash completion differs"
finish
