#ifndef REVLINE_BODY_SPLICE_H
#define REVLINE_BODY_SPLICE_H

#include <stddef.h>

#include "provider.h"

/*
 * A request body whose shared part (the same in every request of one part
 * of a check: most of each body) is encoded as a JSON string once and
 * spliced into each body (the last BODY_SPLICE_KEEP parts kept), instead of jansson copying, checking and
 * escaping it again for every rule. The body is built with a placeholder
 * in its place: a token of 32 random hexadecimal digits drawn once per
 * splice (no text of a repository can know it), which the body must hold
 * exactly once, else the body is built whole as before. The result is
 * byte for byte the body jansson builds (json_dumps, JSON_COMPACT).
 */
/* Shared parts kept encoded: a check's parts are asked in turns (the first
 * question of each warms the cache), so the last one alone would miss. */
#define BODY_SPLICE_KEEP 8

struct body_splice_part {
	char *raw;              /* a shared part, */
	size_t raw_len;
	char *encoded;          /* and its JSON string's text, without the quotes */
	size_t encoded_len;
};

struct body_splice {
	char token[48];         /* "revline-splice-" and 32 hexadecimal digits */
	struct body_splice_part parts[BODY_SPLICE_KEEP];
	size_t next;            /* the part replaced next, the oldest */
};

/* Shared parts shorter than this are built whole: splicing would not pay. */
#define BODY_SPLICE_MIN 4096

int body_splice_init(struct body_splice *s);
void body_splice_release(struct body_splice *s);

/*
 * *out (malloc'ed, NUL-terminated, *out_len bytes): the provider's body of
 * q, json_dumps'ed compact. s may be NULL (no splicing).
 */
int body_splice_build(char **out, size_t *out_len, struct body_splice *s, const struct provider_ops *ops,
		      const struct question *q);

#endif
