/* A fix of one signal or finding: ask, propose, apply, recheck, undo. */
#include "fix.h"
#include "fix_internal.h"
#include "editwin.h"
#include "finding.h"
#include "history.h"
#include "lint.h"
#include "patch.h"
#include "prompt.h"
#include "signals.h"
#include "status.h"
#include "store_fixes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_text(char **field, const char *text)
{
	free(*field);
	*field = text ? strdup(text) : NULL;
}

/* --- the targets ---------------------------------------------------------- */

static int fix_alloc(struct fix **out, const struct fix_options *options)
{
	struct fix *fix = calloc(1, sizeof(*fix));

	*out = fix;
	if (!fix)
		return error_nomem();
	fix->opts = *options;
	return 0;
}

int fix_new_signal(struct fix **out, const struct fix_options *options, const struct signal *signal)
{
	struct fix_target *t;

	if (fix_alloc(out, options) < 0)
		return -1;
	t = &(*out)->target;
	t->file = strdup(signal->file);
	t->tool = strdup(signal->tool);
	t->code = strdup(signal->code ? signal->code : "");
	t->message = strdup(signal->message);
	t->line = signal->line > 0 ? signal->line : 1;
	t->end_line = signal->end_line > t->line ? signal->end_line : 0;
	t->column = signal->column;
	t->signal_id = signal->id;
	if (!t->file || !t->tool || !t->code || !t->message) {
		fix_free(*out);
		*out = NULL;
		return error_nomem();
	}
	return 0;
}

/* A finding of this repository's checks, by id: the target takes its fields. */
static int finding_load(struct fix_target *t, struct store *store, const char *workdir, int64_t id)
{
	char *key = history_repo_key(workdir);
	struct finding f;
	int error;

	if (!key)
		return error_nomem();
	error = store_fix_finding(&f, store, key, id);
	free(key);
	if (error == RL_ENOTFOUND)
		return error_set(RL_ENOTFOUND, "no finding %lld in this repository's checks (the ids are "
				 "in 'revline check' and 'revline check --format json')", (long long)id);
	if (error < 0)
		return error;
	t->file = f.file;
	t->line = f.line;
	t->end_line = f.end_line;
	t->rule = f.rule_id;
	t->severity = strdup(severity_name(f.severity));
	t->title = f.title;
	t->issue = f.issue;
	t->suggestion = f.suggestion;
	t->finding_id = id;
	error = 0;
	if (finding_in_message(&f))
		error = error_set(RL_EUSAGE, "finding %lld is in the message of %s, not in a file: revline fixes "
				  "files; reword the message (git commit --amend for the last commit, git rebase -i "
				  "for an older one)", (long long)id, t->file);
	else if (!t->file || !*t->file || t->line < 1)
		error = error_set(RL_EUSAGE, "finding %lld has no file and line to fix", (long long)id);
	free(f.verify_note);
	return error;
}

int fix_new_finding(struct fix **out, const struct fix_options *options, int64_t finding_id)
{
	int error;

	if (fix_alloc(out, options) < 0)
		return -1;
	if ((error = finding_load(&(*out)->target, options->store, options->workdir, finding_id)) < 0) {
		fix_free(*out);
		*out = NULL;
	}
	return error;
}

static void target_release(struct fix_target *t)
{
	free(t->file);
	free(t->tool);
	free(t->code);
	free(t->message);
	free(t->rule);
	free(t->severity);
	free(t->title);
	free(t->issue);
	free(t->suggestion);
}

void fix_free(struct fix *fix)
{
	if (!fix)
		return;
	poll_group_leave(&fix->member);
	asker_free(fix->asker);
	lint_free(fix->lint);
	lint_free(fix->base);
	fix_context_release(&fix->context);     /* the index leaves the group first */
	poll_group_free(fix->own_group);
	editwin_table_free(fix->own_table);
	target_release(&fix->target);
	editwin_release(&fix->win);
	patch_snippet_release(&fix->snippet);
	patch_undo_release(&fix->undo);
	buf_release(&fix->text);
	buf_release(&fix->replacement);
	free(fix->error);
	free(fix->explanation);
	free(fix->preview);
	free(fix->system);
	free(fix->user);
	free(fix->recheck_detail);
	free(fix);
}

/* --- the window and the prompt ------------------------------------------- */

/* The window's kind in words, for the prompt and messages. */
static const char *window_name(enum editwin_kind kind)
{
	switch (kind) {
	case EDITWIN_FUNCTION: return "the whole function";
	case EDITWIN_IMPORTS: return "the import block";
	case EDITWIN_TRY: return "the whole try statement";
	default: return "the lines around the problem";
	}
}

