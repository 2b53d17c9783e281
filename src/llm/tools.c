/* The tools a question offers, and the model's calls run within bounds (tools.h). */
#include "tools.h"
#include "array.h"
#include "provider.h"
#include "secret.h"
#include "status.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const use_names[] = { "none", "not taken", "refused", "offered" };

const char *ask_tools_use_name(enum ask_tools_use use)
{
	return (unsigned)use < sizeof(use_names) / sizeof(use_names[0]) ? use_names[use] : "unknown";
}

/* --- the set --------------------------------------------------------------- */

static bool name_ok(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (!n || n > TOOLS_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-'))
			return false;
	return true;
}

static int bound_int(int value, int fallback, int max)
{
	return value <= 0 ? fallback : value > max ? max : value;
}

static size_t bound_size(size_t value, size_t fallback, size_t max)
{
	return value == 0 ? fallback : value > max ? max : value;
}

static void limits_fill(struct ask_tool_limits *out, const struct ask_tool_limits *in)
{
	out->turns = bound_int(in->turns, TOOLS_TURNS_DEFAULT, TOOLS_TURNS_MAX);
	out->calls = bound_int(in->calls, TOOLS_CALLS_DEFAULT, TOOLS_CALLS_MAX);
	out->bytes_max = bound_size(in->bytes_max, TOOLS_BYTES_DEFAULT, TOOLS_BYTES_MAX);
	out->result_max = bound_size(in->result_max, TOOLS_RESULT_DEFAULT, out->bytes_max);
	/* Room for the note a cut result ends with. */
	if (out->result_max < 256)
		out->result_max = 256;
}

/* One definition copied, its schema parsed; RL_EUSAGE names what is wrong. */
static int def_copy(struct tool_def *out, const struct ask_tool *in, size_t i)
{
	json_error_t jerr;

	if (!name_ok(in->name))
		return error_set(RL_EUSAGE, "tool %zu: its name '%.80s' is not 1 to %d letters, digits, '_' or '-'",
				 i + 1, in->name ? in->name : "", TOOLS_NAME_MAX);
	if (!in->parameters || !(out->parameters = json_loads(in->parameters, 0, &jerr)))
		return error_set(RL_EUSAGE, "tool '%s': its parameters are not JSON: %s (line %d)", in->name,
				 in->parameters ? jerr.text : "none given", in->parameters ? jerr.line : 0);
	if (!json_is_object(out->parameters))
		return error_set(RL_EUSAGE, "tool '%s': its parameters are not a JSON schema object", in->name);
	if (!(out->name = strdup(in->name)) || !(out->description = strdup(in->description ? in->description : "")))
		return error_nomem();
	return 0;
}

static int set_check(const struct ask_tools *spec, const char *answer)
{
	size_t i, j;

	if (!spec->run || !spec->tools || !spec->ntools)
		return error_set(RL_EUSAGE, "a tool set needs tools and a function that runs them");
	if (spec->ntools > TOOLS_MAX)
		return error_set(RL_EUSAGE, "%zu tools: a question offers at most %d", spec->ntools, TOOLS_MAX);
	for (i = 0; i < spec->ntools; i++) {
		const char *name = spec->tools[i].name;

		for (j = 0; name && j < i; j++)
			if (spec->tools[j].name && !strcmp(spec->tools[j].name, name))
				return error_set(RL_EUSAGE, "two tools are named '%.80s'", name);
		if (name && answer && !strcmp(name, answer))
			return error_set(RL_EUSAGE, "tool '%.80s' has the name of the answer's tool", name);
	}
	return 0;
}

int tool_set_new(struct tool_set **out, const struct ask_tools *spec, const char *answer)
{
	struct tool_set *set;
	size_t i;
	int error;

	*out = NULL;
	if ((error = set_check(spec, answer)) < 0)
		return error;
	if (!(set = calloc(1, sizeof(*set))) || !(set->defs = calloc(spec->ntools, sizeof(*set->defs)))) {
		free(set);
		return error_nomem();
	}
	set->count = spec->ntools;
	set->run = spec->run;
	set->ctx = spec->ctx;
	limits_fill(&set->limits, &spec->limits);
	for (i = 0; i < spec->ntools; i++)
		if ((error = def_copy(&set->defs[i], &spec->tools[i], i)) < 0)
			goto fail;
	if (spec->state && !(set->state = strdup(spec->state))) {
		error = error_nomem();
		goto fail;
	}
	*out = set;
	return 0;
fail:
	tool_set_free(set);
	return error;
}

void tool_set_free(struct tool_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->count; i++) {
		free(set->defs[i].name);
		free(set->defs[i].description);
		json_decref(set->defs[i].parameters);
	}
	free(set->defs);
	free(set->state);
	free(set);
}

