/* One review: rules, tasks, answers, evidence, reduce, storage, events. */
#include "check.h"
#include "queue.h"
#include "clock.h"
#include "answer.h"
#include "ask.h"
#include "config.h"
#include "depreview.h"
#include "evidence.h"
#include "feedback.h"
#include "glob.h"
#include "prompt.h"
#include "reduce.h"
#include "scope.h"
#include "status.h"
#include "timeout.h"
#include "usage.h"

#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_BUDGET 24000
/* What a map request holds besides the change and the rule (the template's instructions), in bytes. */
#define MAP_FIXED_BYTES 6000

/* One request: a part of the change asked about one rule, or the reduce call. */
struct chunk {
	struct check *check;
	size_t rule;
	int part, parts;
	char *system, *shared, *tail;
	bool settled;
	bool cached;
	enum rule_status status;
	struct map_answer answer;
	char *error;
	int attempts;
	long tokens_in, tokens_cached, tokens_cache_write, tokens_out;
	double cost_usd;        /* estimated; negative when the table has no price */
	long streamed;          /* events of the streamed answer so far */
	size_t weight;
	uint64_t ask;           /* its question's id (ask_attempt), 0 before it is asked */
};

struct rule_state {
	struct rule_result result;
	struct chunk **chunks;
	size_t nchunks, settled;
	int64_t started_ms;
	char *context, *examples;       /* the rule's context files and past reviews, for its prompts */
};

/*
 * The change cut into parts that fit a request, once for the whole check:
 * every rule asked about a part gets the same bytes first (the part, its
 * files, the dependencies), so that prompt caches can reuse them.
 */
struct part {
	char *diff;             /* fenced */
	char *files;            /* "a.c, b.c" (at most 20 named) */
	char *cut;              /* what of it was cut to fit the budget, for the prompt; NULL when nothing */
	size_t *file;           /* the diff's files in it */
	size_t nfiles;
};

struct check {
	struct repo *repo;
	const struct target *target;
	struct diff *diff;
	struct check_options opts;
	struct rule_set rules;
	struct rule_state *states;
	size_t nstates, unsettled;
	struct asker *asker;
	struct poll_group *group;       /* the front end's, or own_group */
	struct poll_group *own_group;
	struct poll_member member;      /* takes the request cycle's events */
	struct part *parts;
	size_t nparts;
	bool planned;
	bool prepared;          /* rules loaded, files scoped */
	int prepare_error;      /* preparing failed: the status and its message */
	char prepare_message[512];
	char **skip;            /* per file of the diff: why no LLM rule sees it (NULL: reviewed) */
	bool *skip_local;       /* and the local pattern rules neither (revline.ignore) */
	char **ignore;          /* revline.ignore's patterns */
	size_t nignore;
	char **notes;           /* what the check left out or cut, said in every report */
	size_t nnotes;
	size_t nscope_notes;    /* the first ones, about files; the others are cuts of the plan */
	size_t untracked;       /* untracked files the target leaves out */
	struct depreview *deps;         /* the dependency phase; the rules start when it is done */
	bool rules_started;
	struct timeout_choice timeout;
	struct report report;
	struct chunk reduce;    /* the reduce call, when there is one */
	bool reducing;
	struct finding *reduce_input;
	size_t nreduce_input;
	struct check_stats stats;
	int64_t id;
	int64_t started_ms;     /* monotonic */
	long duration_ms;
	struct queue events;     /* of struct check_event */
	bool done, cancelled;
	const char *status;
	char *intent;
	char *store_error;
};

static int event_push(struct check *c, enum check_event_kind kind, size_t rule)
{
	struct check_event *ev = queue_push(&c->events);

	if (!ev)
		return error_nomem();
	*ev = (struct check_event){ kind, rule };
	return 0;
}

bool check_next_event(struct check *c, struct check_event *out)
{
	return queue_pop(&c->events, out);
}

/*
 * A store failure never stops the check: the first one is kept and said
 * (CHECK_STORE_FAILED), and the check stores nothing more but its end,
 * which then cannot be 'complete'. A full or broken database fails the
 * same way again, and a locked one would hold every later write for the
 * busy timeout.
 */
static void store_failed(struct check *c)
{
	if (c->store_error)
		return;
	c->store_error = strdup(error_message());
	event_push(c, CHECK_STORE_FAILED, 0);
}

/* Whether to read from and write to the store: there is one and it has not failed. */
static bool storing(const struct check *c)
{
	return c->opts.store && !c->store_error;
}

static int advisories_load(struct check_options *options, struct config *config)
{
	struct advisory_options adv = { 0 };
	char *url = NULL;
	bool on;
	int error;

	if ((error = config_get_bool(&on, config, "revline.advisories")) == 0)
		options->no_advisories = !on;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = advisory_options_load(&adv, &url, config)) < 0)
		return error;
	snprintf(options->osv_url, sizeof(options->osv_url), "%s", url ? url : "");
	free(url);
	return 0;
}

int check_options_load(struct check_options *options, struct config *config)
{
	bool reduce;
	long budget;
	char *ignore = NULL;
	int error;

	if ((error = sched_options_load(&options->sched, config)) < 0 ||
	    (error = asker_options_load(&options->ask, config)) < 0)
		return error;
	if ((error = config_get_integer(&budget, config, "revline.tokenBudget", 1000, 10000000)) == 0)
		options->token_budget = budget;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_bool(&reduce, config, "revline.reduce")) == 0)
		options->no_reduce = !reduce;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_bool(&options->allow_partial, config, "revline.allowPartial")) < 0 &&
	    error != RL_ENOTFOUND)
		return error;
	if ((error = rules_builtin_load(&options->builtin_rules, config)) < 0)
		return error;
	if ((error = config_get_integer(&budget, config, "revline.confirmTokens", 1, LONG_MAX)) == 0)
		options->confirm_tokens = budget;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get(&ignore, config, "revline.ignore")) == 0) {
		snprintf(options->ignore_file, sizeof(options->ignore_file), "%s", ignore);
		free(ignore);
	} else if (error != RL_ENOTFOUND) {
		return error;
	}
	return advisories_load(options, config);
}

int check_new(struct check **out, struct repo *repo, const struct target *target,
	      struct diff *diff, const struct check_options *options)
{
	struct check *c = calloc(1, sizeof(*c));
	const struct queue events = QUEUE_INIT(struct check_event);

	*out = NULL;
	if (!c)
		return error_nomem();
	c->repo = repo;
	c->target = target;
	c->diff = diff;
	c->events = events;
	c->opts = *options;
	if (c->opts.token_budget <= 0)
		c->opts.token_budget = DEFAULT_BUDGET;
	if (!c->opts.environment)
		c->opts.environment = "local";
	c->status = "running";
	if ((options->store_error && !(c->store_error = strdup(options->store_error))) ||
	    (!options->group && poll_group_new(&c->own_group) < 0)) {
		free(c->store_error);
		free(c);
		return error_nomem();
	}
	c->group = options->group ? options->group : c->own_group;
	*out = c;
	return 0;
}

static void parts_free(struct check *c)
{
	size_t i;

	for (i = 0; i < c->nparts; i++) {
		free(c->parts[i].diff);
		free(c->parts[i].files);
		free(c->parts[i].cut);
		free(c->parts[i].file);
	}
	free(c->parts);
	c->parts = NULL;
	c->nparts = 0;
	c->planned = false;
}

static int note_add(struct check *c, char *note)
{
	char **grown;

	if (!note || !(grown = realloc(c->notes, (c->nnotes + 1) * sizeof(*grown)))) {
		free(note);
		return error_nomem();
	}
	c->notes = grown;
	c->notes[c->nnotes++] = note;
	return 0;
}