static int take_window(struct fix *fix)
{
	struct fix_target *t = &fix->target;
	struct editwin_spec spec;
	const struct editwin_table *table = fix->opts.table;
	int error;

	if (!table) {
		if ((error = editwin_table_default(&fix->own_table)) < 0)
			return error;
		table = fix->own_table;
	}
	if (t->tool) {
		editwin_lookup(&spec, table, t->tool, t->code, t->message);
		if (spec.kind == EDITWIN_SKIP)
			return error_set(RL_EUSAGE, "%s %s is not fixed by revline: %s", t->tool, t->code,
					 spec.why ? spec.why : "its edit window is too wide");
		fix->deletes = spec.deletes;
		fix->ends_file = spec.ends_file;
	} else {
		/* A finding: its own lines, with the minimum around them. */
		spec = (struct editwin_spec){ EDITWIN_LINES, 0, EDITWIN_STANDARD_CONTEXT, NULL, false, false, false };
	}
	if ((error = editwin_build(&fix->win, &spec, t->file, fix->text.ptr, fix->text.len, t->line,
				   t->end_line, t->message ? t->message : t->issue)) < 0)
		return error;
	if (fix->win.kind == EDITWIN_LINES)
		snprintf(fix->window, sizeof(fix->window), "lines %d-%d", fix->win.first, fix->win.last);
	else
		snprintf(fix->window, sizeof(fix->window), "%s, lines %d-%d", window_name(fix->win.kind),
			 fix->win.first, fix->win.last);
	if ((error = patch_snippet_take(&fix->snippet, t->file, fix->text.ptr, fix->text.len, fix->win.first,
				       fix->win.last)) < 0)
		return error;
	fix->snippet.ends_file = fix->ends_file;
	fix->snippet.executable = fix->executable;
	return 0;
}

/* Lines first..last of the file, numbered, fenced. */
static int numbered(struct buf *out, const struct fix *fix, int first, int last)
{
	struct buf lines = BUF_INIT;
	const char *p, *end;
	size_t from, to;
	int n = first, error = 0;

	if (!patch_lines(&from, &to, fix->text.ptr, fix->text.len, first, last))
		return error_set(RL_EUSAGE, "%s has no lines %d-%d", fix->target.file, first, last);
	for (p = fix->text.ptr + from, end = fix->text.ptr + to; p < end && !error; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len && p[len - 1] == '\r')
			len--;
		error = buf_printf(&lines, "%5d | %.*s\n", n, (int)len, p);
		p = nl ? nl + 1 : end;
	}
	if (!error)
		error = prompt_fence(out, prompt_language(fix->target.file), lines.ptr ? lines.ptr : "", lines.len);
	buf_release(&lines);
	return error;
}

static int parts_text(struct buf *out, const struct fix *fix)
{
	size_t i;
	int error = 0;

	for (i = 0; i < fix->win.nparts && !error; i++) {
		const struct editwin_part *p = &fix->win.parts[i];

		if ((error = buf_printf(out, "%s%s (lines %d-%d):\n\n", i ? "\n" : "",
					editwin_context_label(p->what), p->first, p->last)) == 0)
			error = numbered(out, fix, p->first, p->last);
	}
	return error;
}

static int trailing_newlines(const struct patch_snippet *s)
{
	int n = 0;
	size_t len = strlen(s->dedented);

	while (len && s->dedented[len - 1] == '\n') {
		n++;
		len--;
	}
	return n;
}

static int build_prompt(struct fix *fix)
{
	const struct fix_target *t = &fix->target;
	struct buf sys = BUF_INIT, user = BUF_INIT, snippet = BUF_INIT, context = BUF_INIT, parts = BUF_INIT;
	char line[16], end_line[16], column[16], first[16], last[16], cfirst[16], clast[16], nl[16];
	int error;

	snprintf(line, sizeof(line), "%d", t->line);
	snprintf(end_line, sizeof(end_line), "%d", t->end_line > t->line ? t->end_line : t->line);
	snprintf(column, sizeof(column), "%d", t->column);
	snprintf(first, sizeof(first), "%d", fix->win.first);
	snprintf(last, sizeof(last), "%d", fix->win.last);
	snprintf(cfirst, sizeof(cfirst), "%d", fix->win.context_first);
	snprintf(clast, sizeof(clast), "%d", fix->win.context_last);
	snprintf(nl, sizeof(nl), "%d", trailing_newlines(&fix->snippet));
	if ((error = prompt_fence(&snippet, prompt_language(t->file), fix->snippet.dedented,
				  strlen(fix->snippet.dedented))) < 0 ||
	    (error = numbered(&context, fix, fix->win.context_first, fix->win.context_last)) < 0 ||
	    (error = parts_text(&parts, fix)) < 0)
		goto done;
	{
		/* What comes from the file, the linter or the review is data (prompt.h). */
		const struct prompt_var vars[] = {
			{ "file", t->file, "the file's name" }, { "language", prompt_language(t->file), NULL },
			{ "signal", t->tool ? "yes" : NULL, NULL }, { "tool", t->tool, "the tool's name" },
			{ "code", t->code, "the tool's code" }, { "message", t->message, "the tool's message" },
			{ "line", line, NULL }, { "end_line", end_line, NULL },
			{ "column", t->column > 0 ? column : NULL, NULL },
			{ "finding", t->tool ? NULL : "yes", NULL }, { "rule", t->rule, "the rule's id" },
			{ "severity", t->severity, NULL }, { "title", t->title, "the finding's title" },
			{ "issue", t->issue, "the finding" }, { "suggestion", t->suggestion, "the suggested fix" },
			{ "first", first, NULL }, { "last", last, NULL }, { "window", window_name(fix->win.kind), NULL },
			{ "trailing_newlines", nl, NULL }, { "snippet", snippet.ptr, "the snippet, from the file" },
			{ "keeps_end", fix->snippet.ends_file && fix->snippet.at_end ? NULL : "yes", NULL },
			{ "ends_file", fix->snippet.ends_file && fix->snippet.at_end ? "yes" : NULL, NULL },
			{ "context_first", cfirst, NULL }, { "context_last", clast, NULL },
			{ "context", context.ptr, "the lines around the snippet, from the file" },
			{ "parts", parts.ptr, "more of the file" },
			{ "definitions", fix->context.text.len ? fix->context.text.ptr : NULL,
			  "definitions from the repository" },
		};

		error = prompt_render(&sys, &user, "fix", vars, sizeof(vars) / sizeof(vars[0]));
	}
	if (!error) {
		free(fix->system);
		free(fix->user);
		fix->system = buf_detach(&sys);
		fix->user = buf_detach(&user);
	}
done:
	buf_release(&sys);
	buf_release(&user);
	buf_release(&snippet);
	buf_release(&context);
	buf_release(&parts);
	return error;
}