int tool_set_identity(struct buf *out, const struct tool_set *set)
{
	size_t i;
	int error = 0;

	for (i = 0; i < set->count && !error; i++) {
		char *schema = json_dumps(set->defs[i].parameters, JSON_COMPACT | JSON_SORT_KEYS);

		error = schema ? buf_printf(out, "%s\x1f%s\x1f%s\x1f", set->defs[i].name, set->defs[i].description,
					    schema) : error_nomem();
		free(schema);
	}
	if (!error)
		error = buf_printf(out, "turns %d, calls %d, result %zu, bytes %zu\x1f%s", set->limits.turns,
				   set->limits.calls, set->limits.result_max, set->limits.bytes_max,
				   set->state ? set->state : "");
	return error;
}

/* --- a turn -------------------------------------------------------------- */

static const struct tool_def *def_find(const struct tool_set *set, const char *name)
{
	size_t i;

	for (i = 0; name && i < set->count; i++)
		if (!strcmp(set->defs[i].name, name))
			return &set->defs[i];
	return NULL;
}

static bool id_used(const struct conversation *conv, const struct turn *t, size_t n, const char *id)
{
	size_t i, j;

	for (i = 0; i < conv->nturns; i++)
		for (j = 0; j < conv->turns[i].ncalls; j++)
			if (!strcmp(conv->turns[i].calls[j].id, id))
				return true;
	for (j = 0; j < n; j++)
		if (!strcmp(t->calls[j].id, id))
			return true;
	return false;
}

/*
 * The call's id: the model's, or revline's own when it gave none or one
 * an earlier call has (servers that number their calls from 0 each turn),
 * so that each result answers one call.
 */
static int call_id(struct turn_call *c, const struct conversation *conv, const struct turn *t, size_t n,
		   const struct reading_call *rc, int turn)
{
	char own[48];

	if (rc->id && !id_used(conv, t, n, rc->id))
		return (c->id = strdup(rc->id)) ? 0 : error_nomem();
	snprintf(own, sizeof(own), "revline_call_%d_%zu", turn, n + 1);
	return (c->id = strdup(own)) ? 0 : error_nomem();
}

/* The arguments: a JSON object, or why not (the call is then not run). */
static const char *call_input(struct turn_call *c, const struct reading_call *rc, char *why, size_t size)
{
	json_error_t jerr;
	json_t *input = NULL;
	size_t len = rc->arguments.len;

	if (rc->cut)
		snprintf(why, size, "its arguments are longer than %zu bytes: not run", TOOLS_ARGS_MAX);
	else if (!len)
		input = json_object();
	else if (!(input = json_loadb(rc->arguments.ptr, len, 0, &jerr)))
		snprintf(why, size, "its arguments are not JSON (%.80s, at character %d): not run; give a "
			 "JSON object", jerr.text, jerr.position);
	else if (!json_is_object(input))
		snprintf(why, size, "its arguments are not a JSON object: not run");
	if (input && !json_is_object(input)) {
		json_decref(input);
		input = NULL;
	}
	c->input = input ? input : json_object();
	c->arguments = input && len ? strndup(rc->arguments.ptr, len) : strdup("{}");
	return input ? NULL : why;
}

