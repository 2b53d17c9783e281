/* A fix of one signal or finding: ask, propose, apply, recheck, undo. */
#include "fix.h"
#include "clock.h"
#include "editwin.h"
#include "history.h"
#include "lint.h"
#include "patch.h"
#include "prompt.h"
#include "signals.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What is fixed: a signal, or a finding (tool NULL). */
struct target {
	char *file;
	int line, end_line, column;
	char *tool, *code, *message;            /* a signal */
	char *rule, *severity, *title, *issue, *suggestion;     /* a finding */
	int64_t signal_id, finding_id;
};

struct fix {
	struct fix_options opts;
	struct editwin_table *own_table;
	struct target target;
	struct editwin win;
	struct patch_snippet snippet;
	struct buf text;                /* the file when the snippet was taken */
	char window[96];
	enum fix_state state;
	int64_t id;
	char *error, *explanation, *preview;
	struct buf replacement;
	char *system, *user;
	struct asker *asker;
	struct lint *lint;
	struct lint *base;              /* the linter on the file as it was, while asking */
	struct poll_group *own_group;   /* made when the options gave none */
	struct poll_member member;      /* takes the asker's and the linters' results */
	bool deletes;                   /* the signal's row says its fix may delete its lines */
	bool ends_file;                 /* the signal's row says its fix is of how the file ends */
	enum fix_recheck recheck;
	char *recheck_detail;
	struct patch_undo undo;
};

static const char *const state_names[] = {
#define FIX_STATE_NAME(id, name) name,
	FIX_STATES(FIX_STATE_NAME)
#undef FIX_STATE_NAME
};

static const char *const recheck_names[] = {
#define FIX_RECHECK_NAME(id, name) name,
	FIX_RECHECKS(FIX_RECHECK_NAME)
#undef FIX_RECHECK_NAME
};

const char *fix_state_name(enum fix_state state)
{
	return state_names[state];
}

const char *fix_recheck_name(enum fix_recheck recheck)
{
	return recheck_names[recheck] ? recheck_names[recheck] :
		recheck == RECHECK_RUNNING ? "running" : "none";
}

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
	struct target *t;

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

static char *column_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *text = sqlite3_column_text(stmt, i);

	return text ? strdup((const char *)text) : NULL;
}

/* A finding of this repository's checks, by id. */
static int finding_load(struct target *t, struct store *store, const char *workdir, int64_t id)
{
	char *key = history_repo_key(workdir);
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if (!key)
		return error_nomem();
	if ((error = store_prepare(store, &stmt,
				   "SELECT f.file, f.line, f.end_line, f.rule_id, f.severity, f.title, f.issue, "
				   "f.suggestion FROM findings f JOIN checks c ON c.id = f.check_id "
				   "JOIN repos r ON r.id = c.repo_id WHERE f.id = ?1 AND r.path = ?2")) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 1, id);
	sqlite3_bind_text(stmt, 2, key, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(stmt)) == SQLITE_DONE) {
		error = error_set(RL_ENOTFOUND, "no finding %lld in this repository's checks (the ids are "
				  "in 'revline check' and 'revline check --format json')", (long long)id);
		goto done;
	}
	if (rc != SQLITE_ROW) {
		error = store_fail(store, rc);
		goto done;
	}
	t->file = column_text(stmt, 0);
	t->line = sqlite3_column_int(stmt, 1);
	t->end_line = sqlite3_column_int(stmt, 2);
	t->rule = column_text(stmt, 3);
	t->severity = column_text(stmt, 4);
	t->title = column_text(stmt, 5);
	t->issue = column_text(stmt, 6);
	t->suggestion = column_text(stmt, 7);
	t->finding_id = id;
	if (!t->file || !*t->file || t->line < 1)
		error = error_set(RL_EUSAGE, "finding %lld has no file and line to fix", (long long)id);
done:
	sqlite3_finalize(stmt);
	free(key);
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

static void target_release(struct target *t)
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