static void notes_drop_cuts(struct check *c)
{
	while (c->nnotes > c->nscope_notes)
		free(c->notes[--c->nnotes]);
}

static void chunk_release(struct chunk *k)
{
	free(k->system);
	free(k->shared);
	free(k->tail);
	free(k->error);
	answer_release(&k->answer);
}

void check_free(struct check *c)
{
	size_t i, k;

	if (!c)
		return;
	poll_group_leave(&c->member);
	asker_free(c->asker);
	depreview_free(c->deps);
	parts_free(c);
	for (i = 0; c->skip && i < c->diff->nfiles; i++)
		free(c->skip[i]);
	free(c->skip);
	free(c->skip_local);
	scope_patterns_free(c->ignore, c->nignore);
	scope_patterns_free(c->notes, c->nnotes);
	for (i = 0; i < c->nstates; i++) {
		for (k = 0; k < c->states[i].nchunks; k++) {
			chunk_release(c->states[i].chunks[k]);
			free(c->states[i].chunks[k]);
		}
		free(c->states[i].chunks);
		free(c->states[i].context);
		free(c->states[i].examples);
		rule_result_release(&c->states[i].result);
	}
	free(c->states);
	chunk_release(&c->reduce);
	findings_free(c->reduce_input, c->nreduce_input);
	report_release(&c->report);
	rules_release(&c->rules);
	queue_release(&c->events);
	free(c->intent);
	free(c->store_error);
	poll_group_free(c->own_group);
	free(c);
}

/* --rule ID: keep only the named rules; every name must exist. */
static int rules_select(struct check *c)
{
	struct rule *kept;
	size_t i, k, n = 0;

	if (!c->opts.nrule_ids)
		return 0;
	for (i = 0; i < c->opts.nrule_ids; i++)
		if (!rules_find(&c->rules, c->opts.rule_ids[i]))
			return error_set(RL_EUSAGE, "no rule with id '%s' (see 'revline rules')",
					 c->opts.rule_ids[i]);
	if (!(kept = calloc(c->opts.nrule_ids, sizeof(*kept))))
		return error_nomem();
	for (i = 0; i < c->rules.count; i++) {
		for (k = 0; k < c->opts.nrule_ids && strcmp(c->rules.rules[i].id, c->opts.rule_ids[k]); k++)
			;
		if (k < c->opts.nrule_ids)
			kept[n++] = c->rules.rules[i];
		else
			rule_release(&c->rules.rules[i]);
	}
	free(c->rules.rules);
	c->rules.rules = kept;
	c->rules.count = n;
	return 0;
}

static int check_store_begin(struct check *c)
{
	struct buf text = BUF_INIT;
	struct check_record rec = { 0 };
	size_t i;
	int error = 0;

	if (!storing(c))
		return 0;
	if ((error = diff_print(&text, c->diff)) < 0)
		goto done;
	rec.repo_path = c->repo->workdir ? c->repo->workdir : c->repo->gitdir;
	rec.repo_name = c->repo->name;
	rec.branch = c->repo->branch;
	rec.environment = c->opts.environment;
	rec.base_label = c->target->base_label;
	rec.base_oid = c->target->base_oid;
	rec.head_label = c->target->head_label;
	rec.head_oid = c->target->head_oid;
	rec.target = c->target->description;
	rec.diff = text.ptr ? text.ptr : "";
	rec.diff_len = text.len;
	rec.files = c->diff->nfiles;
	rec.additions = c->diff->additions;
	rec.deletions = c->diff->deletions;
	/* A database that refuses the check (full, locked, read-only, damaged) leaves it unstored, not undone. */
	if (store_check_begin(c->opts.store, &c->id, &rec) < 0) {
		store_failed(c);
		goto done;
	}
	for (i = 0; i < c->nstates && storing(c); i++)
		if (store_rule_add(c->opts.store, &c->states[i].result.id, c->id, c->states[i].result.rule) < 0)
			store_failed(c);
done:
	buf_release(&text);
	return error;
}

/*
 * The files of the diff a rule looks at: matching, not binary, not lock
 * files, not left out (generated and vendored files only of LLM rules: a
 * local pattern rule costs nothing).
 */
static bool rule_wants(const struct check *c, const struct rule *rule, const struct diff_file *f)
{
	size_t i = (size_t)(f - c->diff->files);

	if (f->flags & DIFF_FILE_BINARY || deps_is_lock_file(f->path) ||
	    (c->skip && c->skip[i] && (rule->kind != RULE_LOCAL || c->skip_local[i])))
		return false;
	return rule_applies(rule, f->path) || (f->old_path != f->path && rule_applies(rule, f->old_path));
}

static int file_reader_read(void *ctx, const char *path, bool old_side, struct buf *out)
{
	struct check *c = ctx;

	return repo_read(out, c->repo, c->target, path, old_side);
}

/* The evidence check, the fingerprint, and what reviewers said of it before. */
static void findings_verify(struct check *c, struct finding *f, size_t n)
{
	const struct file_reader reader = { file_reader_read, c };
	struct evidence_files *files = NULL;
	size_t i;

	if (evidence_files_new(&files, &reader) < 0)
		return;
	for (i = 0; i < n; i++) {
		evidence_check(&f[i], c->diff, files);
		finding_fingerprint(&f[i]);
		if (storing(c) && feedback_suppressed(&f[i].suppressed, c->opts.store, f[i].fingerprint) < 0)
			store_failed(c);
	}
	evidence_files_free(files);
}

static void rule_settle(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];

	findings_verify(c, s->result.findings, s->result.nfindings);
	if (s->started_ms)
		s->result.duration_ms = (long)(clock_ms() - s->started_ms);
	/* Stored before the front end hears of it: what is shown is kept, even if the process dies next. */
	if (storing(c) && c->id && store_result_put(c->opts.store, c->id, &s->result) < 0)
		store_failed(c);
	c->unsettled--;
	event_push(c, CHECK_RULE_SETTLED, index);
}

static int settle_as(struct check *c, size_t index, enum rule_status status, const char *why)
{
	struct rule_state *s = &c->states[index];

	s->result.status = status;
	if (why && !(s->result.error = strdup(why)))
		return error_nomem();
	rule_settle(c, index);
	return 0;
}

struct local_ctx {
	struct rule_result *r;
	const struct diff_file *file;
	int error;
};

static void local_found(int line, const char *text, size_t len, void *arg)
{
	struct local_ctx *ctx = arg;
	struct rule_result *r = ctx->r;
	struct finding *grown, *f;
	struct buf issue = BUF_INIT;

	if (ctx->error || !(grown = realloc(r->findings, (r->nfindings + 1) * sizeof(*grown)))) {
		ctx->error = RL_ENOMEM;
		return;
	}
	r->findings = grown;
	f = &grown[r->nfindings++];
	memset(f, 0, sizeof(*f));
	buf_printf(&issue, "An added line matches the pattern of %s.", r->rule->id);
	f->rule_id = strdup(r->rule->id);
	f->file = strdup(ctx->file->path);
	f->line = f->end_line = line;
	f->severity = r->rule->severity;
	f->category = r->rule->category ? strdup(r->rule->category) : NULL;
	f->title = strdup(r->rule->name);
	f->issue = buf_detach(&issue);
	f->evidence.code_examined = strndup(text, len);
	f->evidence.range_start = f->evidence.range_end = line;
	if (asprintf(&f->evidence.method, "local check: the pattern /%s/ on the added lines",
		     r->rule->pattern) < 0)
		f->evidence.method = NULL;
	if (!f->rule_id || !f->file || !f->title || !f->evidence.code_examined)
		ctx->error = RL_ENOMEM;
}

