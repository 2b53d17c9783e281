/*
 * A check's context phase: the repository index of both sides of the
 * target built beside the dependency phase, in the check's poll group, then
 * the context pack (pack.h) made once, and each part of the change given
 * its share of it. The rules start when both phases are done.
 */
#include "check_state.h"
#include "array.h"
#include "clock.h"
#include "config.h"
#include "index.h"
#include "status.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The longest the indexes may take before the rules start with what they have. */
#define CONTEXT_BUILD_MS 10000
#define CONTEXT_TOKENS_DEFAULT 1500

static const char *const mode_names[] = {
#define CONTEXT_NAME(id, name) name,
	CONTEXT_LIST(CONTEXT_NAME)
#undef CONTEXT_NAME
};

const char *check_context_mode_name(enum context_mode mode)
{
	return mode_names[mode];
}

int check_context_load(struct check_options *options, struct config *config)
{
	char *value = NULL;
	long tokens;
	size_t i;
	int error;

	options->context = CONTEXT_TOOLS;
	options->context_tokens = CONTEXT_TOKENS_DEFAULT;
	if ((error = config_get(&value, config, "revline.context")) == 0) {
		for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]) && strcasecmp(value, mode_names[i]); i++)
			;
		if (i < sizeof(mode_names) / sizeof(mode_names[0]))
			options->context = (enum context_mode)i;
		else
			error = error_set(RL_ECONFIG, "revline.context is '%.40s': it takes tools (the pack, and "
					  "read-only tools for models that take them), pack or none (the diff alone) "
					  "(git config revline.context, or REVLINE_CONTEXT)", value);
		free(value);
	}
	if (error < 0 && error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_integer(&tokens, config, "revline.contextTokens", 0, 1000000)) == 0)
		options->context_tokens = tokens;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get(&value, config, "revline.ctags")) == 0) {
		snprintf(options->ctags, sizeof(options->ctags), "%s", value);
		free(value);
	} else if (error != RL_ENOTFOUND) {
		return error;
	}
	return 0;
}

/* Whether any rule of the check asks the LLM about the change: else the context is never shown. */
static bool any_llm_rule(const struct check *c)
{
	size_t i;

	if (c->opts.llm->provider == PROVIDER_NONE)
		return false;
	for (i = 0; i < c->nstates; i++)
		if (c->states[i].result.rule->kind == RULE_LLM && c->states[i].result.rule->context != RULE_CONTEXT_NONE)
			return true;
	return false;
}

static int side_start(struct check *c, struct index **out, bool old)
{
	const int64_t deadline = c->started_ms + CONTEXT_BUILD_MS;
	struct index_options o = {
		.repo = c->repo, .target = c->target, .old_side = old,
		.store = check_storing(c) ? c->opts.store : NULL,
		.ctags = c->opts.ctags[0] ? c->opts.ctags : NULL,
		.ignore_file = c->opts.ignore_file[0] ? c->opts.ignore_file : NULL,
		.deadline_ms = deadline,
	};
	int error;

	if ((error = index_new(out, &o)) < 0)
		return error;
	return index_start(*out, c->group);
}

/*
 * Start the indexes. A failure to start them (an unreadable revline.ignore
 * is the check's own failure, said already) leaves the check without
 * context, said in its notes; the review goes on.
 */
int check_context_begin(struct check *c)
{
	struct check_context *x = &c->context;

	x->started_ms = clock_ms();
	if (c->opts.context == CONTEXT_NONE || !any_llm_rule(c)) {
		x->built = true;
		return 0;
	}
	if (side_start(c, &x->now, false) < 0 || (c->target->base_oid[0] && side_start(c, &x->before, true) < 0)) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		if (!(x->note = strdup(error_message())))
			return error_nomem();
		index_free(x->now);
		index_free(x->before);
		x->now = x->before = NULL;
		x->built = true;
	}
	return 0;
}

static bool side_done(const struct index *index)
{
	return !index || index_done(index);
}

/* The indexes' notes and failures, said once in the check's notes. */
static int context_notes(struct check *c)
{
	const struct check_context *x = &c->context;
	const struct index *sides[] = { x->now, x->before };
	char *note;
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *why = !sides[i] ? NULL : index_status(sides[i]) < 0 ? index_message(sides[i]) :
				  index_note(sides[i]);

		if (!why || (i == 1 && x->now && index_note(x->now) && !strcmp(why, index_note(x->now))))
			continue;
		if (asprintf(&note, "context: %s", why) < 0 || strings_take(&c->notes, note) < 0)
			return error_nomem();
	}
	return 0;
}

