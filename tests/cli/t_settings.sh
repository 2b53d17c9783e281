# Settings revline does not read are never passed over in silence: doctor
# names each key set that is not a setting (with its file, line and the key
# meant) and exits 1, and so for a linter revline does not have and a theme
# that does not exist; every other command says it once on stderr and
# leaves its stdout (a JSON report) whole; a .revline that writes a
# dotted name under [revline] is told to write [revline "lint"].
. "$(dirname "$0")/lib.sh"

repo=$(new_repo settings)
cd "$repo"
printf 'x = 1\n' >app.py
git add app.py
git commit -q -m base
printf 'x = 2\n' >app.py
mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/themes" "$TMP/data/themes"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_BASE_URL OPENAI_BASE_URL REVLINE_MODEL REVLINE_PROVIDER

run doctor
expect_status 0 "doctor passes a sound setup"
expect_out '^settings:   ok' "settings: ok"
expect_out '^theme:      default-dark$' "the default theme"

# A misspelt setting in the user's git config: named with its file and line.
printf '[user]\n\tname = me\n[revline]\n\tconcurency = 3\n' >"$HOME/.gitconfig"
run doctor
expect_status 1 "doctor fails on revline.concurency"
expect_out "^settings:   error: revline.concurency: unknown setting; did you mean revline.concurrency? (set in $HOME/.gitconfig:4)$" \
	"doctor names the key, the key meant, the file and line"
if grep -q '^settings:   ok' "$TMP/out"; then fail "doctor still says settings: ok"; else pass "no 'settings: ok'"; fi

# Every other command: once on stderr, stdout untouched.
run diff --stat
expect_status 0 "diff runs"
expect_err_line "^revline: revline.concurency: unknown setting; did you mean revline.concurrency? (set in $HOME/.gitconfig:4)$" \
	"diff says it once on stderr"
expect_out '^ app.py' "diff's output is as it was"
run check --no-builtin --rules "$TMP/none" --format json --no-fix-detection --fail-on none
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>/dev/null; then
	pass "check --format json: stdout is whole JSON"
else
	fail "check's JSON is broken: $(head -c 300 "$TMP/out")"
fi
[ "$(grep -c 'unknown setting' "$TMP/err")" -eq 1 ] && pass "check: the warning once, on stderr" ||
	fail "check's stderr: $(cat "$TMP/err")"

# The repository's own config, in any case, a subsection written in another case.
git config revline.Theme nosuch
git config 'revline.Lint.ruff' 'ruff check'
printf '[revline]\n\tconcurrency = 3\n' >"$HOME/.gitconfig"
run doctor
expect_status 1 "doctor fails on [revline \"Lint\"] and a theme that is none"
expect_out "^settings:   error: revline.Lint.ruff: unknown setting; did you mean revline.lint.ruff? (set in $repo/.git/config:[0-9]*)$" \
	"a subsection in another case is not the one revline reads"
expect_out "^theme:      nosuch (revline.theme, set in $repo/.git/config:[0-9]*): no theme of that name; the themes: default-dark, high-contrast, light, mono, solarized-dark$" \
	"a theme that does not exist, with the themes there are"
REVLINE_THEME=light run doctor
expect_out '^theme:      light (REVLINE_THEME)$' "REVLINE_THEME wins and is named"
git config --unset revline.Theme
git config --remove-section 'revline.Lint'

# A linter revline does not have.
git config revline.lint.flak8 'flake8 {files}'
run doctor
expect_status 1 "doctor fails on revline.lint.flak8"
expect_out "^settings:   error: revline.lint.flak8: no linter of that name (did you mean revline.lint.flake8?); revline runs ruff, flake8, mypy, bandit, shellcheck, cppcheck (set in $repo/.git/config:[0-9]*)$" \
	"a linter's command for a linter that is none"
git config --remove-section revline.lint

# A .revline: an unknown key, a key of another section, a dotted name.
printf '[revline]\n\ttheme = light\n\ttimout = 30\n[lint]\n\tflake8 = flake8\n' >.revline
run doctor
expect_status 1 "doctor fails on the .revline's unknown keys"
expect_out "^settings:   error: revline.timout: unknown setting; did you mean revline.timeout? (set in $repo/.revline:3)$" \
	"the .revline's misspelt key"
expect_out "^settings:   error: lint.flake8: not read: a .revline sets only revline's keys; did you mean revline.lint.flake8? (set in $repo/.revline:5)$" \
	"a key of another section of the .revline"
run diff --stat
expect_err_line "revline.timout: unknown setting; .*; 1 more unknown (revline doctor lists them)$" \
	"one line for two: the first and how many more"
printf '[revline]\n\tconcurrency = 2\n\tlint.flake8 = flake8 {files}\n' >.revline
run doctor
expect_status 1 "doctor fails on a .revline git refuses"
expect_out "^config:     error: $repo/.revline:3: 'lint.flake8' under \[revline\]: a name cannot have a dot; write \[revline \"lint\"\] and under it flake8 = \.\.\.$" \
	"a dotted name under [revline]: write [revline \"lint\"]"
printf '[revline "lint"]\n\tflake8 = flake8 {files}\n' >.revline
run doctor
expect_out '^settings:   ok' "written as told, it is read"
rm .revline

# A theme file with bad lines, given as a path.
printf 'color diff-add nocolour default\n' >"$TMP/mine.theme"
git config revline.theme "$TMP/mine.theme"
run doctor
expect_status 1 "doctor fails on a theme with a bad line"
expect_out "^theme:      $TMP/mine.theme (revline.theme, set in $repo/.git/config:[0-9]*): 1 bad line, each style keeps its default$" \
	"the theme's bad lines are counted"
expect_out "^  $TMP/mine.theme:1: unknown colour 'nocolour'" "and each is named with its line"
git config --unset revline.theme
run doctor
expect_status 0 "all put right: doctor passes again"
finish