/* A local pattern rule runs at once, offline. */
static int run_local(struct check *c, size_t index)
{
	struct rule_result *r = &c->states[index].result;
	struct local_ctx ctx = { r, NULL, 0 };
	size_t i;
	int error;

	for (i = 0; i < c->diff->nfiles && !ctx.error; i++) {
		if (!rule_wants(c, r->rule, &c->diff->files[i]))
			continue;
		if ((error = diff_file_load(c->diff, i)) < 0)
			return error;
		ctx.file = &c->diff->files[i];
		if ((error = rule_match_local(r->rule, ctx.file, local_found, &ctx)) < 0)
			return settle_as(c, index, RULE_ERROR, error_message());
	}
	if (ctx.error)
		return error_nomem();
	return settle_as(c, index, r->nfindings ? RULE_ATTENTION : RULE_COMPLIANT, NULL);
}

/* Context files, each fenced under its path. */
static int context_text(struct buf *out, struct check *c, const struct rule *rule)
{
	size_t i;
	int error = 0;

	for (i = 0; i < rule->ncontext && !error; i++) {
		struct buf content = BUF_INIT;

		error = buf_printf(out, "## %s\n\n", rule->context_files[i]);
		if (!error && repo_read_workdir(&content, c->repo, rule->context_files[i]) < 0)
			error = buf_printf(out, "(cannot be read: %s)\n\n", error_message());
		else if (!error && (error = prompt_fence(out, NULL, content.ptr ? content.ptr : "",
							 content.len)) == 0)
			error = buf_putc(out, '\n');
		buf_release(&content);
	}
	return error;
}

struct piece {
	size_t file;
	uint32_t first, count;  /* hunks */
	size_t bytes;
	bool cut;               /* one hunk over the budget: only its first keep lines */
	uint32_t keep;
};

struct plan {
	struct piece *pieces;
	size_t npieces;
	size_t *starts;         /* chunk k is pieces [starts[k], starts[k + 1]) */
	size_t nchunks;
};

static int plan_add_piece(struct plan *p, struct piece piece)
{
	struct piece *grown = realloc(p->pieces, (p->npieces + 1) * sizeof(*grown));

	if (!grown)
		return error_nomem();
	p->pieces = grown;
	p->pieces[p->npieces++] = piece;
	return 0;
}

static size_t piece_bytes(const struct diff_file *f, uint32_t first, uint32_t count)
{
	size_t bytes = f->header_len + f->header2_len;
	uint32_t h, l;

	for (h = first; h < first + count; h++) {
		bytes += f->hunks[h].header_len + 1;
		for (l = 0; l < f->hunks[h].nlines; l++)
			bytes += f->lines[f->hunks[h].first_line + l].len + 2;
	}
	return bytes;
}

/* How many of a hunk's first lines fit the budget with the file's header, and their bytes. */
static uint32_t hunk_fit(size_t *bytes, const struct diff_file *f, uint32_t h, size_t budget)
{
	size_t line;
	uint32_t l;

	*bytes = f->header_len + f->header2_len + f->hunks[h].header_len + 1;
	for (l = 0; l < f->hunks[h].nlines; l++) {
		line = f->lines[f->hunks[h].first_line + l].len + 2;
		if (*bytes + line > budget)
			break;
		*bytes += line;
	}
	return l;
}

/* A hunk alone over the budget: its first lines, and a note saying what was cut. */
static int plan_cut(struct check *c, struct plan *p, size_t index, uint32_t h, size_t budget)
{
	const struct diff_file *f = &c->diff->files[index];
	const struct diff_hunk *hunk = &f->hunks[h];
	size_t bytes;
	uint32_t keep = hunk_fit(&bytes, f, h, budget);
	char total[32], kept[32];
	char *note;

	usage_count_text(total, sizeof(total), (long)hunk->nlines);
	usage_count_text(kept, sizeof(kept), (long)keep);
	if (asprintf(&note, "%s: hunk at line %u cut to fit the budget (%s lines, the first %s sent)",
		     f->path, hunk->new_start ? hunk->new_start : hunk->old_start, total, kept) < 0)
		note = NULL;
	if (note_add(c, note) < 0)
		return RL_ENOMEM;
	return plan_add_piece(p, (struct piece){ index, h, 1, bytes, true, keep });
}

/*
 * A file too big for one task is cut into runs of hunks that fit; a hunk
 * that alone does not fit is cut to its first lines.
 */
static int plan_file(struct check *c, struct plan *p, size_t index, size_t budget)
{
	const struct diff_file *f = &c->diff->files[index];
	size_t head = f->header_len + f->header2_len, run = 0, one;
	uint32_t first = 0, h;
	int error = 0;

	if (piece_bytes(f, 0, f->nhunks) <= budget)
		return plan_add_piece(p, (struct piece){ index, 0, f->nhunks, piece_bytes(f, 0, f->nhunks), false, 0 });
	for (h = 0; h < f->nhunks && !error; h++) {
		one = piece_bytes(f, h, 1) - head;
		if (head + run + one > budget) {
			if (h > first)
				error = plan_add_piece(p, (struct piece){ index, first, h - first, head + run, false, 0 });
			first = h;
			run = 0;
		}
		if (!error && head + one > budget) {
			error = plan_cut(c, p, index, h, budget);
			first = h + 1;
			continue;
		}
		run += one;
	}
	if (!error && first < f->nhunks)
		error = plan_add_piece(p, (struct piece){ index, first, f->nhunks - first, head + run, false, 0 });
	return error;
}

/* Pieces grouped into chunks under the budget, in diff order. */
static int plan_chunks(struct plan *p, size_t budget)
{
	size_t i, used = 0;

	if (!(p->starts = calloc(p->npieces + 2, sizeof(size_t))))
		return error_nomem();
	for (i = 0; i < p->npieces; i++) {
		if (i == 0 || used + p->pieces[i].bytes > budget) {
			p->starts[p->nchunks++] = i;
			used = 0;
		}
		used += p->pieces[i].bytes;
	}
	p->starts[p->nchunks] = p->npieces;
	return 0;
}

/* A part of the change: its pieces' hunks, fenced, and the files in it. */
/* What the prompt says of a cut hunk. */
static int cut_text(struct buf *out, struct diff *diff, const struct piece *piece)
{
	const struct diff_hunk *hunk = &diff->files[piece->file].hunks[piece->first];

	return buf_printf(out, "%sthe hunk of %s at line %u has %u lines; only the first %u are shown",
			  out->len ? "; " : "", diff->files[piece->file].path,
			  hunk->new_start ? hunk->new_start : hunk->old_start, hunk->nlines, piece->keep);
}

static int part_make(struct part *out, struct diff *diff, const struct plan *p, size_t k)
{
	struct buf text = BUF_INIT, files = BUF_INIT, fenced = BUF_INIT, cut = BUF_INIT;
	size_t i, n = 0;
	int error = 0;

	if (!(out->file = calloc(p->starts[k + 1] - p->starts[k] + 1, sizeof(size_t))))
		return error_nomem();
	for (i = p->starts[k]; i < p->starts[k + 1] && !error; i++) {
		const struct piece *piece = &p->pieces[i];

		if (piece->cut)
			error = diff_file_print_hunk_cut(&text, diff, piece->file, piece->first, piece->keep);
		else
			error = diff_file_print_hunks(&text, diff, piece->file, piece->first, piece->count);
		if (!error && piece->cut)
			error = cut_text(&cut, diff, piece);
		if (error || (i > p->starts[k] && piece->file == p->pieces[i - 1].file))
			continue;
		out->file[out->nfiles++] = piece->file;
		if (n++ < 20)
			error = buf_printf(&files, "%s%s", n > 1 ? ", " : "", diff->files[piece->file].path);
	}
	if (!error && n > 20)
		error = buf_printf(&files, " and %zu more", n - 20);
	if (!error)
		error = prompt_fence(&fenced, "diff", text.ptr ? text.ptr : "", text.len);
	if (!error) {
		out->diff = buf_detach(&fenced);
		out->files = buf_detach(&files);
		out->cut = cut.len ? buf_detach(&cut) : NULL;
		error = out->diff && out->files ? 0 : error_nomem();
	}
	buf_release(&text);
	buf_release(&files);
	buf_release(&fenced);
	buf_release(&cut);
	return error;
}