/* --- the store ------------------------------------------------------------ */

static int row_insert(struct fix *fix)
{
	const struct fix_target *t = &fix->target;
	const struct fix_row row = {
		.signal_id = t->signal_id, .finding_id = t->finding_id, .tool = t->tool, .code = t->code,
		.message = t->message ? t->message : t->title, .file = t->file, .first = fix->win.first,
		.last = fix->win.last, .window = fix->window, .snippet = &fix->snippet,
		.model = fix->opts.llm ? fix->opts.llm->model : NULL,
	};
	char *key = history_repo_key(fix->opts.workdir);
	int error;

	if (!key)
		return error_nomem();
	error = store_fix_add(&fix->id, fix->opts.store, key, &row);
	free(key);
	return error;
}

/* The row keeps up with the fix (best effort: the fix goes on without it). */
static void fail(struct fix *fix, const char *why)
{
	set_text(&fix->error, why);
	fix->state = FIX_FAILED;
	if (fix->id)
		store_fix_failed(fix->opts.store, fix->id, fix->error);
}

static void recheck_keep(struct fix *fix)
{
	if (fix->id)
		store_fix_recheck(fix->opts.store, fix->id, fix->recheck, fix->recheck_detail);
}

/* --- asking --------------------------------------------------------------- */

/* Asked afresh each time (the user asks again for another fix); the answer is still kept. */
static int submit(struct fix *fix)
{
	struct ask_spec spec = { SCHEMA_FIX, fix->opts.llm->model, NULL, fix->system, NULL, fix->user,
				 strlen(fix->system) + strlen(fix->user), true, fix };
	uint64_t id;

	return ask_submit(fix->asker, &id, &spec);
}

/*
 * The signal's linter on the file as it is, while the fix is asked for:
 * the recheck compares the whole file's signals after the apply with
 * these. Best effort: without them only the fixed lines are compared.
 */
static int member_join(struct fix *fix);

static void baseline_start(struct fix *fix)
{
	const char *files[1] = { fix->target.file };

	if (!fix->target.tool || linter_of_name(fix->target.tool) < 0)
		return;
	if (lint_new(&fix->base, fix->opts.workdir, fix->opts.config, files, 1, fix->target.tool) < 0 ||
	    lint_start(fix->base, fix->member.group) < 0) {
		error_clear();
		lint_free(fix->base);
		fix->base = NULL;
	}
}

/* What the linter said of the file before the apply, or NULL. */
static const struct signal_list *baseline(const struct fix *fix)
{
	const struct lint_result *r = fix->base && lint_done(fix->base) ? lint_result(fix->base, 0) : NULL;

	return r && r->status == LINT_DONE ? &r->signals : NULL;
}

/*
 * The request, once the index is done: the prompt built again with the
 * definitions its code uses, when there are any, and sent. A failure is
 * the fix's.
 */
static int ask(struct fix *fix)
{
	int error;

	fix->asked = true;
	if ((error = fix_context_find(fix)) < 0 || (fix->context.text.len && (error = build_prompt(fix)) < 0) ||
	    (error = submit(fix)) < 0)
		fail(fix, error_message());
	return error;
}

