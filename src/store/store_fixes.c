/* Fixes: signal_fixes, from the ask to the undo. */
#include "store_fixes.h"
#include "store_sql.h"
#include "array.h"
#include "clock.h"
#include "finding.h"
#include "patch.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* An applied fix whose file may not be written yet. */
#define ROW_PENDING "status = 'applied' AND applied_at IS NULL"

static char *column_text(struct store_stmt *stmt, int i)
{
	const char *text = store_column_text(stmt, i);

	return text ? strdup(text) : NULL;
}

/* A statement that names :repo, bound. */
static int prepare_repo(struct store_stmt **out, struct store *store, const char *sql, const char *repo)
{
	int error;

	if ((error = store_prepare(store, out, sql)) == 0)
		store_bind_text(*out, ":repo", repo);
	return error;
}

/* --- the row's steps ------------------------------------------------------ */

int store_fix_add(int64_t *id, struct store *store, const char *repo, const struct fix_row *row)
{
	struct store_stmt *stmt = NULL;
	int64_t repo_id = 0;
	int error;

	*id = 0;
	if ((error = store_repo_id(store, &repo_id, repo, NULL)) < 0 || (error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT INTO signal_fixes (repo_id, signal_id, finding_id, tool, "
				   "code, message, file, first_line, last_line, \"window\", status, file_id, byte_offset, "
				   "before, model, created_at, author, host) VALUES (:repo, :signal, :finding, "
				   ":tool, :code, :message, :file, :first, :last, :window, 'asking', :file_id, "
				   ":offset, :before, :model, :now, :author, :host) RETURNING id")) < 0)
		goto done;
	store_bind_writer(stmt);
	store_bind_int(stmt, ":repo", repo_id);
	if (row->signal_id)
		store_bind_int(stmt, ":signal", row->signal_id);
	if (row->finding_id)
		store_bind_int(stmt, ":finding", row->finding_id);
	store_bind_text(stmt, ":tool", row->tool);
	store_bind_text(stmt, ":code", row->code);
	store_bind_text(stmt, ":message", row->message);
	store_bind_text(stmt, ":file", row->file);
	store_bind_int(stmt, ":first", row->first);
	store_bind_int(stmt, ":last", row->last);
	store_bind_text(stmt, ":window", row->window);
	store_bind_text(stmt, ":file_id", row->snippet->file_id);
	store_bind_int(stmt, ":offset", (int64_t)row->snippet->start);
	store_bind_blob(stmt, ":before", row->snippet->text, row->snippet->len);
	store_bind_text(stmt, ":model", row->model);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_id(stmt, id);
done:
	store_finalize(stmt);
	return store_end(store, error);
}

/*
 * An UPDATE of a fix's row, in the caller's transaction, with :id (and
 * :now when the SET clause names it) bound; the caller binds the rest.
 */
static int row_prepare(struct store_stmt **out, struct store *store, int64_t id, const char *set)
{
	struct buf sql = BUF_INIT;
	int error;

	if ((error = buf_printf(&sql, "UPDATE signal_fixes SET %s WHERE id = :id", set)) < 0)
		return error;
	if ((error = store_prepare(store, out, sql.ptr)) == 0) {
		store_bind_int(*out, ":id", id);
		if (store_param_has(*out, ":now"))
			store_bind_int(*out, ":now", clock_wall_ms());
	}
	buf_release(&sql);
	return error;
}

/* An UPDATE with one text (:text, or none) beside :id and :now. */
static int row_set(struct store *store, int64_t id, const char *set, const char *text)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = row_prepare(&stmt, store, id, set)) == 0) {
		if (store_param_has(stmt, ":text"))
			store_bind_text(stmt, ":text", text);
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return error;
}

/* row_set in a transaction of its own. */
static int row_update(struct store *store, int64_t id, const char *set, const char *text)
{
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	return store_end(store, row_set(store, id, set, text));
}

int store_fix_failed(struct store *store, int64_t id, const char *why)
{
	return row_update(store, id, "status = 'failed', error = :text", why);
}

int store_fix_rejected(struct store *store, int64_t id)
{
	return row_update(store, id, "status = 'rejected', rejected_at = :now", NULL);
}

