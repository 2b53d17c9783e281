/* The plan of a check: the change cut into parts that fit a request, and each LLM rule's requests over them. */
#include "check_state.h"
#include "feedback.h"
#include "prompt.h"
#include "status.h"
#include "usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a map request holds besides the change and the rule (the template's instructions, the data blocks' tags), in bytes. */
#define MAP_FIXED_BYTES 7000

void check_parts_free(struct check *c)
{
	size_t i;

	for (i = 0; i < c->nparts; i++) {
		free(c->parts[i].diff);
		free(c->parts[i].files);
		free(c->parts[i].cut);
		free(c->parts[i].file);
		free(c->parts[i].context);
		pack_use_release(&c->parts[i].pack_use);
	}
	free(c->parts);
	c->parts = NULL;
	c->nparts = 0;
	c->planned = false;
}

static void notes_drop_cuts(struct check *c)
{
	while (c->notes.count > c->nscope_notes)
		free(c->notes.items[--c->notes.count]);
}

/* Context files, each fenced under its path. */
static int context_text(struct buf *out, struct check *c, const struct rule *rule)
{
	size_t i;
	int error = 0;

	for (i = 0; i < rule->ncontext && !error; i++) {
		struct buf content = BUF_INIT;

		error = buf_printf(out, "## %s\n\n", rule->context_files[i]);
		if (!error && repo_read_workdir(&content, c->repo, rule->context_files[i], 0) < 0)
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
	size_t alloc;
	size_t *starts;         /* chunk k is pieces [starts[k], starts[k + 1]) */
	size_t nchunks;
};

static int plan_add_piece(struct plan *p, struct piece piece)
{
	if (ARRAY_GROW(p->pieces, p->alloc, p->npieces + 1) < 0)
		return RL_ENOMEM;
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
	if (strings_take(&c->notes, note) < 0)
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

/* What the prompt says of a cut hunk. */
static int cut_text(struct buf *out, struct diff *diff, const struct piece *piece)
{
	const struct diff_hunk *hunk = &diff->files[piece->file].hunks[piece->first];

	return buf_printf(out, "%sthe hunk of %s at line %u has %u lines; only the first %u are shown",
			  out->len ? "; " : "", diff->files[piece->file].path,
			  hunk->new_start ? hunk->new_start : hunk->old_start, hunk->nlines, piece->keep);
}

/* A part of the change: its pieces' hunks, fenced, and the files in it. */
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
		n += check_rule_wants(c, rule, &c->diff->files[part->file[i]]);
	*any = n > 0;
	if (n == part->nfiles)
		return 0;
	for (i = 0, n = 0; i < part->nfiles && !error; i++)
		if (check_rule_wants(c, rule, &c->diff->files[part->file[i]]) && n++ < 40)
			error = buf_printf(out, "%s%s", n > 1 ? ", " : "", c->diff->files[part->file[i]].path);
	return error;
}

static int chunk_prompt(struct chunk *k, struct check *c, const struct rule_state *s, const struct part *part,
			const char *rule_files)
{
	const struct rule *rule = s->result.rule;
	struct buf sys = BUF_INIT, shared = BUF_INIT, tail = BUF_INIT;
	char chunk[64] = "", *more = NULL;
	int error;

	if (k->parts > 1)
		snprintf(chunk, sizeof(chunk), "part %d of %d", k->part, k->parts);
	if ((error = check_context_more(&more, c, s, part)) < 0)
		return error;
	/* The rule and revline's own words are instructions; what comes from the repository is data (prompt.h). */
	const struct prompt_var vars[] = {
		{ "rule_id", rule->id, NULL }, { "rule_name", rule->name, NULL },
		{ "severity", severity_name(rule->severity), NULL }, { "category", rule->category, NULL },
		{ "rule_body", rule->body, NULL }, { "chunk", chunk, NULL }, { "examples", s->examples, NULL },
		{ "intent", c->intent, "what the author wrote: the branch name and the commit messages" },
		{ "files", part->files, "file names" }, { "diff", part->diff, "the change" },
		{ "context_files", s->context, "the rule's context files, from the repository" },
		{ "dependencies", depreview_section(c->deps), "the dependency changes, from the manifests and OSV" },
		{ "rule_files", rule_files, "file names" }, { "cut", part->cut, "what was cut" },
		{ "standards", c->standards.text, "the project's standards files" },
		{ "standards_files", c->standards_files, "file names" },
		{ "context", rule->context == RULE_CONTEXT_NONE ? NULL : part->context,
		  "context from the repository: its own code, as the version under review has it" },
		{ "context_more", more, "more context from the repository, for this rule" },
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
	free(more);
	return error;
}

static int chunk_add(struct rule_state *s, struct chunk *k)
{
	if (ARRAY_GROW(s->chunks, s->chunks_alloc, s->nchunks + 1) < 0)
		return RL_ENOMEM;
	s->chunks[s->nchunks++] = k;
	return 0;
}

/* Whether the rule is asked of the LLM in this check: an LLM rule, a provider, a file it applies to. */
static bool asks_llm(struct check *c, const struct rule *rule)
{
	return rule->kind != RULE_LOCAL && c->opts.llm->provider != PROVIDER_NONE &&
		check_rule_files(c, rule) > 0;
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
	if (check_storing(c) && feedback_prompt_examples(&examples, c->opts.store, c->diff, s->result.rule) < 0)
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
	/* The part's neighbours in every request: the author's intent, the project's standards, the dependencies. */
	most += (c->intent ? strlen(c->intent) : 0) + (c->standards.text ? strlen(c->standards.text) : 0) +
		(c->deps ? strlen(depreview_section(c->deps)) : 0) + check_context_budget(c);
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
			    check_rule_wants(c, c->states[r].result.rule, &c->diff->files[i]))
				break;
		if (r < c->nstates && (error = diff_file_load(c->diff, i)) == 0)
			error = plan_file(c, &p, i, budget);
	}
	if (!error && p.npieces && (error = plan_chunks(&p, budget)) == 0 &&
	    !(c->parts = calloc(p.nchunks + 1, sizeof(*c->parts))))
		error = error_nomem();
	for (i = 0; i < p.nchunks && !error; i++, c->nparts++)
		if ((error = part_make(&c->parts[i], c->diff, &p, i)) == 0 &&
		    (error = check_context_part(c, &c->parts[i])) == 0)
			check_context_store(c, i);
	free(p.pieces);
	free(p.starts);
	return error;
}

/* What the rule is shown of the repository besides the diff, said as its result keeps it. */
static const char *rule_context_text(const struct check *c, const struct rule_state *s)
{
	size_t i;

	if (c->opts.context == CONTEXT_NONE || s->result.rule->context == RULE_CONTEXT_NONE)
		return "off";
	for (i = 0; i < s->nchunks; i++)
		if (s->chunks[i]->shared && strstr(s->chunks[i]->shared, "# Context from the repository"))
			return "pack";
	return "nothing found";
}

/* The requests of an LLM rule: one per part of the change with a file it applies to. */
int check_plan_rule(struct check *c, size_t index)
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
	if (!error && !s->result.context && !(s->result.context = strdup(rule_context_text(c, s))))
		error = error_nomem();
	return error;
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
		/* The pack is not made yet: its share, whole, when the rule is shown one. */
		if (c->opts.context != CONTEXT_NONE && s->result.rule->context != RULE_CONTEXT_NONE)
			own += (size_t)c->opts.context_tokens * 4;
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
	check_parts_free(c);
	notes_drop_cuts(c);
	return 0;
}