/* The prompt is built first without the definitions: what is wrong with it is said at once. */
int fix_start(struct fix *fix)
{
	size_t settled;
	int error;

	if (!fix->opts.llm || fix->opts.llm->provider == PROVIDER_NONE)
		return error_set(RL_ECONFIG, "asking for a fix needs an LLM: %s", llm_setup_hint);
	/* A fix a kill left pending may be this file's: settled first (best effort). */
	if (fix_recover(&settled, fix->opts.store, fix->opts.workdir) < 0)
		error_clear();
	if ((error = patch_read(&fix->text, &fix->executable, fix->opts.workdir, fix->target.file)) < 0 ||
	    (error = take_window(fix)) < 0 || (error = build_prompt(fix)) < 0 ||
	    (error = member_join(fix)) < 0 ||
	    (error = asker_new(&fix->asker, fix->opts.llm, &fix->opts.sched, &fix->opts.ask,
			       fix->opts.store, fix->member.group)) < 0 ||
	    (error = fix_context_begin(fix)) < 0 || (error = row_insert(fix)) < 0)
		return error;
	fix->state = FIX_ASKING;
	if (!fix_context_waiting(fix) && (error = ask(fix)) < 0)
		return error;
	baseline_start(fix);
	return 0;
}

static bool blank(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(" \t\r\n\f\v", p[i]))
			return false;
	return true;
}

/* Whether lines first..last of the text hold nothing but blanks. */
static bool lines_blank(const struct fix *fix, int first, int last)
{
	size_t from, to;

	return first > last || !patch_lines(&from, &to, fix->text.ptr, fix->text.len, first, last) ||
	       blank(fix->text.ptr + from, to - from);
}

/*
 * An answer that deletes the whole edit window (an empty fixed_code) is
 * refused, unless the signal's row says its fix may delete its lines and
 * the window holds nothing else: an unused import alone in its window may
 * go, a whole import block for one unused name may not.
 */
static bool destructive(const struct fix *fix)
{
	const struct fix_target *t = &fix->target;
	int last = t->end_line > t->line ? t->end_line : t->line;

	if (!blank(fix->replacement.ptr ? fix->replacement.ptr : "", fix->replacement.len) ||
	    lines_blank(fix, fix->win.first, fix->win.last))
		return false;
	if (fix->deletes && lines_blank(fix, fix->win.first, t->line - 1) &&
	    lines_blank(fix, last + 1, fix->win.last))
		return false;
	if (fix->deletes)
		error_set(RL_EUSAGE, "refused: the answer deletes the whole edit window (%s) for one %s at line "
			  "%d; only the signal's own lines may go (ask again)", fix->window,
			  t->code ? t->code : "problem", t->line);
	else
		error_set(RL_EUSAGE, "refused: the answer deletes the whole edit window (%s), and %s does not "
			  "call for a deletion (ask again)", fix->window, t->code && *t->code ? t->code :
			  "this problem");
	return true;
}

/*
 * An answer that leaves the file as it is (the model gave the snippet
 * back, or what it changed was put back into the snippet's shape) is no
 * fix: it fails, saying so, with the model's words on why.
 */
static void unchanged(struct fix *fix)
{
	struct buf why = BUF_INIT;

	if (buf_printf(&why, "the fix changes nothing in %s (%s)%s%s", fix->target.file, fix->window,
		       fix->explanation && *fix->explanation ? ": " : "",
		       fix->explanation ? fix->explanation : "") < 0)
		error_clear();
	fail(fix, why.ptr ? why.ptr : "the fix changes nothing");
	buf_release(&why);
}

/* The answer: {"fixed_code", "explanation"}, into the file's shape and a diff. */
static void propose(struct fix *fix, const char *text)
{
	json_t *root = NULL, *code, *why;
	struct buf preview = BUF_INIT;

	if (llm_extract_json(&root, text, strlen(text)) < 0 || !json_is_object(root)) {
		fail(fix, root ? "the answer is not a JSON object" : error_message());
		goto done;
	}
	code = json_object_get(root, "fixed_code");
	why = json_object_get(root, "explanation");
	if (!json_is_string(code)) {
		fail(fix, "the answer has no \"fixed_code\" string");
		goto done;
	}
	set_text(&fix->explanation, json_is_string(why) ? json_string_value(why) : "");
	buf_clear(&fix->replacement);
	if (patch_reindent(&fix->replacement, &fix->snippet, json_string_value(code), json_string_length(code)) < 0 ||
	    patch_preview(&preview, &fix->snippet, fix->text.ptr, fix->text.len,
			  fix->replacement.ptr ? fix->replacement.ptr : "", fix->replacement.len) < 0) {
		fail(fix, error_message());
		goto done;
	}
	if (destructive(fix)) {
		fail(fix, error_message());
		goto done;
	}
	if (!preview.len) {
		unchanged(fix);
		goto done;
	}
	free(fix->preview);
	fix->preview = buf_detach(&preview);
	if (!fix->preview)
		fix->preview = strdup("");
	fix->state = FIX_PROPOSED;
	if (fix->id)
		store_fix_proposed(fix->opts.store, fix->id, fix->replacement.ptr, fix->replacement.len,
				   fix->explanation, fix->preview);
done:
	json_decref(root);
	buf_release(&preview);
}