/* What the model reads of a result: valid UTF-8, at most max bytes, saying when it was cut. */
static int result_take(struct turn_call *c, const struct tool_output *o, size_t max)
{
	char note[96];
	size_t n = o->text.len, keep = n;

	if (n > max) {
		snprintf(note, sizeof(note), "\n[cut: the result is longer than %zu bytes]", max);
		keep = max > strlen(note) ? max - strlen(note) : 0;
		/* Not in the middle of a character. */
		while (keep && ((unsigned char)o->text.ptr[keep] & 0xC0) == 0x80)
			keep--;
	}
	if (utf8_sanitize(&c->result, o->text.ptr ? o->text.ptr : "", keep) < 0 ||
	    (n > max && buf_puts(&c->result, note) < 0) ||
	    (!c->result.len && buf_puts(&c->result, "(empty)") < 0))
		return error_nomem();
	/* A file read may hold a key revline knows: it leaves as no other text does. */
	secret_redact(&c->result);
	c->error = o->error;
	return 0;
}

/* Whether the model wrote more than blanks beside its calls (Anthropic refuses a blank text block). */
static bool has_words(const struct buf *text)
{
	size_t i;

	for (i = 0; i < text->len; i++)
		if (!strchr(" \t\r\n", text->ptr[i]))
			return true;
	return false;
}

struct turn_state {
	const struct tool_set *set;
	size_t *used;
	int ran;
	char spent[128];        /* what a call past the bytes' bound is told */
};

/* Run one call, or say why it is not run. */
static int call_run(struct turn_call *c, struct turn_state *st, const char *why)
{
	const struct tool_set *set = st->set;
	struct tool_output o = { BUF_INIT, false };
	char text[192];
	size_t left = set->limits.bytes_max - *st->used;
	int error;

	if (!why && !def_find(set, c->name))
		why = "no such tool: not run";
	if (!why && st->ran >= set->limits.calls) {
		snprintf(text, sizeof(text), "not run: at most %d calls are run a turn; call it again in the next "
			 "turn if it is still needed", set->limits.calls);
		why = text;
	}
	if (!why && !left)
		why = st->spent;
	if (why) {
		c->error = true;
		return buf_puts(&c->result, why);
	}
	st->ran++;
	if ((error = set->run(&o, set->ctx, c->name, c->input,
			      left < set->limits.result_max ? left : set->limits.result_max)) == 0)
		error = result_take(c, &o, left < set->limits.result_max ? left : set->limits.result_max);
	buf_release(&o.text);
	if (error < 0)
		return error;
	*st->used += c->result.len;
	return 0;
}

static int log_add(struct tool_log *log, const struct turn_call *c, const struct reading_call *rc, int turn,
		   bool ran)
{
	struct ask_tool_call *r;
	struct buf args = BUF_INIT;
	size_t n = rc->arguments.len < TOOLS_ARGS_SHOWN ? rc->arguments.len : TOOLS_ARGS_SHOWN;
	int error;

	if ((error = ARRAY_GROW(log->calls, log->alloc, log->count + 1)) < 0)
		return error;
	r = &log->calls[log->count];
	memset(r, 0, sizeof(*r));
	r->turn = turn;
	r->result_bytes = c->result.len;
	r->ran = ran;
	r->error = c->error;
	if (utf8_sanitize(&args, rc->arguments.ptr ? rc->arguments.ptr : "", n) < 0 ||
	    !(r->name = strndup(rc->name ? rc->name : "", TOOLS_NAME_MAX)) ||
	    (c->error && !(r->message = strndup(c->result.ptr ? c->result.ptr : "", 512)))) {
		buf_release(&args);
		free(r->name);
		return error_nomem();
	}
	r->arguments = buf_detach(&args);
	if (!r->arguments && !(r->arguments = strdup(""))) {
		free(r->name);
		free(r->message);
		return error_nomem();
	}
	log->count++;
	return 0;
}

static void turn_release(struct turn *t)
{
	size_t i;

	for (i = 0; i < t->ncalls; i++) {
		free(t->calls[i].id);
		free(t->calls[i].name);
		free(t->calls[i].arguments);
		json_decref(t->calls[i].input);
		buf_release(&t->calls[i].result);
	}
	free(t->calls);
	free(t->text);
}