static const char *language_of(const char *path)
{
	static const struct { const char *ext, *name; } langs[] = {
		{ ".py", "python" }, { ".pyi", "python" }, { ".c", "c" }, { ".h", "c" },
		{ ".cc", "cpp" }, { ".cpp", "cpp" }, { ".cxx", "cpp" }, { ".hpp", "cpp" },
		{ ".go", "go" }, { ".rs", "rust" }, { ".js", "javascript" }, { ".mjs", "javascript" },
		{ ".ts", "typescript" }, { ".tsx", "tsx" }, { ".java", "java" }, { ".sh", "bash" },
		{ ".bash", "bash" }, { ".rb", "ruby" },
	};
	const char *dot = strrchr(path, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strcmp(dot, langs[i].ext))
			return langs[i].name;
	return "text";
}

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
	struct target *t = &fix->target;
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
		error = prompt_fence(out, language_of(fix->target.file), lines.ptr ? lines.ptr : "", lines.len);
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
	const struct target *t = &fix->target;
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
	if ((error = prompt_fence(&snippet, language_of(t->file), fix->snippet.dedented,
				  strlen(fix->snippet.dedented))) < 0 ||
	    (error = numbered(&context, fix, fix->win.context_first, fix->win.context_last)) < 0 ||
	    (error = parts_text(&parts, fix)) < 0)
		goto done;
	{
		const struct prompt_var vars[] = {
			{ "file", t->file }, { "language", language_of(t->file) },
			{ "signal", t->tool ? "yes" : NULL }, { "tool", t->tool }, { "code", t->code },
			{ "message", t->message }, { "line", line }, { "end_line", end_line },
			{ "column", t->column > 0 ? column : NULL },
			{ "finding", t->tool ? NULL : "yes" }, { "rule", t->rule }, { "severity", t->severity },
			{ "title", t->title }, { "issue", t->issue }, { "suggestion", t->suggestion },
			{ "first", first }, { "last", last }, { "window", window_name(fix->win.kind) },
			{ "trailing_newlines", nl }, { "snippet", snippet.ptr },
			{ "keeps_end", fix->snippet.ends_file && fix->snippet.at_end ? NULL : "yes" },
			{ "ends_file", fix->snippet.ends_file && fix->snippet.at_end ? "yes" : NULL },
			{ "context_first", cfirst }, { "context_last", clast }, { "context", context.ptr },
			{ "parts", parts.ptr },
		};

		error = prompt_render(&sys, &user, "fix", vars, sizeof(vars) / sizeof(vars[0]));
	}
	if (!error) {
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
	const struct target *t = &fix->target;
	char *key = history_repo_key(fix->opts.workdir);
	sqlite3_stmt *stmt = NULL;
	int64_t repo = 0;
	int error, rc;

	if (!key)
		return error_nomem();
	if ((error = store_repo_id(fix->opts.store, &repo, key, NULL)) < 0 ||
	    (error = store_begin(fix->opts.store)) < 0)
		goto out;
	if ((error = store_prepare(fix->opts.store, &stmt,
				   "INSERT INTO signal_fixes (repo_id, signal_id, finding_id, tool, code, message, "
				   "file, first_line, last_line, window, status, file_id, byte_offset, before, "
				   "model, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'asking', "
				   "?11, ?12, ?13, ?14, ?15)")) == 0) {
		sqlite3_bind_int64(stmt, 1, repo);
		if (t->signal_id)
			sqlite3_bind_int64(stmt, 2, t->signal_id);
		if (t->finding_id)
			sqlite3_bind_int64(stmt, 3, t->finding_id);
		sqlite3_bind_text(stmt, 4, t->tool, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 5, t->code, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 6, t->message ? t->message : t->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 7, t->file, -1, SQLITE_STATIC);
		sqlite3_bind_int(stmt, 8, fix->win.first);
		sqlite3_bind_int(stmt, 9, fix->win.last);
		sqlite3_bind_text(stmt, 10, fix->window, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 11, fix->snippet.file_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 12, (sqlite3_int64)fix->snippet.start);
		sqlite3_bind_blob(stmt, 13, fix->snippet.text, (int)fix->snippet.len, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 14, fix->opts.llm ? fix->opts.llm->model : NULL, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 15, clock_wall_ms());
		if ((rc = sqlite3_step(stmt)) == SQLITE_DONE)
			fix->id = sqlite3_last_insert_rowid(store_db(fix->opts.store));
		else
			error = store_fail(fix->opts.store, rc);
	}
	sqlite3_finalize(stmt);
	error = store_end(fix->opts.store, error);
out:
	free(key);
	return error;
}