/* The files of a part the rule applies to, named ("" when it applies to all of them). */
static int part_rule_files(struct buf *out, bool *any, struct check *c, const struct part *part,
			   const struct rule *rule)
{
	size_t i, n = 0;
	int error = 0;

	for (i = 0; i < part->nfiles; i++)
		n += rule_wants(c, rule, &c->diff->files[part->file[i]]);
	*any = n > 0;
	if (n == part->nfiles)
		return 0;
	for (i = 0, n = 0; i < part->nfiles && !error; i++)
		if (rule_wants(c, rule, &c->diff->files[part->file[i]]) && n++ < 40)
			error = buf_printf(out, "%s%s", n > 1 ? ", " : "", c->diff->files[part->file[i]].path);
	return error;
}

static int chunk_prompt(struct chunk *k, struct check *c, const struct rule_state *s, const struct part *part,
			const char *rule_files)
{
	const struct rule *rule = s->result.rule;
	struct buf sys = BUF_INIT, shared = BUF_INIT, tail = BUF_INIT;
	char chunk[64] = "";
	int error;

	if (k->parts > 1)
		snprintf(chunk, sizeof(chunk), "part %d of %d", k->part, k->parts);
	const struct prompt_var vars[] = {
		{ "rule_id", rule->id }, { "rule_name", rule->name },
		{ "severity", severity_name(rule->severity) }, { "category", rule->category },
		{ "rule_body", rule->body }, { "intent", c->intent }, { "chunk", chunk },
		{ "files", part->files }, { "diff", part->diff }, { "context_files", s->context },
		{ "examples", s->examples }, { "dependencies", depreview_section(c->deps) },
		{ "rule_files", rule_files }, { "cut", part->cut },
	};

	error = prompt_render_parts(&sys, &shared, &tail, "map", vars, sizeof(vars) / sizeof(vars[0]));
	if (!error) {
		k->system = buf_detach(&sys);
		/* A template of the user's without <<<rule>>> shares nothing: all of it is the request's own. */
		k->shared = tail.len && shared.len ? buf_detach(&shared) : NULL;
		k->tail = tail.len ? buf_detach(&tail) : buf_detach(&shared);
		if (!k->system || !k->tail)
			error = error_nomem();
		else
			k->weight = strlen(k->system) + (k->shared ? strlen(k->shared) : 0) + strlen(k->tail);
	}
	buf_release(&sys);
	buf_release(&shared);
	buf_release(&tail);
	return error;
}

static int chunk_add(struct rule_state *s, struct chunk *k)
{
	struct chunk **grown = realloc(s->chunks, (s->nchunks + 1) * sizeof(*grown));

	if (!grown)
		return error_nomem();
	s->chunks = grown;
	s->chunks[s->nchunks++] = k;
	return 0;
}

/* Whether the rule is asked of the LLM in this check: an LLM rule, a provider, a file it applies to. */
static bool asks_llm(struct check *c, const struct rule *rule)
{
	size_t i;

	if (rule->kind == RULE_LOCAL || c->opts.llm->provider == PROVIDER_NONE)
		return false;
	for (i = 0; i < c->diff->nfiles; i++)
		if (rule_wants(c, rule, &c->diff->files[i]))
			return true;
	return false;
}

/* The rule's own prompt material: its context files and what past reviews of it taught. */
static int rule_material(struct check *c, struct rule_state *s)
{
	struct buf context = BUF_INIT, examples = BUF_INIT;
	int error;

	if (s->context || s->examples)
		return 0;
	if ((error = context_text(&context, c, s->result.rule)) < 0)
		goto done;
	/* Past feedback teaches; failing to find it never stops the review. */
	if (storing(c) && feedback_prompt_examples(&examples, c->opts.store, c->diff, s->result.rule) < 0)
		buf_clear(&examples);
	s->context = buf_detach(&context);
	s->examples = buf_detach(&examples);
done:
	buf_release(&context);
	buf_release(&examples);
	return error;
}

/* How much of the change fits a request: the budget less the largest rule's own part. */
static size_t plan_budget(struct check *c)
{
	size_t i, most = 0;
	long fixed;

	for (i = 0; i < c->nstates; i++) {
		struct rule_state *s = &c->states[i];
		size_t bytes;

		if (!asks_llm(c, s->result.rule) || rule_material(c, s) < 0)
			continue;
		bytes = strlen(s->result.rule->body) + (s->context ? strlen(s->context) : 0) +
			(s->examples ? strlen(s->examples) : 0);
		most = bytes > most ? bytes : most;
	}
	/* The part's neighbours in every request: the author's intent, the dependencies. */
	most += (c->intent ? strlen(c->intent) : 0) + (c->deps ? strlen(depreview_section(c->deps)) : 0);
	fixed = llm_tokens(most + MAP_FIXED_BYTES);
	return (size_t)(c->opts.token_budget > fixed + 1000 ? c->opts.token_budget - fixed : 1000) * 4;
}

/* The parts of the change, once: the files any LLM rule of the check applies to. */
static int plan_check(struct check *c)
{
	struct plan p = { 0 };
	size_t i, r, budget;
	int error = 0;

	if (c->planned)
		return 0;
	c->planned = true;
	budget = plan_budget(c);
	for (i = 0; i < c->diff->nfiles && !error; i++) {
		for (r = 0; r < c->nstates; r++)
			if (asks_llm(c, c->states[r].result.rule) &&
			    rule_wants(c, c->states[r].result.rule, &c->diff->files[i]))
				break;
		if (r < c->nstates && (error = diff_file_load(c->diff, i)) == 0)
			error = plan_file(c, &p, i, budget);
	}
	if (!error && p.npieces && (error = plan_chunks(&p, budget)) == 0 &&
	    !(c->parts = calloc(p.nchunks + 1, sizeof(*c->parts))))
		error = error_nomem();
	for (i = 0; i < p.nchunks && !error; i++, c->nparts++)
		error = part_make(&c->parts[i], c->diff, &p, i);
	free(p.pieces);
	free(p.starts);
	return error;
}

/* The requests of an LLM rule: one per part of the change with a file it applies to. */
static int plan_rule(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	size_t i, n = 0;
	int error;

	if ((error = plan_check(c)) < 0 || (error = rule_material(c, s)) < 0)
		return error;
	for (i = 0; i < c->nparts; i++) {
		bool any;
		struct buf files = BUF_INIT;

		error = part_rule_files(&files, &any, c, &c->parts[i], s->result.rule);
		buf_release(&files);
		if (error < 0)
			return error;
		n += any;
	}
	for (i = 0; i < c->nparts && !error; i++) {
		struct buf files = BUF_INIT;
		struct chunk *k;
		bool any;

		if ((error = part_rule_files(&files, &any, c, &c->parts[i], s->result.rule)) < 0 || !any) {
			buf_release(&files);
			continue;
		}
		if (!(k = calloc(1, sizeof(*k))) || (error = chunk_add(s, k)) < 0) {
			free(k);
			buf_release(&files);
			return error < 0 ? error : error_nomem();
		}
		*k = (struct chunk){ .check = c, .rule = index, .part = (int)s->nchunks, .parts = (int)n };
		/* The part's number is the change's, so that every rule's part k begins alike. */
		if (c->nparts > 1) {
			k->part = (int)i + 1;
			k->parts = (int)c->nparts;
		}
		error = chunk_prompt(k, c, s, &c->parts[i], files.len ? files.ptr : NULL);
		buf_release(&files);
	}
	s->result.chunks = (int)s->nchunks;
	return error;
}