static void on_event(struct fix *fix, const struct ask_event *ev)
{
	if (ev->status == ASK_STARTED || ev->status == ASK_PROGRESS || fix->state != FIX_ASKING)
		return;
	if (ev->status == ASK_DONE)
		propose(fix, ev->text);
	else
		fail(fix, ev->error);
}

/* --- rechecking ----------------------------------------------------------- */

static int region_last(const struct fix *fix)
{
	int lines = 0;
	size_t i;

	for (i = 0; i < fix->replacement.len; i++)
		lines += fix->replacement.ptr[i] == '\n';
	if (fix->replacement.len && fix->replacement.ptr[fix->replacement.len - 1] != '\n')
		lines++;
	return fix->win.first + (lines ? lines - 1 : 0);
}

/* Where a line before the fix is after it: lines below the window move by the change in its length. */
static int line_after(const struct fix *fix, int line)
{
	return line > fix->win.last ? line + region_last(fix) - fix->win.last : line;
}

static bool in_window(const struct fix *fix, int line, bool after)
{
	return line >= fix->win.first && line <= (after ? region_last(fix) : fix->win.last);
}

/*
 * Two messages of one code say the same but for their numbers: a message
 * may name a line ("redefinition of unused 'x' from line 68"), which moves
 * when a fix adds or removes lines, or a count ("line too long (90 > 79)").
 */
static bool same_message(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (isdigit((unsigned char)*a))
				a++;
			while (isdigit((unsigned char)*b))
				b++;
		} else if (*a++ != *b++) {
			return false;
		}
	}
	return *a == *b;
}

static bool is_target(const struct fix *fix, const struct signal *s)
{
	return !strcmp(s->code, fix->target.code) && same_message(s->message, fix->target.message);
}

/*
 * A signal now that was there before: the same code and message (but for
 * its numbers), at the same place once lines are shifted, or anywhere in
 * the rewritten window when both are in it. Each signal before answers for
 * one now.
 */
static bool was_there(const struct fix *fix, const struct signal_list *before, bool *used, const struct signal *s)
{
	bool inside = in_window(fix, s->line, true);
	size_t i;

	for (i = 0; i < before->count; i++) {
		const struct signal *b = &before->items[i];

		if (used[i] || strcmp(b->file, s->file) || strcmp(b->code, s->code) || !same_message(b->message, s->message))
			continue;
		if (inside ? in_window(fix, b->line, false) : line_after(fix, b->line) == s->line) {
			used[i] = true;
			return true;
		}
	}
	return false;
}

#define RECHECK_LISTED 5        /* new signals named in the detail; the rest are counted */

/*
 * What the linter says of the whole file now, against what it said before
 * the apply (the baseline): the signal is still there when it is reported
 * in the rewritten lines as often as before; any signal that was not there
 * before is new, wherever it is. Without a baseline only the rewritten
 * lines are looked at, and the detail says so.
 */
static void recheck_judge(struct fix *fix, const struct signal_list *now)
{
	const struct signal_list *before = baseline(fix);
	const struct fix_target *t = &fix->target;
	bool *used = before && before->count ? calloc(before->count, sizeof(*used)) : NULL;
	struct buf detail = BUF_INIT, fresh = BUF_INIT;
	size_t i, nfresh = 0, was = 0, is = 0;

	if (before && before->count && !used)
		before = NULL;
	for (i = 0; before && i < before->count; i++)
		was += !strcmp(before->items[i].file, t->file) && in_window(fix, before->items[i].line, false) &&
		       is_target(fix, &before->items[i]);
	for (i = 0; i < now->count; i++) {
		const struct signal *s = &now->items[i];

		if (strcmp(s->file, t->file))
			continue;
		if (in_window(fix, s->line, true) && (before ? is_target(fix, s) : !strcmp(s->code, t->code)))
			is++;
		if (before ? was_there(fix, before, used, s) :
		    !in_window(fix, s->line, true) || !strcmp(s->code, t->code))
			continue;
		if (++nfresh <= RECHECK_LISTED)
			buf_printf(&fresh, "%s%s at line %d (%s)", nfresh > 1 ? ", " : "", *s->code ? s->code : "?",
				   s->line, s->message);
	}
	if (nfresh > RECHECK_LISTED)
		buf_printf(&fresh, " and %zu more", nfresh - RECHECK_LISTED);
	if (is && is >= (was ? was : 1)) {
		fix->recheck = RECHECK_STILL;
		buf_printf(&detail, "%s still reports %s in lines %d-%d", t->tool, t->code, fix->win.first,
			   region_last(fix));
		if (nfresh)
			buf_printf(&detail, ", and %zu new problem%s: %s", nfresh, nfresh == 1 ? "" : "s", fresh.ptr);
	} else if (nfresh) {
		fix->recheck = RECHECK_NEW;
		buf_printf(&detail, "%s no longer reports %s at line %d, but reports %zu new problem%s: %s",
			   t->tool, t->code, t->line, nfresh, nfresh == 1 ? "" : "s", fresh.ptr);
	} else {
		fix->recheck = RECHECK_GONE;
		buf_printf(&detail, "%s no longer reports %s at line %d", t->tool, t->code, t->line);
	}
	if (!before)
		buf_puts(&detail, " (only the fixed lines were compared: the linter's run before the fix failed)");
	free(fix->recheck_detail);
	fix->recheck_detail = buf_detach(&detail);
	buf_release(&fresh);
	free(used);
}