int store_fix_proposed(struct store *store, int64_t id, const char *after, size_t after_len,
		       const char *explanation, const char *preview)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = row_prepare(&stmt, store, id, "status = 'proposed', after = :after, explanation = "
				 ":explanation, preview = :preview, proposed_at = :now")) == 0) {
		store_bind_blob(stmt, ":after", after, after_len);
		store_bind_text(stmt, ":explanation", explanation);
		store_bind_text(stmt, ":preview", preview);
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

int store_fix_recheck(struct store *store, int64_t id, enum fix_recheck recheck, const char *detail)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = row_prepare(&stmt, store, id, "recheck = :recheck, recheck_detail = :detail")) == 0) {
		store_bind_text(stmt, ":recheck", fix_recheck_stored(recheck));
		store_bind_text(stmt, ":detail", detail);
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

/* --- apply and undo ------------------------------------------------------- */

/* The undo record, exactly as patch_prepare made it. */
int store_fix_pending(struct store *store, int64_t id, const struct patch_undo *undo)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = row_prepare(&stmt, store, id, "status = 'applied', applied_at = NULL, error = NULL, "
				 "byte_offset = :offset, before = :before, after = :after, file_id = :id_before, "
				 "file_id_after = :id_after")) == 0) {
		store_bind_int(stmt, ":offset", (int64_t)undo->offset);
		store_bind_blob(stmt, ":before", undo->before, undo->before_len);
		store_bind_blob(stmt, ":after", undo->after, undo->after_len);
		store_bind_text(stmt, ":id_before", undo->id_before);
		store_bind_text(stmt, ":id_after", undo->id_after);
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

/* Whether the fix's row is still pending: no other revline settled it meanwhile. */
static int row_pending(bool *out, struct store *store, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	*out = true;
	if ((error = store_prepare(store, &stmt, "SELECT CASE WHEN " ROW_PENDING " THEN 1 ELSE 0 END "
				   "FROM signal_fixes WHERE id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) == STORE_ROW)
		*out = store_column_int(stmt, 0) != 0;
	else
		error = rc < 0 ? rc : error_set(RL_ENOTFOUND, "%s: no fix %lld", store_path(store), (long long)id);
	store_finalize(stmt);
	return error;
}

/*
 * Once the file is written the fix is applied whatever the database says
 * next: a failed commit leaves the record pending, which
 * store_fixes_settle completes from the file.
 */
int store_fix_write(struct store *store, int64_t id, enum fix_state back, int (*write)(void *payload),
		    void *payload)
{
	bool still = true;
	int error, written = 0;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = row_pending(&still, store, id)) == 0 && !still)
		error = error_set(RL_ECONFLICT, "another revline settled the record of fix %lld while it was "
				  "being applied", (long long)id);
	if (!error)
		written = (error = write(payload)) == 0;
	if (written)
		row_set(store, id, "applied_at = :now", NULL);
	else if (still)
		row_set(store, id, "status = :text, applied_at = NULL", fix_state_name(back));
	store_end(store, 0);
	return written ? 0 : error;
}

/* A kill after the undo's write leaves the row 'applied': undone again, the file is found as it was. */
int store_fix_undo(struct store *store, int64_t id, int (*undo)(void *payload), void *payload)
{
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = undo(payload)) == 0)
		row_set(store, id, "status = 'undone', undone_at = :now", NULL);
	store_end(store, 0);
	return error;
}

/* --- pending applies ------------------------------------------------------ */

/*
 * The undo record of a row, from column first on: file, byte_offset,
 * before, after, file_id, file_id_after.
 */
static int undo_of_row(struct patch_undo *u, struct store_stmt *stmt, int first)
{
	size_t before_len = 0, after_len = 0;
	const void *before = store_column_blob(stmt, first + 2, &before_len);
	const void *after = store_column_blob(stmt, first + 3, &after_len);
	const char *id_before = store_column_text(stmt, first + 4);
	const char *id_after = store_column_text(stmt, first + 5);

	memset(u, 0, sizeof(*u));
	u->path = column_text(stmt, first);
	u->offset = (size_t)store_column_int64(stmt, first + 1);
	u->before_len = before_len;
	u->after_len = after_len;
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

struct pending_rows {
	struct pending_row *items;
	size_t count, alloc;
};

static void pending_rows_release(struct pending_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->count; i++) {
		free(rows->items[i].workdir);
		patch_undo_release(&rows->items[i].undo);
	}
	free(rows->items);
	memset(rows, 0, sizeof(*rows));
}

