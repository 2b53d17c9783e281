/*
 * libFuzzer target: an answer's body as a server may send it, whole (JSON)
 * or streamed (server-sent events), read by both providers' readers
 * (ask_read_body with the OpenAI and the Anthropic ops). Nothing may
 * crash, read past the bytes given or leak; an answer read has a text
 * and counts that are never negative, and a failure says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reading(const struct reading *r)
{
	const struct usage *u = &r->usage;

	if (!r->text.ptr && r->text.len)
		abort();
	if (r->text.ptr && strlen(r->text.ptr) > r->text.len)
		abort();
	if (u->tokens_in < 0 || u->tokens_cached < 0 || u->tokens_cache_write < 0 || u->tokens_out < 0)
		abort();
}

static void read_with(const struct provider_ops *ops, const char *body, size_t size)
{
	struct reading r;
	int error = ask_read_body(&r, ops, body, size);

	if (error == 0)
		check_reading(&r);
	else if (error > 0 || !error_message()[0])
		abort();
	reading_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact copy, not NUL-terminated: the readers must keep within size. */
	char *body = malloc(size ? size : 1);

	if (!body)
		return 0;
	memcpy(body, data, size);
	read_with(&provider_openai, body, size);
	read_with(&provider_anthropic, body, size);
	free(body);
	return 0;
}