static void recheck_finish(struct fix *fix)
{
	const struct lint_result *r = lint_result(fix->lint, 0);

	if (r && r->status == LINT_DONE) {
		recheck_judge(fix, &r->signals);
	} else {
		fix->recheck = RECHECK_NOT_RUN;
		set_text(&fix->recheck_detail, r && r->message ? r->message : "the linter did not run");
	}
	lint_free(fix->lint);
	fix->lint = NULL;
	recheck_keep(fix);
}

static void recheck_not_run(struct fix *fix, const char *why)
{
	fix->recheck = RECHECK_NOT_RUN;
	set_text(&fix->recheck_detail, why);
	recheck_keep(fix);
}

static void recheck_start(struct fix *fix)
{
	const char *files[1] = { fix->target.file };

	if (!fix->target.tool) {
		recheck_not_run(fix, "a finding's fix: no linter to ask");
		return;
	}
	if (linter_of_name(fix->target.tool) < 0) {
		recheck_not_run(fix, "revline does not run this tool");
		return;
	}
	if (member_join(fix) < 0 ||
	    lint_new(&fix->lint, fix->opts.workdir, fix->opts.config, files, 1, fix->target.tool) < 0 ||
	    lint_start(fix->lint, fix->member.group) < 0) {
		recheck_not_run(fix, error_message());
		lint_free(fix->lint);
		fix->lint = NULL;
		return;
	}
	fix->recheck = RECHECK_RUNNING;
}

/* --- the loop ------------------------------------------------------------- */

/* Whether the index is done and the request waits to be sent. */
static bool ask_due(const struct fix *fix)
{
	return fix->state == FIX_ASKING && !fix->asked && !fix_context_waiting(fix);
}

static void drain(struct fix *fix)
{
	struct ask_event ev;

	if (ask_due(fix) && ask(fix) < 0)
		error_clear();

	while (fix->asker && asker_next(fix->asker, &ev)) {
		on_event(fix, &ev);
		ask_event_release(&ev);
	}
	/*
	 * Answered (or failed, or cancelled): the request cycle goes, its
	 * scheduler's connections with it, and the prompt; a fix kept for the
	 * session keeps what it shows and what applies and undoes it.
	 */
	if (fix->asker && fix->state != FIX_ASKING) {
		asker_free(fix->asker);
		fix->asker = NULL;
		free(fix->system);
		free(fix->user);
		fix->system = fix->user = NULL;
	}
	if (fix->lint && lint_done(fix->lint))
		recheck_finish(fix);
}

static bool base_running(const struct fix *fix)
{
	return fix->base && !lint_done(fix->base);
}

static int member_timeout(void *ctx)
{
	struct fix *fix = ctx;

	/* The index is done, or the recheck's linter: taken at once. */
	return ask_due(fix) || (fix->lint && lint_done(fix->lint)) ? 0 : -1;
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	(void)fds;
	(void)n;
	drain(ctx);
	return 0;
}

/* The fix joins the options' poll group, or one of its own, before what it starts there. */
static int member_join(struct fix *fix)
{
	int error;

	if (fix->member.group)
		return 0;
	if (!fix->opts.group && !fix->own_group && (error = poll_group_new(&fix->own_group)) < 0)
		return error;
	fix->member.timeout = member_timeout;
	fix->member.step = member_step;
	fix->member.ctx = fix;
	return poll_group_join(fix->opts.group ? fix->opts.group : fix->own_group, &fix->member);
}

int fix_wait(struct fix *fix, int max_ms)
{
	if (!fix->member.group || !fix_busy(fix))
		return 0;
	return poll_group_wait(fix->member.group, max_ms);
}

/* Asking, rechecking, or reading the file's signals before a proposal can be applied. */
bool fix_busy(const struct fix *fix)
{
	return fix->state == FIX_ASKING || fix->lint != NULL || (fix->state == FIX_PROPOSED && base_running(fix));
}

void fix_cancel(struct fix *fix)
{
	if (fix->state == FIX_ASKING) {
		fix_context_cancel(fix);
		asker_cancel_all(fix->asker);
		fail(fix, "cancelled");
	}
	if (base_running(fix))
		lint_cancel(fix->base);
	if (fix->lint) {
		lint_cancel(fix->lint);
		recheck_finish(fix);
	}
}