static const char *model_of(const struct check *c, const struct rule *rule)
{
	return rule && rule->model ? rule->model : c->opts.llm->map_model;
}

static int chunk_submit(struct check *c, struct chunk *k, const char *model)
{
	uint64_t id;
	/* A map request asks with its rule's reasoning effort; the reduce, with the configured one. */
	struct ask_spec spec = {
		k == &c->reduce ? SCHEMA_REDUCE : SCHEMA_MAP, model,
		k == &c->reduce ? NULL : c->states[k->rule].result.rule->reasoning_effort,
		k->system, k->shared, k->tail, k->weight, c->opts.no_cache, k,
	};

	int error = ask_submit(c->asker, &id, &spec);

	if (!error)
		k->ask = id;
	return error;
}

static void rule_collect(struct check *c, size_t index);

static void chunk_settled(struct check *c, struct chunk *k)
{
	struct rule_state *s = &c->states[k->rule];

	k->settled = true;
	if (++s->settled == s->nchunks)
		rule_collect(c, k->rule);
}

static void chunk_fail(struct check *c, struct chunk *k, enum rule_status status, const char *why)
{
	k->status = status;
	free(k->error);
	k->error = strdup(why);
	chunk_settled(c, k);
}

static void reduce_answer(struct check *c, const char *text, size_t len);

static void chunk_answer(struct check *c, struct chunk *k, const char *text, size_t len)
{
	if (k == &c->reduce) {
		reduce_answer(c, text, len);
		return;
	}
	if (answer_parse(&k->answer, text, len, c->states[k->rule].result.rule) < 0) {
		struct buf why = BUF_INIT;

		buf_printf(&why, "the answer cannot be used: %s", error_message());
		chunk_fail(c, k, RULE_ERROR, why.ptr);
		buf_release(&why);
		return;
	}
	k->status = k->answer.status;
	chunk_settled(c, k);
}

static int strings_append(char ***items, size_t *count, char **more, size_t nmore)
{
	char **grown;
	size_t i;

	if (!nmore)
		return 0;
	if (!(grown = realloc(*items, (*count + nmore) * sizeof(char *))))
		return error_nomem();
	*items = grown;
	for (i = 0; i < nmore; i++)
		grown[(*count)++] = more[i];
	return 0;
}

/* The rule's result is the union of its chunks'. */
static void rule_collect(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	struct rule_result *r = &s->result;
	bool timeout = false, failed = false, attention = false, relevant = false, cached = true;
	struct buf reasoning = BUF_INIT, errors = BUF_INIT;
	size_t i;

	for (i = 0; i < s->nchunks; i++) {
		struct chunk *k = s->chunks[i];
		struct finding *grown;

		timeout |= k->status == RULE_TIMEOUT;
		failed |= k->status == RULE_ERROR;
		attention |= k->status == RULE_ATTENTION;
		relevant |= k->status == RULE_COMPLIANT || k->status == RULE_ATTENTION;
		cached &= k->cached;
		r->attempts += k->attempts;
		r->tokens_in += k->tokens_in;
		r->tokens_cached += k->tokens_cached;
		r->tokens_cache_write += k->tokens_cache_write;
		r->tokens_out += k->tokens_out;
		r->cost_usd = r->cost_usd < 0 || k->cost_usd < 0 ? -1 : r->cost_usd + k->cost_usd;
		if (k->error && s->nchunks > 1)
			buf_printf(&errors, "%spart %d of %d: %s", errors.len ? "; " : "", k->part,
				   k->parts, k->error);
		else if (k->error)
			buf_puts(&errors, k->error);
		if (k->answer.reasoning && s->nchunks > 1)
			buf_printf(&reasoning, "%sPart %d of %d: %s", reasoning.len ? "\n\n" : "",
				   k->part, k->parts, k->answer.reasoning);
		else if (k->answer.reasoning)
			buf_puts(&reasoning, k->answer.reasoning);
		r->findings_dropped += k->answer.findings_dropped;
		if (k->answer.nfindings &&
		    (grown = realloc(r->findings, (r->nfindings + k->answer.nfindings) * sizeof(*grown)))) {
			r->findings = grown;
			memcpy(grown + r->nfindings, k->answer.findings, k->answer.nfindings * sizeof(*grown));
			r->nfindings += k->answer.nfindings;
			free(k->answer.findings);
			k->answer.findings = NULL;
			k->answer.nfindings = 0;
		}
		if (strings_append(&r->file_references, &r->nrefs, k->answer.file_references,
				   k->answer.nrefs) == 0) {
			free(k->answer.file_references);
			k->answer.file_references = NULL;
			k->answer.nrefs = 0;
		}
	}
	r->status = timeout ? RULE_TIMEOUT : failed ? RULE_ERROR : attention ? RULE_ATTENTION :
		relevant ? RULE_COMPLIANT : RULE_NOT_RELEVANT;
	r->cached = cached;
	r->reasoning = reasoning.len ? buf_detach(&reasoning) : NULL;
	r->error = errors.len ? buf_detach(&errors) : NULL;
	buf_release(&reasoning);
	buf_release(&errors);
	rule_settle(c, index);
}

static bool reduce_wanted(const struct check *c, const struct finding *f)
{
	return (!f->suppressed || c->opts.show_suppressed) && (f->verified || c->opts.show_unverified);
}

static int reduce_collect(struct check *c)
{
	size_t i, k, n = 0;
	int error = 0;

	for (i = 0; i < c->nstates; i++)
		n += c->states[i].result.nfindings;
	if (!(c->reduce_input = calloc(n + 1, sizeof(struct finding))))
		return error_nomem();
	for (i = 0; i < c->nstates && !error; i++) {
		const struct rule_result *r = &c->states[i].result;

		for (k = 0; k < r->nfindings && !error; k++) {
			const struct finding *f = &r->findings[k];

			if (!reduce_wanted(c, f))
				continue;
			if ((error = finding_copy(&c->reduce_input[c->nreduce_input], f)) == 0)
				c->nreduce_input++;
		}
	}
	return error;
}

/* Rule files too broken to load: each is a rule the check skipped. */
static size_t rules_broken(const struct check *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->rules.nproblems; i++)
		n += c->rules.problems[i].fatal;
	return n;
}

static const char *final_status(const struct check *c)
{
	size_t i, ok = 0, bad = 0, skipped = rules_broken(c);

	if (c->cancelled)
		return "cancelled";
	for (i = 0; i < c->nstates; i++) {
		enum rule_status s = c->states[i].result.status;

		ok += s == RULE_COMPLIANT || s == RULE_ATTENTION || s == RULE_NOT_RELEVANT;
		bad += s == RULE_ERROR || s == RULE_TIMEOUT;
		skipped += s == RULE_SKIPPED;
	}
	if (bad && !ok)
		return "failed";
	return bad || skipped ? "partial" : "complete";
}

size_t check_not_run(const struct check *c, size_t *total)
{
	size_t i, n = rules_broken(c);

	*total = c->nstates + n;
	for (i = 0; i < c->nstates; i++) {
		enum rule_status s = c->states[i].result.status;

		n += s == RULE_ERROR || s == RULE_TIMEOUT || s == RULE_SKIPPED;
	}
	return n;
}