/* One UPDATE of the fix's row, in the caller's transaction: SET clause with ?2.. bound by the binder. */
static int row_exec(const struct fix *fix, const char *set, void (*bind)(sqlite3_stmt *, const struct fix *))
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if (!fix->id)
		return 0;
	if (buf_printf(&sql, "UPDATE signal_fixes SET %s WHERE id = ?1", set) < 0)
		return error_nomem();
	if ((error = store_prepare(fix->opts.store, &stmt, sql.ptr)) == 0) {
		sqlite3_bind_int64(stmt, 1, fix->id);
		if (bind)
			bind(stmt, fix);
		if ((rc = sqlite3_step(stmt)) != SQLITE_DONE)
			error = store_fail(fix->opts.store, rc);
	}
	sqlite3_finalize(stmt);
	buf_release(&sql);
	return error;
}

/* row_exec in a transaction of its own. */
static int row_update(struct fix *fix, const char *set, void (*bind)(sqlite3_stmt *, const struct fix *))
{
	int error;

	if (!fix->id)
		return 0;
	if ((error = store_begin(fix->opts.store)) < 0)
		return error;
	return store_end(fix->opts.store, row_exec(fix, set, bind));
}

static void bind_failed(sqlite3_stmt *stmt, const struct fix *fix)
{
	sqlite3_bind_text(stmt, 2, fix->error, -1, SQLITE_STATIC);
}

static void bind_proposed(sqlite3_stmt *stmt, const struct fix *fix)
{
	sqlite3_bind_blob(stmt, 2, fix->replacement.ptr ? fix->replacement.ptr : "", (int)fix->replacement.len,
			  SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, fix->explanation, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, fix->preview, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 5, clock_wall_ms());
}

static void bind_now(sqlite3_stmt *stmt, const struct fix *fix)
{
	(void)fix;
	sqlite3_bind_int64(stmt, 2, clock_wall_ms());
}

/* The undo record, exactly as patch_prepare made it. */
static void bind_pending(sqlite3_stmt *stmt, const struct fix *fix)
{
	const struct patch_undo *u = &fix->undo;

	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)u->offset);
	sqlite3_bind_blob(stmt, 3, u->before ? u->before : "", (int)u->before_len, SQLITE_STATIC);
	sqlite3_bind_blob(stmt, 4, u->after ? u->after : "", (int)u->after_len, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, u->id_before, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, u->id_after, -1, SQLITE_STATIC);
}

/* The state the fix was in before an apply that did not happen. */
static void bind_state(sqlite3_stmt *stmt, const struct fix *fix)
{
	sqlite3_bind_text(stmt, 2, state_names[fix->state], -1, SQLITE_STATIC);
}

static void bind_recheck(sqlite3_stmt *stmt, const struct fix *fix)
{
	sqlite3_bind_text(stmt, 2, recheck_names[fix->recheck], -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, fix->recheck_detail, -1, SQLITE_STATIC);
}

