/*
 * An answer's body read (provider.h): whole JSON or server-sent events,
 * each event handed to the provider's reader; the tool calls assembled
 * from their pieces, within bounds.
 */
#include "provider.h"
#include "array.h"
#include "status.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int reading_call_at(struct reading_call **out, struct reading *r, long index)
{
	struct reading_call *c;
	size_t i;
	int error;

	*out = NULL;
	/* The last one is the usual: a stream's pieces come in order. */
	for (i = r->ncalls; i-- > 0;)
		if (r->calls[i].index == index) {
			*out = &r->calls[i];
			return 0;
		}
	if (r->ncalls >= READING_CALLS_MAX) {
		/* A stream's calls come in order, each in many pieces: count each once. */
		if (!r->calls_dropped || index > r->dropped_index) {
			r->calls_dropped++;
			r->dropped_index = index;
		}
		return 0;
	}
	if ((error = ARRAY_GROW(r->calls, r->calls_alloc, r->ncalls + 1)) < 0)
		return error;
	c = &r->calls[r->ncalls++];
	memset(c, 0, sizeof(*c));
	c->index = index;
	*out = c;
	return 0;
}

static int set_once(char **field, const char *value)
{
	if (*field || !value || !*value)
		return 0;
	if (!(*field = strndup(value, TOOLS_NAME_MAX * 2)))
		return error_nomem();
	return 0;
}

int reading_call_name(struct reading_call *call, const char *id, const char *name)
{
	int error = set_once(&call->id, id);

	return error ? error : set_once(&call->name, name);
}

int reading_call_append(struct reading_call *call, const char *piece, size_t len)
{
	if (call->cut)
		return 0;
	if (len > TOOLS_ARGS_MAX - call->arguments.len) {
		call->cut = true;
		len = TOOLS_ARGS_MAX - call->arguments.len;
	}
	return buf_put(&call->arguments, piece, len);
}

void reading_release(struct reading *r)
{
	size_t i;

	buf_release(&r->text);
	free(r->error);
	for (i = 0; i < r->ncalls; i++) {
		free(r->calls[i].id);
		free(r->calls[i].name);
		buf_release(&r->calls[i].arguments);
	}
	free(r->calls);
	memset(r, 0, sizeof(*r));
}

/* One "data:" payload of a stream. */
static int read_event(struct reading *r, const struct provider_ops *ops, const char *event,
		      const char *data, size_t len)
{
	json_t *value;
	int error;

	if (len == 6 && !memcmp(data, "[DONE]", 6))
		return 0;
	if (!(value = json_loadb(data, len, 0, NULL)))
		return error_set(RL_EPARSE, "the stream holds an event that is not JSON: \"%.*s\"",
				 (int)(len < 60 ? len : 60), data);
	error = ops->event(r, event, value);
	json_decref(value);
	return error;
}

/* Server-sent events: "event:" and "data:" lines, a blank line between events. */
static int read_stream(struct reading *r, const struct provider_ops *ops, const char *body, size_t len)
{
	const char *p = body, *end = body + len;
	char event[64] = "";
	int error = 0;

	while (p < end && !error) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (!n) {
			event[0] = '\0';
		} else if (n > 6 && !memcmp(p, "event:", 6)) {
			size_t skip = p[6] == ' ' ? 7 : 6;

			snprintf(event, sizeof(event), "%.*s", (int)(n - skip), p + skip);
		} else if (n >= 5 && !memcmp(p, "data:", 5)) {
			size_t skip = n > 5 && p[5] == ' ' ? 6 : 5;

			error = read_event(r, ops, event[0] ? event : NULL, p + skip, n - skip);
		}
		p = nl ? nl + 1 : end;
	}
	return error;
}

int reading_read(struct reading *out, const struct provider_ops *ops, const char *body, size_t len)
{
	size_t skip = 0;
	json_t *root;
	int error;

	memset(out, 0, sizeof(*out));
	while (skip < len && (body[skip] == ' ' || body[skip] == '\n' || body[skip] == '\r'))
		skip++;
	if (skip == len || body[skip] != '{') {
		if (!(skip + 5 <= len && !memcmp(body + skip, "data:", 5)) && !memmem(body, len, "\ndata:", 6) &&
		    !(skip + 6 <= len && !memcmp(body + skip, "event:", 6)))
			return error_set(RL_EPARSE, "the server's answer is not JSON: \"%.*s\"",
					 (int)(len - skip < 100 ? len - skip : 100), body + skip);
		if ((error = read_stream(out, ops, body, len)) < 0)
			return error;
		return out->text.len || out->ncalls ? 0 :
			error_set(RL_EPARSE, "the streamed answer ended without any text");
	}
	/* A server that does not stream answers whole. */
	if (!(root = json_loadb(body + skip, len - skip, 0, NULL)))
		return error_set(RL_EPARSE, "the server's answer is not JSON: \"%.*s\"",
				 (int)(len - skip < 80 ? len - skip : 80), body + skip);
	error = ops->whole(out, root);
	json_decref(root);
	return error;
}