/* What the tools would read, identified once for every rule (the result cache's key of their answers). */
static int tools_state_make(struct check *c)
{
	struct buf state = BUF_INIT;
	int error;

	if (!c->context.now || index_status(c->context.now) < 0 || c->opts.context == CONTEXT_NONE)
		return 0;
	if ((error = repo_tools_identity(&state, c->context.now)) == 0 && !(c->context.tools_state = buf_detach(&state)))
		error = error_nomem();
	buf_release(&state);
	return error;
}

/* Once both indexes are done: the pack. A pack that cannot be made leaves the review without context. */
static int pack_make(struct check *c)
{
	struct check_context *x = &c->context;
	const struct pack_options o = { .deadline_ms = x->started_ms + CONTEXT_BUILD_MS };
	int error;

	x->index_ms = clock_ms() - x->started_ms;
	x->built = true;
	if ((error = context_notes(c)) < 0)
		return error;
	if (!x->now || index_status(x->now) < 0)
		return 0;
	if (pack_build(&x->pack, c->diff, x->now,
		       x->before && index_status(x->before) == 0 ? x->before : NULL, &o) < 0) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		if (!(x->note = strdup(error_message())))
			return error_nomem();
	}
	x->pack_ms = x->pack.build_ms;
	return tools_state_make(c);
}

int check_context_ready(struct check *c, bool *ready)
{
	struct check_context *x = &c->context;

	*ready = x->built;
	if (x->built)
		return 0;
	if (!side_done(x->now) || !side_done(x->before))
		return 0;
	*ready = true;
	return pack_make(c);
}

void check_context_cancel(struct check *c)
{
	if (c->context.now)
		index_cancel(c->context.now);
	if (c->context.before)
		index_cancel(c->context.before);
}

void check_context_release(struct check *c)
{
	struct check_context *x = &c->context;

	pack_release(&x->pack);
	free(x->tools_state);
	index_free(x->now);
	index_free(x->before);
	free(x->note);
	memset(x, 0, sizeof(*x));
}

size_t check_context_budget(const struct check *c)
{
	return c->context.pack.count ? (size_t)c->opts.context_tokens * 4 : 0;
}

int check_context_part(struct check *c, struct part *part)
{
	struct buf text = BUF_INIT;
	int error;

	if (!c->context.pack.count || !c->opts.context_tokens)
		return 0;
	error = pack_text(&text, &part->pack_use, &c->context.pack, part->file, part->nfiles,
			  check_context_budget(c));
	if (!error && text.len && !(part->context = buf_detach(&text)))
		error = error_nomem();
	buf_release(&text);
	return error;
}

void check_context_view(struct check_context_view *out, const struct check *c)
{
	const struct check_context *x = &c->context;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->mode = c->opts.context;
	out->built = x->built;
	out->note = x->note;
	out->index_ms = x->index_ms;
	out->pack_ms = x->pack_ms;
	out->index = x->now ? index_stats(x->now) : NULL;
	out->pack = x->pack.count || x->now ? &x->pack : NULL;
	for (i = 0; i < c->nparts; i++)
		out->left += c->parts[i].pack_use.left;
}

bool check_context_sent(const struct check *c, size_t item)
{
	size_t i, k;

	for (i = 0; i < c->nparts; i++)
		for (k = 0; k < c->parts[i].pack_use.count; k++)
			if (c->parts[i].pack_use.items[k] == item)
				return true;
	return false;
}

/* What part index carried, kept with the check (a failure to keep it is the check's store failure). */
void check_context_store(struct check *c, size_t index)
{
	const struct part *part = &c->parts[index];
	struct store_context_item *items;
	size_t i;

	if (!part->pack_use.count || !check_storing(c) || !c->id)
		return;
	if (!(items = calloc(part->pack_use.count, sizeof(*items)))) {
		check_store_failed(c);
		return;
	}
	for (i = 0; i < part->pack_use.count; i++) {
		const struct pack_item *it = &c->context.pack.items[part->pack_use.items[i]];

		items[i] = (struct store_context_item){ pack_kind_name(it->kind), it->symbol, it->path, it->first,
							 it->last, it->sites };
	}
	if (store_context_sent(c->opts.store, c->id, (int)index + 1, items, part->pack_use.count) < 0)
		check_store_failed(c);
	free(items);
}

