#ifndef REVLINE_FIXCOMMIT_H
#define REVLINE_FIXCOMMIT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Which commits fix a bug, from what the commit says (its message, its
 * author) and what it touches (code, tests, docs). The message is
 * untrusted text: only its first FIXCOMMIT_SCAN bytes are read.
 */
#define FIXCOMMIT_SCAN 65536

/* Why a message makes a fix: X(ID, name as stored and shown). */
#define FIXCOMMIT_WHY_LIST(X) \
	X(FIXCOMMIT_NONE,       "") \
	X(FIXCOMMIT_WORD,       "fix") \
	X(FIXCOMMIT_BUG,        "bug") \
	X(FIXCOMMIT_REGRESSION, "regression") \
	X(FIXCOMMIT_ISSUE,      "fixes-issue") \
	X(FIXCOMMIT_FIXES_TAG,  "fixes-commit") \
	X(FIXCOMMIT_REVERT,     "revert")

enum fixcommit_why {
#define FIXCOMMIT_WHY_ENUM(id, name) id,
	FIXCOMMIT_WHY_LIST(FIXCOMMIT_WHY_ENUM)
#undef FIXCOMMIT_WHY_ENUM
};

const char *fixcommit_why_name(enum fixcommit_why why);

struct fixcommit {
	enum fixcommit_why why;         /* FIXCOMMIT_NONE: not a fix */
	const char *skip;               /* a fix that is no case, and why ("a typo, docs or style fix"); NULL */
	char reverts[41];               /* a revert's commit, as its message names it (7 to 40 hex digits); "" */
};

/*
 * What a message says: a subject with fix, fixes, fixed, fixing, bugfix,
 * hotfix, bug or regression as a word (a conventional "fix:" or
 * "fix(scope):" too), "Fixes #123" or "Fixes GH-123" anywhere, a "Fixes:
 * <commit>" trailer, a revert ("Revert \"...\"", "This reverts commit
 * <id>."). A fix whose subject speaks of typos, spelling, docs, comments,
 * whitespace, formatting or lint is marked skip, as is a revert of a revert.
 */
void fixcommit_classify(struct fixcommit *out, const char *message, size_t len);

/* Whether an author is a bot: "[bot]" in the name or e-mail, Dependabot, Renovate, pre-commit.ci, ... */
bool fixcommit_bot(const char *name, const char *email);

/* What a path holds, from its name: X(ID, name). */
#define FIXCOMMIT_PATH_LIST(X) \
	X(PATH_CODE, "code") \
	X(PATH_TEST, "test") \
	X(PATH_DOC,  "docs") \
	X(PATH_CONFIG, "config")

enum fixcommit_path {
#define FIXCOMMIT_PATH_ENUM(id, name) id,
	FIXCOMMIT_PATH_LIST(FIXCOMMIT_PATH_ENUM)
#undef FIXCOMMIT_PATH_ENUM
};

/*
 * Tests: under a test, tests, spec, specs, __tests__ or testing folder, or
 * named test_*, *_test.*, *_tests.*, *.test.*, *.spec.*, *Test.java, conftest.py.
 * Docs: under doc, docs or documentation, text and markup (.md, .rst, .txt,
 * .adoc, .html, .1 ...), README, CHANGES, CHANGELOG, NEWS, AUTHORS, LICENSE.
 * Configuration and data: under .github, .circleci, .gitlab or .devcontainer,
 * a dotfile, a lock file, .toml, .yaml, .yml, .json, .cfg, .ini, .xml, .csv,
 * images. The rest is code.
 */
enum fixcommit_path fixcommit_path_kind(const char *path);

#endif
