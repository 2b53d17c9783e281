/* What servers refuse of a model, read from their 400s and remembered (refusal.h). */
#include "refusal.h"
#include "array.h"
#include "status.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct quirk {
	char *model;
	unsigned refused;
};

static const char *const refused_names[] = {
#define REFUSED_NAME(id, name) name,
	REFUSED_LIST(REFUSED_NAME)
#undef REFUSED_NAME
};

/* --- remembered per server and model -------------------------------------- */

static struct quirk *quirk_find(struct refusal_memory *m, const char *model)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->quirks[i].model, model))
			return &m->quirks[i];
	return NULL;
}

static unsigned refused_from_names(const char *names)
{
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < REFUSED_COUNT; i++) {
		size_t n = strlen(refused_names[i]);
		const char *p = names;

		while ((p = strstr(p, refused_names[i]))) {
			if ((p == names || p[-1] == ',') && (p[n] == ',' || !p[n]))
				bits |= 1u << i;
			p += n;
		}
	}
	return bits;
}

unsigned refusal_get(struct refusal_memory *m, struct store *store, const char *server, const char *model)
{
	struct quirk *found = quirk_find(m, model);
	struct buf names = BUF_INIT;
	unsigned bits = 0;

	if (found)
		return found->refused;
	if (store && store_refusals_get(&names, store, server, model) == 0 && names.len)
		bits = refused_from_names(names.ptr);
	buf_release(&names);
	if (ARRAY_GROW(m->quirks, m->alloc, m->count + 1) == 0 && (m->quirks[m->count].model = strdup(model)))
		m->quirks[m->count++].refused = bits;
	return bits;
}

void refusal_learn(struct refusal_memory *m, struct store *store, const char *server, const char *model,
		   unsigned bit)
{
	struct quirk *q;
	size_t i;

	refusal_get(m, store, server, model);
	if ((q = quirk_find(m, model)))
		q->refused |= bit;
	for (i = 0; i < REFUSED_COUNT; i++)
		if (bit == 1u << i && store)
			store_refusal_put(store, server, model, refused_names[i]);
}

void refusal_memory_release(struct refusal_memory *m)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		free(m->quirks[i].model);
	free(m->quirks);
	memset(m, 0, sizeof(*m));
}

/* --- reading a refusal ------------------------------------------------------ */

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether text names word as a word of its own ('stream', not 'streaming' nor 'stream_options'). */
static bool names_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while (text && (p = strcasestr(p, word))) {
		if ((p == text || !is_word_char(p[-1])) && !is_word_char(p[n]))
			return true;
		p += n;
	}
	return false;
}

static bool names_structured(const char *text)
{
	return strcasestr(text, "response_format") || strcasestr(text, "json_schema") ||
		strcasestr(text, "json_object") || strcasestr(text, "json mode") ||
		strcasestr(text, "tool_choice") || names_word(text, "tools");
}

/*
 * A server that takes no tools: OpenAI's param "tools" or "tool_choice",
 * Ollama's "MODEL does not support tools", vLLM's '"auto" tool choice
 * requires --enable-auto-tool-choice', and the like.
 */
static bool names_tools(const char *text)
{
	return names_word(text, "tools") || names_word(text, "tool_choice") || strcasestr(text, "tool choice") ||
		strcasestr(text, "tool use") || strcasestr(text, "tool call") || strcasestr(text, "function call") ||
		names_word(text, "functions");
}

/* The parameters a question sends, as refused bits. */
static unsigned sent_bits(const struct question *q, bool tools_sent)
{
	unsigned bits = 0;

	bits |= q->temperature ? BIT(REFUSED_TEMPERATURE) : 0;
	bits |= !strcmp(q->cap_param, "max_tokens") ? BIT(REFUSED_MAX_TOKENS) :
		BIT(REFUSED_MAX_COMPLETION_TOKENS);
	bits |= q->effort ? BIT(REFUSED_EFFORT) : 0;
	bits |= q->cache_key ? BIT(REFUSED_CACHE_KEY) : 0;
	bits |= q->stream && q->stream_usage ? BIT(REFUSED_STREAM_OPTIONS) : 0;
	bits |= q->stream ? BIT(REFUSED_STREAM) : 0;
	bits |= q->shared && q->cache_breakpoint ? BIT(REFUSED_CACHE_CONTROL) : 0;
	bits |= tools_sent ? BIT(REFUSED_TOOLS) : 0;
	return bits;
}

/*
 * The structured output is named in many ways ('response_format.type'
 * must be 'json_schema' or 'text', said LM Studio of a json_object):
 * whatever the words, it is the mode that was sent that is refused. Tools
 * are matched before it: a server that takes no tools may name them with
 * the words a forced tool's refusal uses.
 */
unsigned refusal_of(const struct question *q, bool tools_sent, long http, const char *body, size_t len)
{
	json_t *root, *err;
	const char *param = NULL, *msg = NULL;
	unsigned sent = sent_bits(q, tools_sent), found = 0;
	size_t i;

	if ((http != 400 && http != 422) || !body)
		return 0;
	root = json_loadb(body, len, 0, NULL);
	err = json_object_get(root, "error");
	param = json_string_value(json_object_get(err, "param"));
	msg = json_is_string(err) ? json_string_value(err) :
		json_string_value(json_object_get(json_is_object(err) ? err : root, "message"));
	if (!msg)
		msg = json_is_string(json_object_get(root, "detail")) ?
			json_string_value(json_object_get(root, "detail")) : NULL;
	for (i = 0; i < REFUSED_COUNT && !found; i++)
		if ((sent & (1u << i)) && param && !strcmp(param, refused_names[i]))
			found = 1u << i;
	if (!found && tools_sent && ((param && names_tools(param)) || (msg && names_tools(msg))))
		found = BIT(REFUSED_TOOLS);
	if (!found && q->structured != MODEL_STRUCTURED_NONE &&
	    ((param && names_structured(param)) || (msg && names_structured(msg))))
		found = q->structured == MODEL_STRUCTURED_JSON_SCHEMA ? BIT(REFUSED_JSON_SCHEMA) :
			BIT(REFUSED_JSON_OBJECT);
	for (i = 0; i < REFUSED_COUNT && !found && msg; i++)
		if ((sent & (1u << i)) && names_word(msg, refused_names[i]))
			found = 1u << i;
	json_decref(root);
	return found;
}