static size_t turn_bytes(const struct turn *t)
{
	size_t i, n = t->text ? strlen(t->text) : 0;

	for (i = 0; i < t->ncalls; i++)
		n += strlen(t->calls[i].id) + strlen(t->calls[i].name) + strlen(t->calls[i].arguments) +
			t->calls[i].result.len + 64;
	return n;
}

/* One call of the answer into the turn: its id, name, arguments, result. */
static int call_add(struct turn *t, struct turn_state *st, const struct conversation *conv,
		    const struct reading_call *rc, int turn)
{
	struct turn_call *c = &t->calls[t->ncalls];
	char why[256];
	const char *not_run;
	int error, ran;

	memset(c, 0, sizeof(*c));
	if ((error = call_id(c, conv, t, t->ncalls, rc, turn)) < 0)
		return error;
	t->ncalls++;
	if (!(c->name = strndup(rc->name ? rc->name : "", TOOLS_NAME_MAX * 2)))
		return error_nomem();
	not_run = call_input(c, rc, why, sizeof(why));
	if (!c->arguments)
		return error_nomem();
	ran = st->ran;
	if ((error = call_run(c, st, not_run)) < 0 || st->ran > ran)
		return error;
	/*
	 * A call not run is sent back with {}: its error says why, and a
	 * model that makes a hundred long calls a turn does not have them
	 * all repeated in every later request.
	 */
	free(c->arguments);
	json_decref(c->input);
	c->input = json_object();
	return (c->arguments = strdup("{}")) && c->input ? 0 : error_nomem();
}

int tool_turn_run(struct conversation *conv, struct tool_log *log, const struct tool_set *set,
		  struct reading *r, int turn, size_t *used)
{
	struct turn t = { NULL, NULL, 0 };
	struct turn_state st = { set, used, 0, "" };
	size_t i;
	int error = 0;

	snprintf(st.spent, sizeof(st.spent), "not run: the %zu bytes of tool results a question may read "
		 "are used up", set->limits.bytes_max);
	if ((has_words(&r->text) && !(t.text = strndup(r->text.ptr, r->text.len))) ||
	    (r->ncalls && !(t.calls = calloc(r->ncalls, sizeof(*t.calls)))) ||
	    ARRAY_GROW(conv->turns, conv->alloc, conv->nturns + 1) < 0) {
		turn_release(&t);
		return error_nomem();
	}
	for (i = 0; i < r->ncalls && !error; i++) {
		bool ran;
		int before = st.ran;

		error = call_add(&t, &st, conv, &r->calls[i], turn);
		ran = st.ran > before;
		if (!error)
			error = log_add(log, &t.calls[t.ncalls - 1], &r->calls[i], turn, ran);
	}
	log->dropped += r->calls_dropped;
	if (error < 0) {
		turn_release(&t);
		return error;
	}
	conv->bytes += turn_bytes(&t);
	conv->turns[conv->nturns++] = t;
	return 0;
}

int conversation_note(struct conversation *conv, const char *why)
{
	struct buf note = BUF_INIT;

	free(conv->note);
	conv->note = NULL;
	if (buf_printf(&note, "revline: %s was reached, so no more tool calls will be run. Give your final "
		       "answer now, from what you have read.", why) < 0)
		return error_nomem();
	conv->note = buf_detach(&note);
	conv->bytes += strlen(conv->note);
	return 0;
}

void conversation_release(struct conversation *conv)
{
	size_t i;

	for (i = 0; i < conv->nturns; i++)
		turn_release(&conv->turns[i]);
	free(conv->turns);
	free(conv->note);
	memset(conv, 0, sizeof(*conv));
}

void ask_tool_calls_free(struct ask_tool_call *calls, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(calls[i].name);
		free(calls[i].arguments);
		free(calls[i].message);
	}
	free(calls);
}

void tool_log_take(struct ask_tool_call **out, size_t *count, struct tool_log *log)
{
	*out = log->calls;
	*count = log->count;
	memset(log, 0, sizeof(*log));
}

void tool_log_release(struct tool_log *log)
{
	ask_tool_calls_free(log->calls, log->count);
	memset(log, 0, sizeof(*log));
}