static void fail(struct fix *fix, const char *why)
{
	set_text(&fix->error, why);
	fix->state = FIX_FAILED;
	row_update(fix, "status = 'failed', error = ?2", bind_failed);
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

int fix_start(struct fix *fix)
{
	size_t settled;
	int error;

	if (!fix->opts.llm || fix->opts.llm->provider == PROVIDER_NONE)
		return error_set(RL_ECONFIG, "asking for a fix needs an LLM: %s", llm_setup_hint);
	/* A fix a kill left pending may be this file's: settled first (best effort). */
	if (fix_recover(&settled, fix->opts.store, fix->opts.workdir) < 0)
		error_clear();
	if ((error = patch_read(&fix->text, fix->opts.workdir, fix->target.file)) < 0 ||
	    (error = take_window(fix)) < 0 || (error = build_prompt(fix)) < 0 ||
	    (error = member_join(fix)) < 0 ||
	    (error = asker_new(&fix->asker, fix->opts.llm, &fix->opts.sched, &fix->opts.ask,
			       fix->opts.store, fix->member.group)) < 0 ||
	    (error = row_insert(fix)) < 0)
		return error;
	fix->state = FIX_ASKING;
	if ((error = submit(fix)) < 0)
		fail(fix, error_message());
	else
		baseline_start(fix);
	return error;
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
	const struct target *t = &fix->target;
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
	row_update(fix, "status = 'proposed', after = ?2, explanation = ?3, preview = ?4, proposed_at = ?5",
		   bind_proposed);
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
	const struct target *t = &fix->target;
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
	row_update(fix, "recheck = ?2, recheck_detail = ?3", bind_recheck);
}

static void recheck_not_run(struct fix *fix, const char *why)
{
	fix->recheck = RECHECK_NOT_RUN;
	set_text(&fix->recheck_detail, why);
	row_update(fix, "recheck = ?2, recheck_detail = ?3", bind_recheck);
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

static void drain(struct fix *fix)
{
	struct ask_event ev;

	while (fix->asker && asker_next(fix->asker, &ev)) {
		on_event(fix, &ev);
		ask_event_release(&ev);
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

	/* The recheck's linter is done: its result is taken at once. */
	return fix->lint && lint_done(fix->lint) ? 0 : -1;
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
#define ROW_PENDING "status = 'applied' AND applied_at IS NULL"

/* Whether the fix's row is still pending: no other revline settled it meanwhile. */
static int row_pending(bool *out, const struct fix *fix)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*out = true;
	if (!fix->id)
		return 0;
	if ((error = store_prepare(fix->opts.store, &stmt, "SELECT " ROW_PENDING " FROM signal_fixes "
				   "WHERE id = ?1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, fix->id);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		*out = sqlite3_column_int(stmt, 0) != 0;
	else
		error = store_fail(fix->opts.store, rc);
	sqlite3_finalize(stmt);
	return error;
}

/*
 * The write, under the store's write lock. Once the file is written the
 * fix is applied whatever the database says next: a failed commit leaves
 * the record pending, which recover() completes from the file.
 */
static int write_recorded(struct fix *fix, struct patch_pending *pending)
{
	struct store *store = fix->opts.store;
	bool still = true;
	int error, written = 0;

	if (fix->id && (error = store_begin(store)) < 0)
		return error_set(error, "%s; the fix was not applied: %s is unchanged", error_message(),
				 fix->target.file);
	if ((error = row_pending(&still, fix)) == 0 && !still)
		error = error_set(RL_ECONFLICT, "another revline settled the record of fix %lld while it was "
				  "being applied; %s is unchanged: apply the fix again", (long long)fix->id,
				  fix->target.file);
	if (!error)
		written = (error = patch_pending_write(pending)) == 0;
	if (written)
		row_exec(fix, "applied_at = ?2", bind_now);
	else if (still)
		row_exec(fix, "status = ?2, applied_at = NULL", bind_state);
	if (fix->id)
		store_end(store, 0);
	return written ? 0 : error;
}

int fix_apply(struct fix *fix)
{
	struct patch_pending *pending = NULL;
	int error;

	if (fix->state != FIX_PROPOSED && fix->state != FIX_REJECTED && fix->state != FIX_UNDONE)
		return error_set(RL_EUSAGE, "there is no proposed fix to apply (it is %s)",
				 state_names[fix->state]);
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
	if ((error = row_update(fix, "status = 'applied', applied_at = NULL, error = NULL, byte_offset = ?2, "
				"before = ?3, after = ?4, file_id = ?5, file_id_after = ?6", bind_pending)) < 0) {
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
		return error_set(RL_EUSAGE, "there is no proposed fix to reject (it is %s)", state_names[fix->state]);
	fix->state = FIX_REJECTED;
	return row_update(fix, "status = 'rejected', rejected_at = ?2", bind_now);
}

/*
 * The file put back and the row marked undone under the store's write
 * lock: a locked database refuses before the file is touched, and a kill
 * after the write leaves a row still 'applied' whose undo, asked again,
 * finds the file already as it was and only marks it.
 */
static int undo_recorded(struct fix *fix)
{
	struct store *store = fix->opts.store;
	int error;

	if (fix->id && (error = store_begin(store)) < 0)
		return error_set(error, "%s; the fix was not undone: %s is unchanged", error_message(),
				 fix->undo.path);
	if ((error = patch_undo(fix->opts.workdir, &fix->undo)) == 0)
		row_exec(fix, "status = 'undone', undone_at = ?2", bind_now);
	if (fix->id)
		store_end(store, 0);
	return error;
}

int fix_undo(struct fix *fix)
{
	int error;

	if (fix->state != FIX_APPLIED)
		return error_set(RL_EUSAGE, "the fix is not applied (it is %s)", state_names[fix->state]);
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

/* The undo record of a row, from column first on: file, byte_offset, before, after, file_id, file_id_after. */
static int undo_of_row(struct patch_undo *u, sqlite3_stmt *stmt, int first)
{
	const void *before = sqlite3_column_blob(stmt, first + 2), *after = sqlite3_column_blob(stmt, first + 3);
	const unsigned char *id_before = sqlite3_column_text(stmt, first + 4);
	const unsigned char *id_after = sqlite3_column_text(stmt, first + 5);

	memset(u, 0, sizeof(*u));
	u->path = column_text(stmt, first);
	u->offset = (size_t)sqlite3_column_int64(stmt, first + 1);
	u->before_len = (size_t)sqlite3_column_bytes(stmt, first + 2);
	u->after_len = (size_t)sqlite3_column_bytes(stmt, first + 3);
	u->before = malloc(u->before_len + 1);
	u->after = malloc(u->after_len + 1);
	if (!u->path || !u->before || !u->after) {
		patch_undo_release(u);
		return error_nomem();
	}
	memcpy(u->before, before ? before : "", u->before_len);
	memcpy(u->after, after ? after : "", u->after_len);
	u->before[u->before_len] = u->after[u->after_len] = '\0';
	snprintf(u->id_before, sizeof(u->id_before), "%s", id_before ? (const char *)id_before : "");
	snprintf(u->id_after, sizeof(u->id_after), "%s", id_after ? (const char *)id_after : "");
	return 0;
}

/* A pending row and where its file is. */
struct pending_row {
	int64_t id;
	char *workdir;
	struct patch_undo undo;
};

static void pending_rows_free(struct pending_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].workdir);
		patch_undo_release(&rows[i].undo);
	}
	free(rows);
}

/* The pending rows: one (id), a repository's (key), or all. */
static int pending_find(struct pending_row **out, size_t *n, struct store *store, int64_t id, const char *key)
{
	sqlite3_stmt *stmt = NULL;
	struct pending_row *rows = NULL, *more;
	size_t cap = 0;
	int error, rc;

	*out = NULL;
	*n = 0;
	if ((error = store_prepare(store, &stmt, "SELECT f.id, r.path, f.file, f.byte_offset, f.before, f.after, "
				   "f.file_id, f.file_id_after FROM signal_fixes f JOIN repos r ON r.id = f.repo_id "
				   "WHERE f." ROW_PENDING " AND (?1 = 0 OR f.id = ?1) AND (?2 IS NULL OR r.path = ?2) "
				   "ORDER BY f.id")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, id);
	sqlite3_bind_text(stmt, 2, key, -1, SQLITE_STATIC);
	while (!error && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4;
			if (!(more = realloc(rows, cap * sizeof(*rows)))) {
				error = error_nomem();
				break;
			}
			rows = more;
		}
		memset(&rows[*n], 0, sizeof(rows[*n]));
		rows[*n].id = sqlite3_column_int64(stmt, 0);
		if (!(rows[*n].workdir = column_text(stmt, 1)))
			error = error_nomem();
		else
			error = undo_of_row(&rows[*n].undo, stmt, 2);
		(*n)++;
	}
	if (!error && rc != SQLITE_DONE)
		error = store_fail(store, rc);
	sqlite3_finalize(stmt);
	*out = rows;
	return error;
}

static void bind_error(sqlite3_stmt *stmt, const struct fix *fix)
{
	sqlite3_bind_text(stmt, 2, fix->error, -1, SQLITE_STATIC);
}

/* What the file says about one pending row, and the row settled so. */
static int pending_settle(struct store *store, const struct pending_row *row)
{
	struct fix f = { .opts.store = store, .id = row->id };
	enum patch_side side = PATCH_NEITHER;
	struct buf why = BUF_INIT;
	size_t removed;
	int error;

	if (patch_side(&side, row->workdir, &row->undo) < 0)
		error_clear();
	/* The temporary file of a write killed before its rename. */
	if (patch_leftovers_remove(&removed, row->workdir, row->undo.path) < 0)
		error_clear();
	if (side == PATCH_AFTER)
		return row_exec(&f, "applied_at = ?2", bind_now);
	if (side == PATCH_BEFORE)
		buf_puts(&why, "interrupted before the file was written; it is unchanged");
	else
		buf_printf(&why, "interrupted while it was being applied, and %s has changed since: revline "
			   "cannot tell whether the fix is in it; look at the file", row->undo.path);
	if (!why.ptr)
		return error_nomem();
	f.error = why.ptr;
	error = row_exec(&f, "status = 'failed', error = ?2", bind_error);
	buf_release(&why);
	return error;
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
	struct pending_row *rows = NULL;
	size_t n = 0, i;
	int error;

	*settled = 0;
	/* Without the lock first: most of the time there is nothing to settle. */
	if ((error = pending_find(&rows, &n, store, id, key)) < 0 || !n) {
		pending_rows_free(rows, n);
		return error;
	}
	pending_rows_free(rows, n);
	rows = NULL;
	n = 0;
	if ((error = store_begin(store)) < 0)
		return error;
	error = pending_find(&rows, &n, store, id, key);
	for (i = 0; i < n && !error; i++)
		error = pending_settle(store, &rows[i]);
	if ((error = store_end(store, error)) == 0)
		*settled = n;
	pending_rows_free(rows, n);
	return error;
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

static int stored_find(int64_t *id, struct store *store, const char *key, int64_t wanted)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT f.id FROM signal_fixes f JOIN repos r ON r.id = f.repo_id WHERE r.path = ?1 "
				   "AND f.status = 'applied' AND f.applied_at IS NOT NULL AND (?2 = 0 OR f.id = ?2) "
				   "ORDER BY f.applied_at DESC, "
				   "f.id DESC LIMIT 1")) < 0)
		return error;
	sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, wanted);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		*id = sqlite3_column_int64(stmt, 0);
	else if (rc == SQLITE_DONE && wanted)
		error = error_set(RL_ENOTFOUND, "fix %lld is not an applied fix of this repository "
				  "(see 'revline signals' for the fixes)", (long long)wanted);
	else if (rc == SQLITE_DONE)
		error = error_set(RL_ENOTFOUND, "no applied fix to undo in this repository");
	else
		error = store_fail(store, rc);
	sqlite3_finalize(stmt);
	return error;
}

static int stored_undo_read(struct patch_undo *u, struct store *store, int64_t id)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	memset(u, 0, sizeof(*u));
	if ((error = store_prepare(store, &stmt, "SELECT file, byte_offset, before, after, file_id, file_id_after "
				   "FROM signal_fixes WHERE id = ?1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, id);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		error = undo_of_row(u, stmt, 0);
	else
		error = store_fail(store, rc);
	sqlite3_finalize(stmt);
	return error;
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
	if ((error = stored_find(&row.id, store, key, fix_id)) < 0 ||
	    (error = stored_undo_read(&row.undo, store, row.id)) < 0 ||
	    (error = undo_recorded(&row)) < 0)
		goto done;
	*undone = row.id;
done:
	patch_undo_release(&row.undo);
	free(key);
	return error;
}

static int name_index(const char *const *names, size_t count, const unsigned char *name)
{
	size_t i;

	for (i = 0; name && i < count; i++)
		if (names[i] && !strcmp(names[i], (const char *)name))
			return (int)i;
	return 0;
}

void fix_records_free(struct fix_record *records, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(records[i].file);
		free(records[i].tool);
		free(records[i].code);
		free(records[i].message);
		free(records[i].window);
		free(records[i].recheck_detail);
	}
	free(records);
}

static int record_read(struct fix_record *r, sqlite3_stmt *stmt)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(stmt, 0);
	r->file = column_text(stmt, 1);
	r->tool = column_text(stmt, 2);
	r->code = column_text(stmt, 3);
	r->message = column_text(stmt, 4);
	r->window = column_text(stmt, 5);
	r->first = sqlite3_column_int(stmt, 6);
	r->last = sqlite3_column_int(stmt, 7);
	r->applied_at = sqlite3_column_int64(stmt, 8);
	r->recheck = (enum fix_recheck)name_index(recheck_names, sizeof(recheck_names) / sizeof(*recheck_names),
						  sqlite3_column_text(stmt, 9));
	r->recheck_detail = column_text(stmt, 10);
	return r->file ? 0 : error_nomem();
}

int fix_applied(struct fix_record **out, size_t *count, struct store *store, const char *workdir)
{
	char *key = history_repo_key(workdir);
	struct fix_record *rows = NULL, *more;
	sqlite3_stmt *stmt = NULL;
	size_t cap = 0, settled;
	int error, rc = SQLITE_DONE;

	*out = NULL;
	*count = 0;
	if (!key)
		return error_nomem();
	if (recover(&settled, store, 0, key) < 0)
		error_clear();
	if ((error = store_prepare(store, &stmt, "SELECT f.id, f.file, f.tool, f.code, f.message, f.window, "
				   "f.first_line, f.last_line, f.applied_at, f.recheck, f.recheck_detail FROM signal_fixes f "
				   "JOIN repos r ON r.id = f.repo_id WHERE r.path = ?1 AND f.status = 'applied' AND "
				   "f.applied_at IS NOT NULL ORDER BY f.applied_at DESC, f.id DESC")) < 0)
		goto done;
	sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
	while (!error && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*count == cap) {
			cap = cap ? 2 * cap : 8;
			if (!(more = realloc(rows, cap * sizeof(*rows)))) {
				error = error_nomem();
				break;
			}
			rows = more;
		}
		error = record_read(&rows[(*count)++], stmt);
	}
	if (!error && rc != SQLITE_DONE)
		error = store_fail(store, rc);
done:
	sqlite3_finalize(stmt);
	free(key);
	if (error < 0) {
		fix_records_free(rows, *count);
		rows = NULL;
		*count = 0;
	}
	*out = rows;
	return error;
}