int check_context_more(char **out, struct check *c, const struct rule_state *s, const struct part *part)
{
	struct pack_use use = { 0 };
	struct buf text = BUF_INIT;
	int error;

	*out = NULL;
	if (s->result.rule->context != RULE_CONTEXT_DEEP || !c->context.pack.count || !c->opts.context_tokens)
		return 0;
	error = pack_text_more(&text, &use, &c->context.pack, part->file, part->nfiles, check_context_budget(c),
			       &part->pack_use);
	if (!error && text.len && !(*out = buf_detach(&text)))
		error = error_nomem();
	buf_release(&text);
	pack_use_release(&use);
	return error;
}

/* A call as long as a poll-group step can wait: the tools run inside it. */
#define TOOL_CALL_MS 500

int check_context_tools(struct ask_tools *out, bool *offered, struct check *c, struct chunk *k)
{
	const struct rule *rule = c->states[k->rule].result.rule;
	struct repo_tools_options o = { .index = c->context.now, .call_ms = TOOL_CALL_MS,
					.state = c->context.tools_state };
	double left = sched_deadline_left_ms(asker_sched(c->asker));
	int error;

	*offered = false;
	repo_tools_free(k->tools);
	k->tools = NULL;
	if (!c->context.tools_state || rule->context == RULE_CONTEXT_NONE ||
	    (c->opts.context != CONTEXT_TOOLS && rule->context != RULE_CONTEXT_DEEP))
		return 0;
	if (left >= 0 && c->opts.sched.deadline > 0)
		o.deadline_ms = clock_ms() + (int64_t)left;
	if ((error = repo_tools_new(&k->tools, &o)) < 0)
		return error;
	repo_tools_ask(out, k->tools);
	*offered = true;
	return 0;
}

/* "read_file app/auth.py:40-88": where a call's model was shown what, the index's paths. */
static char *shown_text(const struct repo_tool_use *use)
{
	struct buf out = BUF_INIT;
	size_t i;

	for (i = 0; i < use->nspans && i < 16; i++)
		buf_printf(&out, "%s%s:%u-%u", i ? ", " : "", use->spans[i].path, use->spans[i].start,
			   use->spans[i].end);
	if (use->nspans > 16)
		buf_printf(&out, " and %zu more", use->nspans - 16);
	return buf_detach(&out);
}

static int read_add(struct rule_result *r, const struct ask_tool_call *call, const struct repo_tool_use *use)
{
	struct rule_read *rd;

	if (ARRAY_GROW(r->reads, r->reads_alloc, r->nreads + 1) < 0)
		return RL_ENOMEM;
	rd = &r->reads[r->nreads++];
	memset(rd, 0, sizeof(*rd));
	rd->turn = call->turn;
	rd->result_bytes = call->result_bytes;
	if (!(rd->tool = strdup(call->name ? call->name : "")) ||
	    (call->arguments && !(rd->arguments = strdup(call->arguments))) ||
	    (call->message && !(rd->error = strdup(call->message))) ||
	    (use && use->nspans && !(rd->shown = shown_text(use))))
		return error_nomem();
	return 0;
}

/* The rule's context said as the question went: tools offered, refused, or not taken by the model. */
static void context_note(struct rule_result *r, enum ask_tools_use use)
{
	const char *more = use == ASK_TOOLS_OFFERED ? ", tools" : use == ASK_TOOLS_REFUSED ? ", tools refused" : NULL;
	char *text;

	if (!more || !r->context || strstr(r->context, more))
		return;
	if (asprintf(&text, "%s%s", r->context, more) < 0)
		return;
	free(r->context);
	r->context = text;
}

void check_context_reads(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	struct rule_result *r = &c->states[k->rule].result;
	const struct repo_tool_use *log = NULL;
	size_t i, n = 0, used = 0;

	if (!k->tools)
		return;
	if (ev->status != ASK_STARTED && ev->status != ASK_PROGRESS) {
		log = repo_tools_log(k->tools, &n);
		context_note(r, ev->tools);
		for (i = 0; i < ev->ntool_calls; i++)
			if (read_add(r, &ev->tool_calls[i], ev->tool_calls[i].ran && used < n ? &log[used++] : NULL) < 0) {
				error_clear();
				break;
			}
		repo_tools_free(k->tools);
		k->tools = NULL;
	}
}