int check_incomplete_text(struct buf *out, const struct check *c)
{
	size_t total, n = check_not_run(c, &total);

	buf_clear(out);
	if (!n)
		return 0;
	return buf_printf(out, "%zu of %zu rule%s did not run: review incomplete", n, total,
			  total == 1 ? "" : "s");
}

/*
 * The status the store records: a check whose results were not all stored
 * is at best partial there, whatever the review itself came to.
 */
static const char *stored_status(const struct check *c)
{
	return c->store_error && !strcmp(c->status, "complete") ? "partial" : c->status;
}

/*
 * The end is written even after a failure (the fault may have passed), so
 * the record says partial rather than running; if it fails too, the check
 * stays 'running' until the next open marks it interrupted.
 */
static void check_finish(struct check *c)
{
	c->duration_ms = (long)(clock_ms() - c->started_ms);
	c->status = final_status(c);
	if (c->opts.store && c->id && store_check_finish(c->opts.store, c->id, stored_status(c), c->duration_ms,
							 &c->stats, &c->report) < 0)
		store_failed(c);
	c->done = true;
	event_push(c, CHECK_DONE, 0);
}

static void reduce_fall_back(struct check *c, const char *reason)
{
	report_release(&c->report);
	if (reduce_fallback(&c->report, c->reduce_input, c->nreduce_input, reason) < 0)
		c->report.summary = strdup(error_message());
	check_finish(c);
}

static void reduce_answer(struct check *c, const char *text, size_t len)
{
	struct buf why = BUF_INIT;

	report_release(&c->report);
	if (reduce_parse(&c->report, text, len, c->reduce_input, c->nreduce_input) == 0) {
		check_finish(c);
		return;
	}
	buf_printf(&why, "the reduce answer cannot be used: %s", error_message());
	reduce_fall_back(c, why.ptr);
	buf_release(&why);
}

static void reduce_start(struct check *c)
{
	struct reduce_context ctx = { c->target->description, c->diff->nfiles, c->intent };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	if (reduce_collect(c) < 0) {
		reduce_fall_back(c, error_message());
		return;
	}
	if (c->nreduce_input < 2 || c->cancelled) {
		reduce_fall_back(c, NULL);
		return;
	}
	if (c->opts.no_reduce || c->opts.llm->provider == PROVIDER_NONE) {
		reduce_fall_back(c, c->opts.no_reduce ? "the reduce call is off (revline.reduce)" :
				 "no LLM is configured");
		return;
	}
	if (reduce_prompt(&sys, &user, c->reduce_input, c->nreduce_input, &ctx) < 0) {
		reduce_fall_back(c, error_message());
		goto done;
	}
	c->reduce = (struct chunk){ .check = c };
	c->reduce.system = buf_detach(&sys);
	c->reduce.tail = buf_detach(&user);
	c->reduce.weight = strlen(c->reduce.system) + strlen(c->reduce.tail);
	c->reducing = true;
	if (chunk_submit(c, &c->reduce, c->opts.llm->reduce_model) < 0) {
		reduce_fall_back(c, error_message());
		goto done;
	}
	event_push(c, CHECK_REDUCE_STARTED, 0);
done:
	buf_release(&sys);
	buf_release(&user);
}

/* After every state change: when the last rule settles, reduce (local rules may settle before the others start). */
static void check_advance(struct check *c)
{
	if (c->rules_started && !c->unsettled && !c->reducing && !c->done)
		reduce_start(c);
}

/* The longest a request of the rule may take, for its status; kept with the rule. */
static void rule_timeout(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	long most = 0, ms;
	size_t k;

	for (k = 0; k < s->nchunks; k++)
		if ((ms = sched_task_timeout_ms(&c->opts.sched, s->chunks[k]->weight)) > most)
			most = ms;
	s->result.timeout_ms = most;
	if (storing(c) && s->result.id && store_rule_timeout(c->opts.store, s->result.id, most) < 0)
		store_failed(c);
}

static int start_rule(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	const struct rule *rule = s->result.rule;
	size_t i, k;
	int error;

	for (i = 0; i < c->diff->nfiles && !rule_wants(c, rule, &c->diff->files[i]); i++)
		;
	if (i == c->diff->nfiles)
		return settle_as(c, index, RULE_NOT_RELEVANT, NULL);
	if (rule->kind == RULE_LOCAL)
		return run_local(c, index);
	if (c->opts.llm->provider == PROVIDER_NONE)
		return settle_as(c, index, RULE_SKIPPED, llm_setup_hint);
	if ((error = plan_rule(c, index)) < 0)
		return settle_as(c, index, RULE_ERROR, error_message());
	rule_timeout(c, index);
	for (k = 0; k < s->nchunks; k++)
		if ((error = chunk_submit(c, s->chunks[k], model_of(c, rule))) < 0)
			chunk_fail(c, s->chunks[k], RULE_ERROR, error_message());
	return 0;
}

/* The dependency phase is over: its analysis kept and announced, the rules started. */
static int rules_begin(struct check *c)
{
	size_t i;
	int error = 0;

	c->rules_started = true;
	if (storing(c) && c->id && depreview_store(c->deps, c->opts.store, c->id) < 0)
		store_failed(c);
	if (depreview_found(c->deps))
		event_push(c, CHECK_DEPENDENCIES, 0);
	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.status == RULE_QUEUED)
			error = start_rule(c, i);
	if (!error)
		check_advance(c);
	return error;
}

/* Local pattern rules need no advisory and no server: they run at once, while the advisories are looked up. */
static int locals_begin(struct check *c)
{
	size_t i;
	int error = 0;

	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.rule->kind == RULE_LOCAL)
			error = start_rule(c, i);
	return error;
}

/* The change's size and kind choose the base timeout (timeout.h) before the scheduler is made. */
static void timeout_pick(struct check *c)
{
	size_t i, lines = 0;

	for (i = 0; i < c->diff->nfiles; i++)
		if (diff_file_count(c->diff, i) == 0)
			lines += c->diff->files[i].additions + c->diff->files[i].deletions;
	timeout_choose(&c->timeout, c->opts.sched.timeout, c->diff->nfiles, lines,
		       depreview_dependency_only(c->deps));
	c->opts.sched.timeout = c->timeout.chosen;
	if (storing(c) && c->id &&
	    store_check_timeout(c->opts.store, c->id, c->timeout.base, c->timeout.chosen, c->timeout.reason) < 0)
		store_failed(c);
}

/* Read and analyse the manifests; a failure leaves the check without dependency analysis. */
static int deps_begin(struct check *c)
{
	struct depreview_options o = { !c->opts.no_advisories, { c->opts.osv_url[0] ? c->opts.osv_url : NULL,
								  0, 0, 0 }, c->group };
	int error;

	if ((error = depreview_new(&c->deps, c->repo, c->target, c->diff, &o)) < 0)
		return error;
	if (depreview_start(c->deps) < 0) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		depreview_cancel(c->deps);
	}
	return 0;
}

/* revline.ignore: the patterns of the file it names, read from the working tree. */
static int ignore_load(struct check *c)
{
	struct buf text = BUF_INIT;
	int error;

	if (!c->opts.ignore_file[0])
		return 0;
	if ((error = repo_read_workdir(&text, c->repo, c->opts.ignore_file)) < 0)
		error = error_set(RL_ECONFIG, "revline.ignore names %s, which cannot be read: %s",
				  c->opts.ignore_file, error_message());
	else if ((error = scope_patterns_parse(&c->ignore, &c->nignore, text.ptr ? text.ptr : "",
					       text.len)) < 0 && error != RL_ENOMEM)
		error = error_set(RL_ECONFIG, "%s (revline.ignore): %s", c->opts.ignore_file, error_message());
	buf_release(&text);
	return error;
}