static int pending_add(struct pending_rows *rows, struct store_stmt *stmt)
{
	struct pending_row *row;
	int error;

	if ((error = ARRAY_GROW(rows->items, rows->alloc, rows->count + 1)) < 0)
		return error;
	row = &rows->items[rows->count++];
	memset(row, 0, sizeof(*row));
	row->id = store_column_int64(stmt, 0);
	if (!(row->workdir = column_text(stmt, 1)))
		return error_nomem();
	return undo_of_row(&row->undo, stmt, 2);
}

/* The pending rows: one (id), a repository's (repo), or all. */
static int pending_find(struct pending_rows *out, struct store *store, int64_t id, const char *repo)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = prepare_repo(&stmt, store, "SELECT f.id, r.path, f.file, f.byte_offset, f.before, "
				  "f.after, f.file_id, f.file_id_after FROM signal_fixes f JOIN repos r ON "
				  "r.id = f.repo_id WHERE f." ROW_PENDING " AND (:id = 0 OR f.id = :id) AND "
				  "(CAST(:repo AS TEXT) IS NULL OR r.path = :repo) ORDER BY f.id", repo)) < 0)
		goto done;
	store_bind_int(stmt, ":id", id);
	while ((rc = store_step(stmt)) == STORE_ROW)
		if ((error = pending_add(out, stmt)) < 0)
			goto done;
	if (rc != STORE_DONE)
		error = rc;
done:
	store_finalize(stmt);
	return error;
}

static int pending_settle(struct store *store, const struct pending_row *row, store_fix_judge judge)
{
	struct buf why = BUF_INIT;
	int error;

	if ((error = judge(&why, row->workdir, &row->undo)) < 0)
		goto done;
	if (why.len)
		error = row_set(store, row->id, "status = 'failed', error = :text", why.ptr);
	else
		error = row_set(store, row->id, "applied_at = :now", NULL);
done:
	buf_release(&why);
	return error;
}

int store_fixes_settle(size_t *settled, struct store *store, int64_t id, const char *repo,
		       store_fix_judge judge)
{
	struct pending_rows rows = { NULL, 0, 0 };
	size_t i;
	int error;

	*settled = 0;
	/* Without the lock first: most of the time there is nothing to settle. */
	error = pending_find(&rows, store, id, repo);
	if (error < 0 || !rows.count)
		goto done;
	pending_rows_release(&rows);
	if ((error = store_begin(store)) < 0)
		goto done;
	error = pending_find(&rows, store, id, repo);
	for (i = 0; i < rows.count && !error; i++)
		error = pending_settle(store, &rows.items[i], judge);
	if ((error = store_end(store, error)) == 0)
		*settled = rows.count;
done:
	pending_rows_release(&rows);
	return error;
}

/* --- reading -------------------------------------------------------------- */

int store_fix_applied_find(int64_t *id, struct store *store, const char *repo, int64_t wanted)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	*id = 0;
	if ((error = prepare_repo(&stmt, store, "SELECT f.id FROM signal_fixes f JOIN repos r ON "
				  "r.id = f.repo_id WHERE r.path = :repo AND f.status = 'applied' AND f.applied_at "
				  "IS NOT NULL AND (:wanted = 0 OR f.id = :wanted) ORDER BY f.applied_at DESC, "
				  "f.id DESC LIMIT 1", repo)) < 0)
		goto done;
	store_bind_int(stmt, ":wanted", wanted);
	if ((rc = store_step(stmt)) == STORE_ROW)
		*id = store_column_int64(stmt, 0);
	else
		error = rc == STORE_DONE ? RL_ENOTFOUND : rc;
done:
	store_finalize(stmt);
	return error;
}

