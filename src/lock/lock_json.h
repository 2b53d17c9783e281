#ifndef REVLINE_LOCK_JSON_H
#define REVLINE_LOCK_JSON_H

/*
 * Inside the lock file readers: JSON (and bun.lock's JSONC) read in one
 * pass over the text, value by value, as the reader asks for them: no
 * tree is built, so a 30 MB package-lock.json costs its packages, not
 * ten times its size. Strictly RFC 8259 (JSONC adds // and block
 * comments and a comma before a closing bracket); the first error stops
 * the reader with its line and column. Nesting deeper than
 * LOCK_JSON_DEPTH is an error, and nothing recurses on the text.
 *
 *	if (!json_pull_object(r))
 *		return;
 *	while (json_pull_member(r, &key)) {
 *		if (span is "version") json_pull_string(r, &value);
 *		else json_pull_skip(r);
 *	}
 */
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "deps_text.h"

#define LOCK_JSON_DEPTH 512

struct json_pull {
	const char *text, *p, *end;
	bool jsonc;
	size_t depth;
	bool more[LOCK_JSON_DEPTH];     /* per open container: an item was read, a comma comes next */
	char kind[LOCK_JSON_DEPTH];     /* per open container: '{' or '[' */
	bool failed, nomem;
	char why[200];                  /* "line 4, column 3: expected ':'" */
	struct buf key, value;          /* strings with escapes, decoded */
};

void json_pull_init(struct json_pull *r, const char *text, size_t len, bool jsonc);
void json_pull_release(struct json_pull *r);

/* The next value's first character ('{', '[', '"', or the first of a number or literal), or 0 at the end or an error. */
char json_pull_peek(struct json_pull *r);
/* Enter the object (array) that comes next: false when it is not one, or on an error. */
bool json_pull_object(struct json_pull *r);
bool json_pull_array(struct json_pull *r);
/* The next member's key, the reader at its value; false past the last one (the object is left) or on an error. */
bool json_pull_member(struct json_pull *r, struct span *key);
/* Whether another item comes, the reader at it; false past the last one (the array is left) or on an error. */
bool json_pull_item(struct json_pull *r);
/* The string that comes next, escapes decoded (valid until the next string); false when it is not a string. */
bool json_pull_string(struct json_pull *r, struct span *out);
/* Pass over the value that comes next, whatever it is. */
void json_pull_skip(struct json_pull *r);
/* Whether only blanks (and comments) are left. */
bool json_pull_end(struct json_pull *r);
/* Stop with an error at the reader's place (the first one is kept). */
void json_pull_fail(struct json_pull *r, const char *what);

#endif