/* Why no LLM rule is asked about a file: revline.ignore, .gitattributes, its content; NULL when none. */
static int file_scope(char **out, struct check *c, size_t i)
{
	const struct diff_file *f = &c->diff->files[i];
	const char *why = NULL, *attr = NULL;
	char detail[128];
	int error;

	*out = NULL;
	if (f->flags & DIFF_FILE_BINARY || deps_is_lock_file(f->path))
		return 0;
	if (c->nignore && (glob_match_list((const char *const *)c->ignore, c->nignore, f->path) ||
			   glob_match_list((const char *const *)c->ignore, c->nignore, f->old_path))) {
		why = "ignored (revline.ignore)";
		c->skip_local[i] = true;
	}
	else if ((error = repo_linguist(&attr, c->repo, f->path)) < 0)
		return error;
	else if (attr)
		why = !strcmp(attr, "linguist-vendored") ? "vendored (linguist-vendored in .gitattributes)" :
			"generated (linguist-generated in .gitattributes)";
	else if ((error = diff_file_load(c->diff, i)) < 0)
		return error;
	else
		why = scope_generated(detail, sizeof(detail), f);
	if (why && !(*out = strdup(why)))
		return error_nomem();
	return 0;
}

/* Which files of the change the rules see; the others are named in the notes. */
static int files_scope(struct check *c)
{
	size_t i;
	int error;

	if ((error = ignore_load(c)) < 0)
		return error;
	if (!(c->skip = calloc(c->diff->nfiles + 1, sizeof(*c->skip))) ||
	    !(c->skip_local = calloc(c->diff->nfiles + 1, sizeof(*c->skip_local))))
		return error_nomem();
	for (i = 0; i < c->diff->nfiles; i++) {
		char *note;

		if ((error = file_scope(&c->skip[i], c, i)) < 0)
			return error;
		if (!c->skip[i])
			continue;
		if (asprintf(&note, "%s: %s, %s", c->diff->files[i].path, c->skip[i],
			     c->skip_local[i] ? "not reviewed" : "not sent to the LLM") < 0)
			note = NULL;
		if ((error = note_add(c, note)) < 0)
			return error;
	}
	if (repo_untracked_count(&c->untracked, c->repo, c->target) < 0)
		c->untracked = 0;
	return 0;
}

int check_prepare(struct check *c)
{
	struct rules_options ro = { c->opts.rule_dirs, c->opts.nrule_dirs, c->repo->workdir, false,
				    c->opts.builtin_rules, c->opts.no_builtin, c->opts.rule_ids,
				    c->opts.nrule_ids, false };
	struct buf intent = BUF_INIT;
	size_t i;
	int error;

	if (c->prepared)
		return 0;
	/* What failed once (half done) fails again the same way: check_estimate, then check_start. */
	if (c->prepare_error)
		return error_set(c->prepare_error, "%s", c->prepare_message);
	if ((error = rules_load(&c->rules, &ro)) < 0 || (error = rules_select(c)) < 0 ||
	    (error = files_scope(c)) < 0 ||
	    (!(c->states = calloc(c->rules.count + 1, sizeof(*c->states))) && (error = error_nomem()) < 0)) {
		c->prepare_error = error;
		snprintf(c->prepare_message, sizeof(c->prepare_message), "%s", error_message());
		return error;
	}
	for (i = 0; i < c->rules.count; i++) {
		c->states[i].result.rule = &c->rules.rules[i];
		c->states[i].result.status = RULE_QUEUED;
	}
	c->nstates = c->unsettled = c->rules.count;
	c->nscope_notes = c->nnotes;
	repo_intent(&intent, c->repo, c->target, 20);
	c->intent = buf_detach(&intent);
	c->prepared = true;
	return 0;
}

int check_estimate(long *tokens, struct check *c)
{
	size_t r, i;
	int error;

	*tokens = 0;
	if ((error = check_prepare(c)) < 0 || (error = plan_check(c)) < 0)
		return error;
	for (r = 0; r < c->nstates; r++) {
		struct rule_state *s = &c->states[r];
		size_t own;

		if (!asks_llm(c, s->result.rule))
			continue;
		if ((error = rule_material(c, s)) < 0)
			return error;
		own = strlen(s->result.rule->body) + (s->context ? strlen(s->context) : 0) +
			(s->examples ? strlen(s->examples) : 0) + MAP_FIXED_BYTES;
		for (i = 0; i < c->nparts; i++) {
			struct buf files = BUF_INIT;
			bool any;

			error = part_rule_files(&files, &any, c, &c->parts[i], s->result.rule);
			buf_release(&files);
			if (error < 0)
				return error;
			if (any)
				*tokens += llm_tokens(strlen(c->parts[i].diff) + own);
		}
	}
	/* Planned again when the rules start, with the dependencies' section known; the cuts are said then. */
	parts_free(c);
	notes_drop_cuts(c);
	return 0;
}

static int member_join(struct check *c);

int check_start(struct check *c)
{
	int error;

	c->started_ms = clock_ms();
	if ((error = check_prepare(c)) < 0)
		return error;
	if ((error = check_store_begin(c)) < 0 || (error = deps_begin(c)) < 0)
		return error;
	timeout_pick(c);
	/* The deadline bounds the whole check: what preparing it took is spent. */
	c->opts.sched.deadline_spent = (double)(clock_ms() - c->started_ms) / 1000.0;
	if ((error = asker_new(&c->asker, c->opts.llm, &c->opts.sched, &c->opts.ask,
			       storing(c) ? c->opts.store : NULL, c->group)) < 0 ||
	    (error = member_join(c)) < 0)
		return error;
	if ((error = locals_begin(c)) < 0)
		return error;
	return depreview_done(c->deps) ? rules_begin(c) : 0;
}

static void on_started(struct check *c, struct chunk *k)
{
	struct rule_state *s;

	if (k == &c->reduce)
		return;
	s = &c->states[k->rule];
	if (!s->started_ms) {
		s->started_ms = clock_ms();
		s->result.status = RULE_RUNNING;
		event_push(c, CHECK_RULE_STARTED, k->rule);
	}
}

/* Costs add up; one not known makes the sum not known. */
static double cost_add(double sum, double cost)
{
	return sum < 0 || cost < 0 ? -1 : sum + cost;
}

static void on_done(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	k->cached = ev->cached;
	k->tokens_in += ev->usage.tokens_in;
	k->tokens_cached += ev->usage.tokens_cached;
	k->tokens_cache_write += ev->usage.tokens_cache_write;
	k->tokens_out += ev->usage.tokens_out;
	k->cost_usd = cost_add(k->cost_usd, ev->usage.cost_usd);
	if (ev->cached) {
		c->stats.cache_hits++;
	} else {
		c->stats.tokens_in += ev->usage.tokens_in;
		c->stats.tokens_cached += ev->usage.tokens_cached;
		c->stats.tokens_cache_write += ev->usage.tokens_cache_write;
		c->stats.tokens_out += ev->usage.tokens_out;
		c->stats.cost_usd = cost_add(c->stats.cost_usd, ev->usage.cost_usd);
	}
	chunk_answer(c, k, ev->text, strlen(ev->text));
}

static void on_failed(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	if (k == &c->reduce) {
		struct buf reason = BUF_INIT;

		buf_printf(&reason, "the reduce call failed: %s", ev->error);
		reduce_fall_back(c, reason.ptr);
		buf_release(&reason);
		return;
	}
	chunk_fail(c, k, ev->status == ASK_TIMEOUT ? RULE_TIMEOUT : RULE_ERROR, ev->error);
}