int store_fix_undo_get(struct patch_undo *out, struct store *store, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store_prepare(store, &stmt, "SELECT file, byte_offset, before, after, file_id, file_id_after "
				   "FROM signal_fixes WHERE id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) == STORE_ROW)
		error = undo_of_row(out, stmt, 0);
	else if (rc == STORE_DONE)
		error = error_set(RL_ENOTFOUND, "%s: no fix %lld", store_path(store), (long long)id);
	else
		error = rc;
	store_finalize(stmt);
	return error;
}

void store_fix_records_free(struct fix_record *records, size_t count)
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

static int record_read(struct fix_record *r, struct store_stmt *stmt)
{
	memset(r, 0, sizeof(*r));
	r->id = store_column_int64(stmt, 0);
	r->file = column_text(stmt, 1);
	r->tool = column_text(stmt, 2);
	r->code = column_text(stmt, 3);
	r->message = column_text(stmt, 4);
	r->window = column_text(stmt, 5);
	r->first = store_column_int(stmt, 6);
	r->last = store_column_int(stmt, 7);
	r->applied_at = store_column_int64(stmt, 8);
	r->recheck = fix_recheck_parse(store_column_text(stmt, 9));
	r->recheck_detail = column_text(stmt, 10);
	return r->file ? 0 : error_nomem();
}

int store_fixes_applied(struct fix_record **out, size_t *count, struct store *store, const char *repo)
{
	struct fix_record *rows = NULL;
	struct store_stmt *stmt = NULL;
	size_t alloc = 0;
	int error, rc;

	*out = NULL;
	*count = 0;
	if ((error = prepare_repo(&stmt, store, "SELECT f.id, f.file, f.tool, f.code, f.message, f.window, "
				  "f.first_line, f.last_line, f.applied_at, f.recheck, f.recheck_detail FROM "
				  "signal_fixes f JOIN repos r ON r.id = f.repo_id WHERE r.path = :repo AND "
				  "f.status = 'applied' AND f.applied_at IS NOT NULL ORDER BY f.applied_at DESC, "
				  "f.id DESC", repo)) < 0)
		goto done;
	while ((rc = store_step(stmt)) == STORE_ROW)
		if ((error = ARRAY_GROW(rows, alloc, *count + 1)) < 0 ||
		    (error = record_read(&rows[(*count)++], stmt)) < 0)
			goto done;
	if (rc != STORE_DONE)
		error = rc;
done:
	store_finalize(stmt);
	if (error < 0) {
		store_fix_records_free(rows, *count);
		rows = NULL;
		*count = 0;
	}
	*out = rows;
	return error;
}

int store_fix_latest(struct fix_summary *out, bool *pending, struct store *store, int64_t signal_id,
		     int64_t finding_id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	*pending = false;
	if ((error = store_prepare(store, &stmt, "SELECT id, status, recheck, CASE WHEN " ROW_PENDING
				   " THEN 1 ELSE 0 END FROM signal_fixes WHERE (:signal != 0 AND signal_id = :signal) OR (:finding != 0 AND "
				   "finding_id = :finding) ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	store_bind_int(stmt, ":signal", signal_id);
	store_bind_int(stmt, ":finding", finding_id);
	if ((rc = store_step(stmt)) == STORE_ROW) {
		out->id = store_column_int64(stmt, 0);
		out->state = fix_state_parse(store_column_text(stmt, 1));
		out->recheck = fix_recheck_parse(store_column_text(stmt, 2));
		*pending = store_column_int(stmt, 3) != 0;
	} else {
		error = rc == STORE_DONE ? RL_ENOTFOUND : rc;
	}
	store_finalize(stmt);
	return error;
}

/* The finding's latest fix, or its fingerprint's: the same finding in another check. */
static const char proposal_sql[] =
	"SELECT f.status, f.first_line, f.last_line, f.file, f.byte_offset, f.before, f.after, f.file_id, "
	"f.file_id_after FROM signal_fixes f JOIN repos r ON r.id = f.repo_id JOIN findings o ON "
	"o.id = f.finding_id JOIN findings c ON c.id = :id WHERE r.path = :repo AND (o.id = c.id OR "
	"o.fingerprint = c.fingerprint) ORDER BY f.id DESC LIMIT 1";

int store_fix_proposal(struct patch_undo *out, int *first, int *last, struct store *store, const char *repo,
		       int64_t id)
{
	struct store_stmt *stmt = NULL;
	const char *status;
	int error, rc;

	memset(out, 0, sizeof(*out));
	*first = *last = 0;
	if ((error = prepare_repo(&stmt, store, proposal_sql, repo)) < 0)
		goto done;
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) != STORE_ROW) {
		error = rc == STORE_DONE ? RL_ENOTFOUND : rc;
		goto done;
	}
	status = store_column_text(stmt, 0);
	if (!status || strcmp(status, "proposed") || store_column_is_null(stmt, 6)) {
		error = RL_ENOTFOUND;
		goto done;
	}
	*first = store_column_int(stmt, 1);
	*last = store_column_int(stmt, 2);
	error = undo_of_row(out, stmt, 3);
done:
	store_finalize(stmt);
	return error;
}

int store_fix_finding(struct finding *out, struct store *store, const char *repo, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = prepare_repo(&stmt, store, "SELECT f.file, f.line, f.end_line, f.rule_id, f.severity, "
				  "f.title, f.issue, f.suggestion, f.verify_note FROM findings f JOIN checks c ON c.id = f.check_id "
				  "JOIN repos r ON r.id = c.repo_id WHERE f.id = :id AND r.path = :repo", repo)) < 0)
		goto done;
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) != STORE_ROW) {
		error = rc == STORE_DONE ? RL_ENOTFOUND : rc;
		goto done;
	}
	out->id = id;
	out->file = column_text(stmt, 0);
	out->line = store_column_int(stmt, 1);
	out->end_line = store_column_int(stmt, 2);
	out->rule_id = column_text(stmt, 3);
	if (store_column_text(stmt, 4))
		severity_parse(&out->severity, store_column_text(stmt, 4));
	out->title = column_text(stmt, 5);
	out->issue = column_text(stmt, 6);
	out->suggestion = column_text(stmt, 7);
	out->verify_note = column_text(stmt, 8);
