/*
 * A request body's shared part encoded once and spliced in (body_splice.h).
 */
#include "body_splice.h"
#include "status.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int body_splice_init(struct body_splice *s)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char bytes[16];
	size_t i, got = 0;

	memset(s, 0, sizeof(*s));
	while (got < sizeof(bytes)) {
		ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return error_set(RL_ERROR, "no random bytes for the request bodies: %s", strerror(errno));
		got += (size_t)n;
	}
	memcpy(s->token, "revline-splice-", 15);
	for (i = 0; i < sizeof(bytes); i++) {
		s->token[15 + 2 * i] = hex[bytes[i] >> 4];
		s->token[16 + 2 * i] = hex[bytes[i] & 15];
	}
	s->token[15 + 2 * sizeof(bytes)] = '\0';
	return 0;
}

static void part_release(struct body_splice_part *p)
{
	free(p->raw);
	free(p->encoded);
	memset(p, 0, sizeof(*p));
}

void body_splice_release(struct body_splice *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < BODY_SPLICE_KEEP; i++)
		part_release(&s->parts[i]);
	s->next = 0;
}

/* The body built whole by jansson. */
static int body_whole(char **out, size_t *out_len, const struct provider_ops *ops, const struct question *q)
{
	json_t *body = NULL;
	int error;

	*out = NULL;
	if ((error = ops->body(&body, q)) < 0)
		return error;
	*out = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!*out)
		return error_set(RL_ERROR, "cannot build the request (is the prompt valid UTF-8?)");
	*out_len = strlen(*out);
	return 0;
}

/*
 * *out: the shared part's JSON text, as json_dumps writes it inside a body
 * (utf8_json_text: the same bytes, ten times faster than jansson's), encoded once.
 */
static int shared_encode(const struct body_splice_part **out, struct body_splice *s, const char *shared,
			 size_t len)
{
	struct body_splice_part *p;
	struct buf text = BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < BODY_SPLICE_KEEP; i++) {
		p = &s->parts[i];
		if (p->raw && p->raw_len == len && !memcmp(p->raw, shared, len)) {
			*out = p;
			return 0;
		}
	}
	p = &s->parts[s->next];
	part_release(p);
	/* Not UTF-8: built whole, which says so. */
	if ((error = utf8_json_text(&text, shared, len)) < 0 || !text.ptr || !(p->raw = malloc(len + 1))) {
		buf_release(&text);
		return error < 0 ? error : error_nomem();
	}
	memcpy(p->raw, shared, len + 1);
	p->raw_len = len;
	p->encoded_len = text.len;
	p->encoded = buf_detach(&text);
	s->next = (s->next + 1) % BODY_SPLICE_KEEP;
	*out = p;
	return 0;
}

/* Where the token is in body when it is there exactly once, else NULL. */
static const char *token_once(const char *body, const char *token)
{
	const char *at = strstr(body, token);

	return at && !strstr(at + 1, token) ? at : NULL;
}

int body_splice_build(char **out, size_t *out_len, struct body_splice *s, const struct provider_ops *ops,
		      const struct question *q)
{
	const struct body_splice_part *part = NULL;
	struct question held;
	size_t len = q->shared ? strlen(q->shared) : 0, token_len, body_len, total;
	char *body = NULL, *spliced;
	const char *at;
	int error;

	*out = NULL;
	*out_len = 0;
	if (!s || len < BODY_SPLICE_MIN || shared_encode(&part, s, q->shared, len) < 0) {
		error_clear();
		return body_whole(out, out_len, ops, q);
	}
	held = *q;
	held.shared = s->token;
	if ((error = body_whole(&body, &body_len, ops, &held)) < 0)
		return error;
	if (!(at = token_once(body, s->token))) {
		free(body);
		return body_whole(out, out_len, ops, q);
	}
	token_len = strlen(s->token);
	total = body_len - token_len + part->encoded_len;
	if (!(spliced = malloc(total + 1))) {
		free(body);
		return error_nomem();
	}
	memcpy(spliced, body, (size_t)(at - body));
	memcpy(spliced + (at - body), part->encoded, part->encoded_len);
	memcpy(spliced + (at - body) + part->encoded_len, at + token_len, body_len - (size_t)(at - body) - token_len + 1);
	free(body);
	*out = spliced;
	*out_len = total;
	return 0;
}