/* --- apply, reject, undo -------------------------------------------------- */

/*
 * An apply and its record cannot disagree. The undo record (offset, the
 * bytes before and after, the whole file's ids) is committed first, as
 * status 'applied' without applied_at: pending. The file is written inside
 * a second write transaction, which sets applied_at. So a kill at any
 * instant leaves the old file with no record or a pending one, or the new
 * file with a pending or a complete record; recover() settles a pending
 * record from the file. Holding the store's write lock while the file is
 * written keeps another revline's recover() from judging the record half
 * way. A database that stays locked past the busy timeout refuses the
 * apply before the file is touched.
 */

/* A file written or put back under the store's write lock (store_fix_write, store_fix_undo). */
struct locked_write {
	struct fix *fix;
	struct patch_pending *pending;  /* NULL: the undo */
	bool ran;                       /* the lock was taken and the row allowed it */
};

static int locked_write_run(void *payload)
{
	struct locked_write *job = payload;

	job->ran = true;
	if (job->pending)
		return patch_pending_write(job->pending);
	return patch_undo(job->fix->opts.workdir, &job->fix->undo);
}

/*
 * The write. Once the file is written the fix is applied whatever the
 * database says next: a failed commit leaves the record pending, which
 * recover() completes from the file.
 */
static int write_recorded(struct fix *fix, struct patch_pending *pending)
{
	struct locked_write job = { fix, pending, false };
	int error;

	if (!fix->id)
		return patch_pending_write(pending);
	error = store_fix_write(fix->opts.store, fix->id, fix->state, locked_write_run, &job);
	if (!error || job.ran)
		return error;
	if (error == RL_ECONFLICT)
		return error_set(error, "%s; %s is unchanged: apply the fix again", error_message(),
				 fix->target.file);
	return error_set(error, "%s; the fix was not applied: %s is unchanged", error_message(),
			 fix->target.file);
}

int fix_apply(struct fix *fix)
{
	struct patch_pending *pending = NULL;
	int error;

	if (fix->state != FIX_PROPOSED && fix->state != FIX_REJECTED && fix->state != FIX_UNDONE)
		return error_set(RL_EUSAGE, "there is no proposed fix to apply (it is %s)",
				 fix_state_name(fix->state));
	/* The file's signals before: usually read while the fix was asked for. */
	while (base_running(fix))
		if (lint_wait(fix->base, -1) < 0) {
			error_clear();
			lint_cancel(fix->base);
		}
	patch_undo_release(&fix->undo);
	if ((error = patch_prepare(&pending, &fix->undo, fix->opts.workdir, &fix->snippet,
				   fix->replacement.ptr ? fix->replacement.ptr : "", fix->replacement.len)) < 0)
		goto done;
	if (fix->id && (error = store_fix_pending(fix->opts.store, fix->id, &fix->undo)) < 0) {
		error = error_set(error, "cannot record fix %lld before writing it: %s; the fix was not applied: "
				  "%s is unchanged", (long long)fix->id, error_message(), fix->target.file);
		goto done;
	}
	if ((error = write_recorded(fix, pending)) < 0)
		goto done;
	fix->state = FIX_APPLIED;
	recheck_start(fix);
done:
	if (error < 0) {
		set_text(&fix->error, error_message());
		patch_undo_release(&fix->undo);
	}
	patch_pending_free(pending);
	return error;
}

int fix_reject(struct fix *fix)
{
	if (fix->state != FIX_PROPOSED)
		return error_set(RL_EUSAGE, "there is no proposed fix to reject (it is %s)", fix_state_name(fix->state));
	fix->state = FIX_REJECTED;
	return fix->id ? store_fix_rejected(fix->opts.store, fix->id) : 0;
}

/*
 * The file put back and the row marked undone under the store's write
 * lock: a locked database refuses before the file is touched, and a kill
 * after the write leaves a row still 'applied' whose undo, asked again,
 * finds the file already as it was and only marks it.
 */
static int undo_recorded(struct fix *fix)
{
	struct locked_write job = { fix, NULL, false };
	int error;

	if (!fix->id)
		return patch_undo(fix->opts.workdir, &fix->undo);
	if ((error = store_fix_undo(fix->opts.store, fix->id, locked_write_run, &job)) < 0 && !job.ran)
		error = error_set(error, "%s; the fix was not undone: %s is unchanged", error_message(),
				  fix->undo.path);
	return error;
}

int fix_undo(struct fix *fix)
{
	int error;

	if (fix->state != FIX_APPLIED)
		return error_set(RL_EUSAGE, "the fix is not applied (it is %s)", fix_state_name(fix->state));
	if (fix->lint) {
		lint_cancel(fix->lint);
		recheck_finish(fix);
	}
	if ((error = undo_recorded(fix)) < 0) {
		set_text(&fix->error, error_message());
		return error;
	}
	/* The file is what it was: the same snippet applies again. */
	fix->state = FIX_UNDONE;
	return 0;
}

