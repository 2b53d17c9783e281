#!/usr/bin/env bash
# Make a small demo repository with a few changes to review: share/demo-repo.sh DIR
# DIR is recreated; it must be empty, missing, or a demo made by this script.
set -euo pipefail
dir=${1:?usage: demo-repo.sh DIR}
if [ -e "$dir" ] && [ ! -e "$dir/.revline-demo" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	echo "demo-repo.sh: $dir exists and is not a revline demo; not touching it" >&2
	exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
export GIT_AUTHOR_NAME="revline demo" GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME="revline demo" GIT_COMMITTER_EMAIL=demo@example.com
export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
git init -q -b main .
touch .revline-demo
printf '.revline-demo\n' > .gitignore
mkdir -p src docs
cat > src/users.py <<'PY'
import sqlite3


def find_user(db, name):
    cursor = db.cursor()
    cursor.execute("SELECT id, name FROM users WHERE name = ?", (name,))
    return cursor.fetchone()


def delete_user(db, user_id):
    db.execute("DELETE FROM users WHERE id = ?", (user_id,))
    db.commit()
PY
cat > src/config.c <<'C'
#include <stdio.h>
#include <stdlib.h>

char *read_config(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *text = malloc(4096);
	size_t n;

	if (!fp || !text)
		return NULL;
	n = fread(text, 1, 4095, fp);
	text[n] = '\0';
	fclose(fp);
	return text;
}
C
printf '# Demo\n\nA small project for trying revline.\n' > docs/README.md
git add -A
git commit -q -m "Initial import"
# Changes to review: an injection, a leak, a doc edit and a new file.
cat > src/users.py <<'PY'
import sqlite3


def find_user(db, name):
    cursor = db.cursor()
    cursor.execute("SELECT id, name FROM users WHERE name = '%s'" % name)
    return cursor.fetchone()


def delete_user(db, user_id):
    db.execute("DELETE FROM users WHERE id = ?", (user_id,))
    db.commit()


def rename_user(db, user_id, name):
    db.execute("UPDATE users SET name = ? WHERE id = ?", (name, user_id))
PY
cat > src/config.c <<'C'
#include <stdio.h>
#include <stdlib.h>

char *read_config(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *text = malloc(4096);
	size_t n;

	if (!fp)
		return NULL;
	n = fread(text, 1, 4095, fp);
	text[n] = '\0';
	fclose(fp);
	return text;
}
C
printf '# Demo\n\nA small project for trying revline.\n\nRun `make` to build.\n' > docs/README.md
printf 'def slugify(text):\n    return text.lower().replace(" ", "-")\n' > src/text.py
git add src/text.py