bool check_context_rule_sent(const struct check *c, size_t rule, size_t item)
{
	const struct rule_state *s;
	size_t i, k;

	if (rule >= c->nstates || c->opts.context == CONTEXT_NONE)
		return false;
	s = &c->states[rule];
	if (s->result.rule->context == RULE_CONTEXT_NONE)
		return false;
	/* A chunk's part is the change's part number (check_plan_rule), from 1. */
	for (i = 0; i < s->nchunks; i++) {
		const struct part *part;

		if (s->chunks[i]->part < 1 || (size_t)s->chunks[i]->part > c->nparts)
			continue;
		part = &c->parts[s->chunks[i]->part - 1];
		for (k = 0; k < part->pack_use.count; k++)
			if (part->pack_use.items[k] == item)
				return true;
	}
	return false;
}

/* A character a path may hold, so that a path named in prose is told from a longer one. */
static bool path_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_' || ch == '-' || ch == '/';
}

/* Whether text names path as a word of its own ("web/api.py:6", "`web/api.py`", not "api.pyc"). */
static bool path_named(const char *text, const char *path)
{
	size_t n = strlen(path);
	const char *p;

	for (p = text; n && p && (p = strstr(p, path)); p++)
		if ((p == text || (!path_char(p[-1]) && p[-1] != '.')) && !path_char(p[n]) &&
		    !(p[n] == '.' && path_char(p[n + 1])))
			return true;
	return false;
}

bool check_context_path_concerns(const char *path, const struct finding *f)
{
	const char *const said[] = { f->title, f->issue, f->suggestion, f->evidence.method,
				     f->evidence.where_checked, f->evidence.code_examined };
	size_t i;

	if (!path || !*path)
		return false;
	if (f->file && !strcmp(path, f->file))
		return true;
	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if (said[i] && path_named(said[i], path))
			return true;
	return false;
}

bool check_context_item_concerns(const struct check *c, size_t item, const struct finding *f)
{
	const struct pack_item *it;

	if (item >= c->context.pack.count)
		return false;
	it = &c->context.pack.items[item];
	if (check_context_path_concerns(it->path, f))
		return true;
	/* Shown for the finding's file: its callers, the function around its hunk, what it uses. */
	return f->file && it->origin < c->diff->nfiles && !strcmp(c->diff->files[it->origin].path, f->file);
}

static const char *read_string(const json_t *args, const char *key)
{
	const char *s = json_string_value(json_object_get(args, key));

	return s && *s ? s : NULL;
}

/* read_file's " app/auth.py:40-88"; search's " 'verify\(' in *.py"; references' " verify". */
static int read_args_text(struct buf *out, struct buf *path, const char *tool, const json_t *args)
{
	const json_t *start = json_object_get(args, "start"), *end = json_object_get(args, "end");
	int error = 0;

	if (!strcmp(tool, "read_file") && read_string(args, "path")) {
		if (path)
			error = buf_puts(path, read_string(args, "path"));
		if (!error)
			error = buf_printf(out, " %s", read_string(args, "path"));
		if (!error && json_is_integer(start))
			error = buf_printf(out, ":%lld", (long long)json_integer_value(start));
		if (!error && json_is_integer(end))
			error = buf_printf(out, "%s%lld", json_is_integer(start) ? "-" : ":-",
					   (long long)json_integer_value(end));
	} else if (!strcmp(tool, "search") && read_string(args, "pattern")) {
		error = buf_printf(out, " '%s'", read_string(args, "pattern"));
		if (!error && read_string(args, "path_glob"))
			error = buf_printf(out, " in %s", read_string(args, "path_glob"));
	} else if (!strcmp(tool, "references") && read_string(args, "symbol")) {
		error = buf_printf(out, " %s", read_string(args, "symbol"));
	} else {
		return RL_ENOTFOUND;
	}
	return error;
}

int check_context_read_text(struct buf *out, struct buf *path, const struct rule_read *read)
{
	json_t *args = read->arguments ? json_loads(read->arguments, JSON_REJECT_DUPLICATES, NULL) : NULL;
	const char *tool = read->tool ? read->tool : "(no tool)";
	int error;

	if (path)
		buf_clear(path);
	if ((error = buf_puts(out, tool)) == 0)
		error = json_is_object(args) ? read_args_text(out, path, tool, args) : RL_ENOTFOUND;
	if (error == RL_ENOTFOUND) {
		/* Another tool, or arguments cut or not JSON: as the model gave them. */
		if (path)
			buf_clear(path);
		error = buf_printf(out, " %s", read->arguments && *read->arguments ? read->arguments : "{}");
	}
	json_decref(args);
	if (!error && read->error)
		error = buf_printf(out, ": error: %s", read->error);
	else if (!error)
		error = buf_printf(out, ": %zu byte%s", read->result_bytes, read->result_bytes == 1 ? "" : "s");
	return error < 0 ? error : 0;
}