/* --- records a kill left pending ------------------------------------------ */

/* What the file says about a pending apply: the fix is in it (why left empty), or why it failed. */
static int pending_judge(struct buf *why, const char *workdir, const struct patch_undo *undo)
{
	enum patch_side side = PATCH_NEITHER;
	size_t removed;

	if (patch_side(&side, workdir, undo) < 0)
		error_clear();
	/* The temporary file of a write killed before its rename. */
	if (patch_leftovers_remove(&removed, workdir, undo->path) < 0)
		error_clear();
	if (side == PATCH_AFTER)
		return 0;
	if (side == PATCH_BEFORE)
		return buf_puts(why, "interrupted before the file was written; it is unchanged");
	return buf_printf(why, "interrupted while it was being applied, and %s has changed since: revline "
			  "cannot tell whether the fix is in it; look at the file", undo->path);
}

/*
 * Settle the pending records (one, a repository's, or all) from their
 * files, under the store's write lock, so that no apply is half way: the
 * file holds the fix, and the record is completed (undo works); the file
 * is as it was, and the fix failed, "interrupted before the file was
 * written"; the file is neither, and the fix failed, saying so.
 */
static int recover(size_t *settled, struct store *store, int64_t id, const char *key)
{
	return store_fixes_settle(settled, store, id, key, pending_judge);
}

int fix_recover(size_t *settled, struct store *store, const char *workdir)
{
	char *key = workdir ? history_repo_key(workdir) : NULL;
	int error;

	*settled = 0;
	if (workdir && !key)
		return error_nomem();
	error = recover(settled, store, 0, key);
	free(key);
	return error;
}

static int not_applied(int64_t fix_id)
{
	if (fix_id)
		return error_set(RL_ENOTFOUND, "fix %lld is not an applied fix of this repository "
				 "(see 'revline signals' for the fixes)", (long long)fix_id);
	return error_set(RL_ENOTFOUND, "no applied fix to undo in this repository");
}

int fix_undo_stored(int64_t *undone, struct store *store, const char *workdir, int64_t fix_id)
{
	struct fix row = { .opts.store = store, .opts.workdir = workdir };
	char *key = history_repo_key(workdir);
	size_t settled;
	int error;

	*undone = 0;
	if (!key)
		return error_nomem();
	/* An apply a kill left pending is one to undo too, once its file says it happened. */
	if ((error = recover(&settled, store, 0, key)) < 0) {
		error = error_set(error, "%s; nothing was undone", error_message());
		goto done;
	}
	if ((error = store_fix_applied_find(&row.id, store, key, fix_id)) == RL_ENOTFOUND)
		error = not_applied(fix_id);
	if (error < 0 || (error = store_fix_undo_get(&row.undo, store, row.id)) < 0 ||
	    (error = undo_recorded(&row)) < 0)
		goto done;
	*undone = row.id;
done:
	patch_undo_release(&row.undo);
	free(key);
	return error;
}

void fix_records_free(struct fix_record *records, size_t count)
{
	store_fix_records_free(records, count);
}

int fix_applied(struct fix_record **out, size_t *count, struct store *store, const char *workdir)
{
	char *key = history_repo_key(workdir);
	size_t settled;
	int error;

	*out = NULL;
	*count = 0;
	if (!key)
		return error_nomem();
	if (recover(&settled, store, 0, key) < 0)
		error_clear();
	error = store_fixes_applied(out, count, store, key);
	free(key);
	return error;
}

int fix_latest(struct fix_summary *out, struct store *store, int64_t signal_id, int64_t finding_id)
{
	bool pending = false;
	size_t settled;
	int error;

	if ((error = store_fix_latest(out, &pending, store, signal_id, finding_id)) != 0 || !pending)
		return error;
	/* A record a kill left pending is settled from its file before it is shown (best effort). */
	if (recover(&settled, store, out->id, NULL) < 0)
		error_clear();
	return store_fix_latest(out, &pending, store, signal_id, finding_id);
}

/* --- what the front ends show --------------------------------------------- */

enum fix_state fix_state(const struct fix *fix)
{
	return fix->state;
}

int64_t fix_id(const struct fix *fix)
{
	return fix->id;
}

const char *fix_file(const struct fix *fix)
{
	return fix->target.file;
}

const char *fix_error(const struct fix *fix)
{
	return fix->error;
}

const char *fix_explanation(const struct fix *fix)
{
	return fix->explanation;
}

const char *fix_preview(const struct fix *fix)
{
	return fix->preview;
}

const struct patch_snippet *fix_snippet(const struct fix *fix)
{
	return &fix->snippet;
}

const char *fix_window(const struct fix *fix)
{
	return fix->window;
}

enum fix_recheck fix_recheck(const struct fix *fix)
{
	return fix->recheck;
}

const char *fix_recheck_detail(const struct fix *fix)
{
	return fix->recheck_detail;
}
