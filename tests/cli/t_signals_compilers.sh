# revline signals --import of a compiler's output: a warning inside a macro
# is listed at the changed line that expands it (not in the header that
# defines the macro), with its notes; a header's warning that two files
# repeat counts once; DOOM's captured gcc output reads as gcc's JSON says.
. "$(dirname "$0")/lib.sh"

export REVLINE_DB=$TMP/revline.db
unset REVLINE_DATADIR
fixtures=$(cd "$(dirname "$0")/../fixtures/signals" && pwd)

repo=$(new_repo compilers)
cd "$repo"
printf '#define SHIFT(x) ((x) << 40)\n#define SCALE(y) SHIFT(y)\nstatic int unused_in_header;\n' >m.h
printf '#include "m.h"\n\nint one(int a)\n{\n\treturn a;\n}\n' >a.c
printf '#include "m.h"\n\nint two(void)\n{\n\treturn 2;\n}\n' >b.c
git add -A && git commit -q -m base
printf '#include "m.h"\n\nint one(int a)\n{\n\tint b = SCALE(a);\n\n\treturn a + b;\n}\n' >a.c

count() { python3 -c "import json, sys; print(sum(1 for s in json.load(open('$TMP/out')) if $1))"; }

if command -v gcc >/dev/null 2>&1; then
	{ gcc -Wall -Wextra -c a.c -o /dev/null; gcc -Wall -Wextra -c b.c -o /dev/null; } 2>"$TMP/gcc.txt" || true
	run signals --import "$TMP/gcc.txt" --tool gcc
	expect_status 0 "gcc's output imported"
	# Only the changed lines: the macro's warning is at a.c:5, where SCALE is expanded.
	run signals --json
	[ "$(count "s['file'] == 'a.c' and s['line'] == 5 and s['code'] == '-Wshift-count-overflow'")" = 1 ] &&
		pass "a warning inside a macro is at the changed line that expands it" ||
		fail "macro warning: $(head -c 600 "$TMP/out")"
	python3 -c "
import json
s = [s for s in json.load(open('$TMP/out')) if s['line'] == 5][0]
assert s['message'].startswith('left shift count >= width of type\n'), s
assert 'm.h:1:' in s['message'] and 'in definition of macro' in s['message'] and 'SHIFT' in s['message'], s
" && pass "the macro's definition is named in the message" || fail "message: $(head -c 600 "$TMP/out")"
	run signals --all --json
	[ "$(count "s['file'] == 'm.h' and s['line'] == 3")" = 1 ] &&
		pass "the header's warning, printed for a.c and for b.c, counts once" ||
		fail "header warning: $(head -c 600 "$TMP/out")"
	[ "$(count "s['severity'] == 'note'")" = 0 ] && pass "no note stands alone" || fail "notes: $(head -c 600 "$TMP/out")"
else
	pass "gcc not installed: skipping the live import"
fi

# DOOM (fixtures/signals/doom-gcc.txt): 54 errors and warnings, 6 of them
# a header's again, every note part of a warning.
run signals --import "$fixtures/doom-gcc.txt"
expect_status 0 "DOOM's gcc output imported"
grep -q "48 signals" "$TMP/err" "$TMP/out" && pass "48 signals" || fail "import said: $(cat "$TMP/out" "$TMP/err")"
run signals --all --json
[ "$(count "s['tool'] == 'gcc'")" = 48 ] && pass "48 kept" || fail "kept: $(count "s['tool'] == 'gcc'")"
[ "$(count "s['file'] == 'am_map.c' and s['line'] == 520 and s['code'] == '-Wmisleading-indentation'")" = 1 ] &&
	pass "Z_ChangeTag's misleading indentation at am_map.c:520, as gcc's JSON places it" ||
	fail "misleading indentation: $(head -c 600 "$TMP/out")"

# mypy --pretty: the wrapped messages and their codes, as the plain output's.
run signals --import "$fixtures/bottle-mypy-pretty.txt"
expect_status 0 "bottle's mypy --pretty output imported"
run signals --all --json
python3 -c "
import json
s = [s for s in json.load(open('$TMP/out')) if s['tool'] == 'mypy']
assert len(s) == 38, len(s)
assert sum(1 for x in s if x['code'] == 'import') == 31, [x['code'] for x in s]
assert all(x['code'] for x in s), [x for x in s if not x['code']]
" && pass "38 mypy signals, each with its code" || fail "mypy --pretty: $(head -c 600 "$TMP/out")"
finish