done:
	store_finalize(stmt);
	return error;
}

/* --- a proposal read back, to apply it from another process -------------- */

void fix_stored_release(struct fix_stored *f)
{
	free(f->file);
	free(f->window);
	free(f->state);
	free(f->explanation);
	free(f->preview);
	free(f->before);
	free(f->after);
	memset(f, 0, sizeof(*f));
}

static int blob_dup(char **out, size_t *len, struct store_stmt *stmt, int col)
{
	const void *bytes = store_column_blob(stmt, col, len);

	if (!(*out = malloc(*len + 1)))
		return error_nomem();
	if (*len)
		memcpy(*out, bytes, *len);
	(*out)[*len] = '\0';
	return 0;
}

static int stored_read(struct fix_stored *f, struct store_stmt *stmt)
{
	const char *file_id = store_column_text(stmt, 8);
	int error;

	f->signal_id = store_column_int64(stmt, 0);
	f->finding_id = store_column_int64(stmt, 1);
	f->first = store_column_int(stmt, 3);
	f->last = store_column_int(stmt, 4);
	f->offset = (size_t)store_column_int64(stmt, 7);
	snprintf(f->file_id, sizeof(f->file_id), "%s", file_id ? file_id : "");
	if (!(f->file = column_text(stmt, 2)) || !(f->window = column_text(stmt, 5)) ||
	    !(f->state = column_text(stmt, 6)))
		return error_nomem();
	if ((error = store_column_dup(&f->explanation, stmt, 11)) < 0 ||
	    (error = store_column_dup(&f->preview, stmt, 12)) < 0 ||
	    (error = blob_dup(&f->before, &f->before_len, stmt, 9)) < 0)
		return error;
	/* No answer yet (asking, failed): no proposed bytes. */
	return store_column_is_null(stmt, 10) ? 0 : blob_dup(&f->after, &f->after_len, stmt, 10);
}

int store_fix_stored(struct fix_stored *out, struct store *store, const char *repo, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = prepare_repo(&stmt, store, "SELECT f.signal_id, f.finding_id, f.file, f.first_line, "
				  "f.last_line, f.\"window\", f.status, f.byte_offset, f.file_id, f.before, f.after, "
				  "f.explanation, f.preview FROM signal_fixes f JOIN repos r ON r.id = f.repo_id "
				  "WHERE f.id = :id AND r.path = :repo", repo)) < 0)
		return error;
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) == STORE_ROW)
		error = stored_read(out, stmt);
	else
		error = rc == STORE_DONE ? error_set(RL_ENOTFOUND, "no fix %lld in this repository", (long long)id) : rc;
	store_finalize(stmt);
	if (error < 0)
		fix_stored_release(out);
	return error;
}