/* A rule's streamed answers so far, summed over its requests. */
static void on_progress(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	struct rule_state *s;
	size_t i;

	k->streamed = ev->streamed;
	if (k == &c->reduce)
		return;
	s = &c->states[k->rule];
	for (i = 0, s->result.tokens_streamed = 0; i < s->nchunks; i++)
		s->result.tokens_streamed += s->chunks[i]->streamed;
	event_push(c, CHECK_RULE_PROGRESS, k->rule);
}

static void handle_event(struct check *c, const struct ask_event *ev)
{
	struct chunk *k = ev->user;

	if (ev->status == ASK_STARTED) {
		on_started(c, k);
		return;
	}
	if (ev->status == ASK_PROGRESS) {
		on_progress(c, k, ev);
		return;
	}
	k->attempts += ev->attempts;
	c->stats.requests += ev->attempts;
	if (ev->store_failed) {
		store_failed(c);
		asker_drop_store(c->asker);
	}
	if (ev->status == ASK_DONE)
		on_done(c, k, ev);
	else
		on_failed(c, k, ev);
}

/* The request cycle's events, after sending what took the freed slots. */
static int drain(struct check *c, int error)
{
	struct ask_event ev;

	/* New requests go out before the slower work on the answers. */
	if (!error && sched_timeout(asker_sched(c->asker)) == 0)
		error = asker_run(c->asker);
	while (asker_next(c->asker, &ev)) {
		handle_event(c, &ev);
		ask_event_release(&ev);
		check_advance(c);
	}
	return error;
}

/* The advisories came in (or their budget ran out): the rules start. */
static int deps_stepped(struct check *c)
{
	if (c->rules_started || !depreview_done(c->deps))
		return 0;
	return rules_begin(c);
}

/* The deadline passed while the advisories were looked up: the rules start, to time out at once. */
static void deps_deadline(struct check *c)
{
	if (!c->rules_started && sched_deadline_left_ms(asker_sched(c->asker)) == 0)
		depreview_cancel(c->deps);
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct check *c = ctx;
	int error;

	(void)fds;
	(void)n;
	if (!c->asker || c->done)
		return 0;
	if (!c->rules_started) {
		deps_deadline(c);
		if ((error = deps_stepped(c)) < 0)
			return error;
	}
	return drain(c, 0);
}

static int member_timeout(void *ctx)
{
	struct check *c = ctx;

	if (c->events.count)
		return 0;
	if (!c->asker || c->done || c->rules_started)
		return -1;
	return (int)sched_deadline_left_ms(asker_sched(c->asker));
}

/* The check joins its poll group after the request cycle: it takes their events in the same step. */
static int member_join(struct check *c)
{
	c->member.timeout = member_timeout;
	c->member.step = member_step;
	c->member.ctx = c;
	return poll_group_join(c->group, &c->member);
}

int check_wait(struct check *c, int max_ms)
{
	if (!c->asker || c->done || c->events.count)
		return 0;
	return poll_group_wait(c->group, max_ms);
}

void check_cancel(struct check *c)
{
	if (c->done || !c->asker)
		return;
	c->cancelled = true;
	/* Cancelled while the advisories were looked up: the rules start, to be cancelled at once. */
	if (!c->rules_started) {
		depreview_cancel(c->deps);
		deps_stepped(c);
	}
	asker_cancel_all(c->asker);
	drain(c, 0);
}

static bool failed(enum rule_status status)
{
	return status == RULE_ERROR || status == RULE_TIMEOUT;
}

/* A failed rule back to the start: its chunks, findings and status gone. */
static void rule_reset(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	const struct rule *rule = s->result.rule;
	int64_t id = s->result.id;
	size_t k;

	for (k = 0; k < s->nchunks; k++) {
		chunk_release(s->chunks[k]);
		free(s->chunks[k]);
	}
	free(s->chunks);
	free(s->context);
	free(s->examples);
	rule_result_release(&s->result);
	memset(s, 0, sizeof(*s));
	s->result.rule = rule;
	s->result.id = id;
	s->result.status = RULE_QUEUED;
	c->unsettled++;
}

int check_retry(struct check *c)
{
	size_t i, n = 0;
	int error = 0;

	if (!c->done)
		return error_set(RL_EUSAGE, "the check is still running");
	for (i = 0; i < c->nstates; i++)
		n += failed(c->states[i].result.status);
	if (!n)
		return error_set(RL_EUSAGE, "no rule failed or timed out");
	c->done = c->cancelled = c->reducing = false;
	c->status = "running";
	report_release(&c->report);
	findings_free(c->reduce_input, c->nreduce_input);
	c->reduce_input = NULL;
	c->nreduce_input = 0;
	chunk_release(&c->reduce);
	memset(&c->reduce, 0, sizeof(c->reduce));
	for (i = 0; i < c->nstates; i++)
		if (failed(c->states[i].result.status))
			rule_reset(c, i);
	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.status == RULE_QUEUED)
			error = start_rule(c, i);
	check_advance(c);
	return error;
}

bool check_done(const struct check *c)
{
	return c->done;
}

size_t check_nresults(const struct check *c)
{
	return c->nstates;
}

const struct rule_result *check_result(const struct check *c, size_t index)
{
	return &c->states[index].result;
}

long check_rule_streamed(const struct check *c, size_t index)
{
	return c->states[index].result.tokens_streamed;
}

long check_rule_elapsed_ms(const struct check *c, size_t index)
{
	const struct rule_state *s = &c->states[index];

	return s->started_ms ? (long)(clock_ms() - s->started_ms) : 0;
}

bool check_rule_attempt(const struct check *c, size_t index, int *attempt, int *of, long *elapsed_ms)
{
	const struct rule_state *s = &c->states[index];
	size_t k;

	*attempt = 0;
	*elapsed_ms = -1;
	*of = c->opts.sched.retries + 1;
	for (k = 0; k < s->nchunks; k++) {
		int n;
		long ms;

		if (s->chunks[k]->settled || !s->chunks[k]->ask ||
		    ask_attempt(&n, &ms, c->asker, s->chunks[k]->ask) < 0 || n <= *attempt)
			continue;
		*attempt = n;
		*elapsed_ms = ms;
	}
	return *attempt > 1;
}

const struct rule_set *check_rules(const struct check *c)
{
	return &c->rules;
}

const struct report *check_report(const struct check *c)
{
	return &c->report;
}

const struct check_stats *check_stats(const struct check *c)
{
	return &c->stats;
}

const char *check_status(const struct check *c)
{
	return c->status;
}

int64_t check_id(const struct check *c)
{
	return c->id;
}

long check_duration_ms(const struct check *c)
{
	return c->done ? c->duration_ms : (long)(clock_ms() - c->started_ms);
}

size_t check_unverified(const struct check *c)
{
	size_t i, k, n = 0;

	for (i = 0; i < c->nstates; i++)
		for (k = 0; k < c->states[i].result.nfindings; k++)
			n += !c->states[i].result.findings[k].verified;
	return n;
}

const char *check_store_error(const struct check *c)
{
	return c->store_error;
}

size_t check_nnotes(const struct check *c)
{
	return c->nnotes;
}

const char *check_note(const struct check *c, size_t index)
{
	return index < c->nnotes ? c->notes[index] : NULL;
}

size_t check_untracked(const struct check *c)
{
	return c->untracked;
}

bool check_deadline_passed(const struct check *c)
{
	return c->asker && sched_deadline_passed(asker_sched(c->asker));
}

bool check_stored(const struct check *c)
{
	return c->opts.store && c->id && !c->store_error;
}

const struct depreview *check_deps(const struct check *c)
{
	return c->deps;
}

bool check_deps_pending(const struct check *c)
{
	return c->deps && !c->rules_started;
}

const struct timeout_choice *check_timeout_choice(const struct check *c)
{
	return &c->timeout;
}