static int latest_read(struct fix_summary *out, struct store *store, int64_t signal_id, int64_t finding_id,
		       bool settling)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store_prepare(store, &stmt, "SELECT id, status, recheck, " ROW_PENDING " FROM signal_fixes "
				   "WHERE (?1 != 0 AND signal_id = ?1) OR (?2 != 0 AND finding_id = ?2) "
				   "ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, signal_id);
	sqlite3_bind_int64(stmt, 2, finding_id);
	rc = sqlite3_step(stmt);
	/* A record a kill left pending is settled from its file before it is shown (best effort). */
	if (rc == SQLITE_ROW && sqlite3_column_int(stmt, 3) && !settling) {
		int64_t id = sqlite3_column_int64(stmt, 0);
		size_t settled;

		sqlite3_finalize(stmt);
		if (recover(&settled, store, id, NULL) < 0)
			error_clear();
		return latest_read(out, store, signal_id, finding_id, true);
	}
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(stmt, 0);
		out->state = (enum fix_state)name_index(state_names, sizeof(state_names) / sizeof(*state_names),
							sqlite3_column_text(stmt, 1));
		out->recheck = (enum fix_recheck)name_index(recheck_names,
							    sizeof(recheck_names) / sizeof(*recheck_names),
							    sqlite3_column_text(stmt, 2));
	} else {
		error = rc == SQLITE_DONE ? RL_ENOTFOUND : store_fail(store, rc);
	}
	sqlite3_finalize(stmt);
	return error;
}

int fix_latest(struct fix_summary *out, struct store *store, int64_t signal_id, int64_t finding_id)
{
	return latest_read(out, store, signal_id, finding_id, false);
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
