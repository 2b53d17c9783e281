/*
 * Feedback as the store keeps it: rows on findings and fixes with a copy
 * of what they are about, the latest word on a fingerprint, and the
 * examples for a rule's prompt ranked by the backend's full-text search
 * (SQLite: FTS5's BM25).
 */
#include "store_feedback.h"
#include "store_sql.h"
#include "store_schema.h"
#include "array.h"
#include "clock.h"
#include "finding.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The kinds that speak of a finding: the latest of them on a fingerprint is in force. */
#define FINDING_KINDS "('false_positive', 'accept', 'reject')"

/*
 * A feedback row (fb) is in force when no later word on a finding has its
 * fingerprint. Later is by id, not by the clock: a new row's id is above
 * every stored one, and two marks within a millisecond keep their order.
 */
#define IN_FORCE \
	"NOT EXISTS (SELECT 1 FROM feedback later WHERE later.fingerprint = fb.fingerprint " \
	"AND later.id > fb.id AND later.kind IN " FINDING_KINDS ")"

static const char *const kind_names[] = {
#define FEEDBACK_NAME(id, name) name,
	FEEDBACK_LIST(FEEDBACK_NAME)
#undef FEEDBACK_NAME
};

const char *feedback_kind_name(enum feedback_kind kind)
{
	if ((size_t)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "unknown";
	return kind_names[kind];
}

/* What a feedback is about, copied into its row so that it outlives the check. */
struct subject {
	int64_t repo_id;
	char *rule_id, *fingerprint, *file, *title, *issue, *code;
};

static void subject_release(struct subject *s)
{
	free(s->rule_id);
	free(s->fingerprint);
	free(s->file);
	free(s->title);
	free(s->issue);
	free(s->code);
}

/* The code a finding's evidence (JSON text) examined; NULL when it names none. */
static int evidence_code(char **out, const char *evidence)
{
	json_t *root = evidence ? json_loads(evidence, 0, NULL) : NULL;
	json_t *code = json_object_get(root, "code_examined");
	int error = 0;

	*out = NULL;
	if (json_is_string(code) && !(*out = strdup(json_string_value(code))))
		error = error_nomem();
	json_decref(root);
	return error;
}

static int subject_read(struct subject *s, struct store *store, int64_t finding_id)
{
	char **fields[] = { &s->rule_id, &s->fingerprint, &s->file, &s->title, &s->issue };
	struct store_stmt *stmt = NULL;
	size_t i;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT c.repo_id, f.rule_id, f.fingerprint, f.file, f.title, f.issue, "
				   "f.evidence FROM findings f JOIN checks c ON c.id = f.check_id "
				   "WHERE f.id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", finding_id);
	rc = store_step(stmt);
	if (rc == STORE_DONE) {
		error = error_set(RL_ENOTFOUND, "no finding %lld in %s (finding ids are in the output "
				  "of 'revline check' and 'revline history')", (long long)finding_id,
				  store_path(store));
		goto done;
	}
	if (rc != STORE_ROW) {
		error = rc;
		goto done;
	}
	s->repo_id = store_column_int64(stmt, 0);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]) && !error; i++)
		error = store_column_dup(fields[i], stmt, (int)i + 1);
	if (!error)
		error = evidence_code(&s->code, store_column_text(stmt, 6));
done:
	store_finalize(stmt);
	return error;
}

/* A finding stored without a fingerprint gets the one a check would give it, to match later ones. */
static int subject_fingerprint(struct subject *s)
{
	struct finding f = { 0 };

	if (s->fingerprint)
		return 0;
	f.rule_id = s->rule_id;
	f.file = s->file;
	f.title = s->title;
	f.evidence.code_examined = s->code;
	finding_fingerprint(&f);
	return (s->fingerprint = strdup(f.fingerprint)) ? 0 : error_nomem();
}

static int subject_insert(int64_t *id, struct store *store, const struct subject *s,
			  int64_t finding_id, enum feedback_kind kind, const char *note)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO feedback (finding_id, repo_id, kind, note, rule_id, "
				   "fingerprint, file, title, issue, code, created_at, author, host) VALUES "
				   "(:finding, :repo, :kind, :note, :rule, :fingerprint, :file, :title, :issue, "
				   ":code, :now, :author, :host) RETURNING id")) < 0)
		return error;
	store_bind_writer(stmt);
	store_bind_int(stmt, ":finding", finding_id);
	store_bind_int(stmt, ":repo", s->repo_id);
	store_bind_text(stmt, ":kind", feedback_kind_name(kind));
	store_bind_text(stmt, ":note", note);
	store_bind_text(stmt, ":rule", s->rule_id);
	store_bind_text(stmt, ":fingerprint", s->fingerprint);
	store_bind_text(stmt, ":file", s->file);
	store_bind_text(stmt, ":title", s->title);
	store_bind_text(stmt, ":issue", s->issue);
	store_bind_text(stmt, ":code", s->code);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_id(stmt, id);
	store_finalize(stmt);
	return error;
}

int store_feedback_on_finding(int64_t *id, struct store *store, int64_t finding_id,
			      enum feedback_kind kind, const char *note)
{
	struct subject s = { 0 };
	int64_t row = 0;
	int error;

	*id = 0;
	if ((error = store_begin(store)) < 0)
		return error;
	if (!(error = subject_read(&s, store, finding_id)) && !(error = subject_fingerprint(&s)))
		error = subject_insert(&row, store, &s, finding_id, kind, note);
	if (!(error = store_end(store, error)))
		*id = row;
	subject_release(&s);
	return error;
}

/* What feedback on a fix copies of it: its repository, rule and first file. */
struct fix_subject {
	int64_t repo_id;
	char *rule_id, *file;
};

/* The first string of a JSON array text; NULL when there is none. */
static int first_string(char **out, const char *json)
{
	json_t *root = json ? json_loads(json, 0, NULL) : NULL;
	json_t *first = json_array_get(root, 0);
	int error = 0;

	*out = NULL;
	if (json_is_string(first) && !(*out = strdup(json_string_value(first))))
		error = error_nomem();
	json_decref(root);
	return error;
}

static int fix_subject_read(struct fix_subject *s, struct store *store, int64_t fix_id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT c.repo_id, v.threadline_id, v.file_references FROM violation_fixes v "
				   "JOIN checks c ON c.id = v.fix_check_id WHERE v.id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", fix_id);
	if ((rc = store_step(stmt)) == STORE_ROW) {
		s->repo_id = store_column_int64(stmt, 0);
		if (!(error = store_column_dup(&s->rule_id, stmt, 1)))
			error = first_string(&s->file, store_column_text(stmt, 2));
	} else if (rc == STORE_DONE) {
		error = error_set(RL_ENOTFOUND, "no fix %lld in %s (fix ids are in the output of "
				  "'revline fixes')", (long long)fix_id, store_path(store));
	} else {
		error = rc;
	}
	store_finalize(stmt);
	return error;
}

/* The fix's rule and its first file, read and written in the caller's transaction. */
static int fix_insert(int64_t *id, struct store *store, int64_t fix_id, enum feedback_kind kind,
		      const char *note)
{
	struct fix_subject s = { 0, NULL, NULL };
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = fix_subject_read(&s, store, fix_id)) < 0 ||
	    (error = store_prepare(store, &stmt,
				   "INSERT INTO feedback (fix_id, repo_id, kind, note, rule_id, file, "
				   "created_at, author, host) VALUES (:fix, :repo, :kind, :note, :rule, :file, "
				   ":now, :author, :host) RETURNING id")) < 0)
		goto done;
	store_bind_writer(stmt);
	store_bind_int(stmt, ":fix", fix_id);
	store_bind_int(stmt, ":repo", s.repo_id);
	store_bind_text(stmt, ":kind", feedback_kind_name(kind));
	store_bind_text(stmt, ":note", note);
	store_bind_text(stmt, ":rule", s.rule_id);
	store_bind_text(stmt, ":file", s.file);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_id(stmt, id);
done:
	store_finalize(stmt);
	free(s.rule_id);
	free(s.file);
	return error;
}

int store_feedback_on_fix(int64_t *id, struct store *store, int64_t fix_id,
			  enum feedback_kind kind, const char *note)
{
	int64_t row = 0;
	int error;

	*id = 0;
	if ((error = store_begin(store)) < 0)
		return error;
	error = fix_insert(&row, store, fix_id, kind, note);
	if (!(error = store_end(store, error)))
		*id = row;
	return error;
}

static int describe_read(struct buf *out, struct store *store, int64_t id)
{
	struct store_stmt *stmt = NULL;
	const char *rule, *file;
	int error, rc;
	int64_t line;

	if ((error = store_prepare(store, &stmt,
				   "SELECT fb.rule_id, fb.file, f.line FROM feedback fb "
				   "LEFT JOIN findings f ON f.id = fb.finding_id WHERE fb.id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", id);
	rc = store_step(stmt);
	if (rc == STORE_DONE) {
		error = error_set(RL_ENOTFOUND, "no feedback %lld in %s", (long long)id, store_path(store));
		goto done;
	}
	if (rc != STORE_ROW) {
		error = rc;
		goto done;
	}
	rule = store_column_text(stmt, 0);
	file = store_column_text(stmt, 1);
	line = store_column_int64(stmt, 2);
	if (rule)
		error = buf_printf(out, "%s%s", rule, file ? ", " : "");
	if (!error && file)
		error = buf_puts(out, (const char *)file);
	if (!error && file && line > 0)
		error = buf_printf(out, ":%lld", (long long)line);
done:
	store_finalize(stmt);
	return error;
}

int store_feedback_describe(struct buf *out, struct store *store, int64_t id)
{
	int error;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0)
		return error;
	/* Reads take the store's lock, not a write transaction (on PostgreSQL: every client's lock). */
	store_lock(store);
	error = describe_read(out, store, id);
	store_unlock(store);
	return error;
}

/* At most this many fingerprints a query: the parameters stay well under every backend's limit. */
#define LATEST_CHUNK 64

/* The fingerprints' latest word, newest first: the first row of each decides. */
static int latest_query(struct store_stmt **out, struct store *store, const char *const *fps, size_t n)
{
	struct buf sql = BUF_INIT;
	char name[32];
	size_t i;
	int error;

	error = buf_puts(&sql, "SELECT fingerprint, CASE WHEN kind = 'false_positive' THEN 1 ELSE 0 END FROM feedback "
			 "WHERE kind IN " FINDING_KINDS " AND fingerprint IN (");
	for (i = 0; i < n && !error; i++)
		error = buf_printf(&sql, "%s:fp%zu", i ? ", " : "", i);
	if (!error && !(error = buf_puts(&sql, ") ORDER BY id DESC")))
		error = store_prepare(store, out, sql.ptr);
	for (i = 0; i < n && !error; i++) {
		snprintf(name, sizeof(name), ":fp%zu", i);
		store_bind_text(*out, name, fps[i]);
	}
	buf_release(&sql);
	return error;
}

static int latest_read(bool *out, struct store *store, const char *const *fps, size_t n)
{
	struct store_stmt *stmt = NULL;
	bool *decided = calloc(n ? n : 1, sizeof(*decided));
	const char *fp;
	size_t i;
	int error, rc;

	if (!decided)
		return error_nomem();
	if ((error = latest_query(&stmt, store, fps, n)) < 0)
		goto done;
	while ((rc = store_step(stmt)) == STORE_ROW) {
		fp = store_column_text(stmt, 0);
		for (i = 0; fp && i < n; i++)
			if (!decided[i] && !strcmp(fps[i], fp)) {
				decided[i] = true;
				out[i] = store_column_int(stmt, 1) != 0;
			}
	}
	if (rc != STORE_DONE)
		error = rc;
done:
	store_finalize(stmt);
	free(decided);
	return error;
}

int store_feedback_false_positives(bool *out, struct store *store, const char *const *fingerprints, size_t count)
{
	size_t at, n;
	int error = 0;

	memset(out, 0, count * sizeof(*out));
	store_lock(store);
	for (at = 0; at < count && !error; at += n) {
		n = count - at < LATEST_CHUNK ? count - at : LATEST_CHUNK;
		error = latest_read(out + at, store, fingerprints + at, n);
	}
	store_unlock(store);
	if (error)
		memset(out, 0, count * sizeof(*out));
	return error;
}

void feedback_examples_free(struct feedback_example *examples, size_t count)
{
	size_t i;

	for (i = 0; examples && i < count; i++) {
		free(examples[i].file);
		free(examples[i].title);
		free(examples[i].issue);
		free(examples[i].code);
		free(examples[i].note);
	}
	free(examples);
}

void feedback_examples_release(struct feedback_examples *list)
{
	feedback_examples_free(list->items, list->count);
	list->items = NULL;
	list->count = 0;
	list->alloc = 0;
}

static int example_read(struct feedback_examples *list, struct store_stmt *stmt)
{
	struct feedback_example *e;
	int error;

	if ((error = ARRAY_GROW(list->items, list->alloc, list->count + 1)) < 0)
		return error;
	e = &list->items[list->count++];
	*e = (struct feedback_example){ .kind = list->kind, .score = store_column_double(stmt, 5) };
	if ((error = store_column_dup(&e->file, stmt, 0)) < 0 ||
	    (error = store_column_dup(&e->title, stmt, 1)) < 0 ||
	    (error = store_column_dup(&e->issue, stmt, 2)) < 0 ||
	    (error = store_column_dup(&e->code, stmt, 3)) < 0)
		return error;
	return store_column_dup(&e->note, stmt, 4);
}

/*
 * The rule's feedback of the lists' kinds still in force, in one
 * statement: numbered within each kind from the first (pos), each kind
 * kept up to its list's max. List i asks with :kind<i> and :max<i>; the
 * rows come by kind, each kind's in order. EXAMPLES_SQL's %s: the score,
 * the order within a kind, where the rows come from.
 */
#define EXAMPLES_SQL \
	"SELECT x.file, x.title, x.issue, x.code, x.note, x.score, x.kind FROM (" \
	"SELECT fb.file, fb.title, fb.issue, fb.code, fb.note, %s AS score, fb.kind, " \
	"ROW_NUMBER() OVER (PARTITION BY fb.kind ORDER BY %s) AS pos %s " \
	"WHERE fb.rule_id = :rule AND " IN_FORCE " AND fb.kind IN ("

/* Most like the query first: the backend's full-text match (store_dialect.feedback_match) gives the rows and their scores. */
#define MATCH_FROM "FROM (%s) m JOIN feedback fb ON fb.id = m.id"

/* The lists that ask for something: a max above 0. */
static bool list_asks(const struct feedback_examples *list)
{
	return list->max > 0;
}

/* The statement for the lists that ask: by the full-text match of :query, or (match false) the most recent first. */
static int examples_sql(struct buf *sql, struct store *store, const struct feedback_examples *lists,
			size_t nlists, bool match)
{
	struct buf from = BUF_INIT;
	const char *sep = "";
	size_t i;
	int error;

	if (match)
		error = buf_printf(&from, MATCH_FROM, store_dialect(store)->feedback_match);
	else
		error = buf_puts(&from, "FROM feedback fb");
	if (!error)
		error = buf_printf(sql, EXAMPLES_SQL, match ? "m.score" : "0.0",
				   match ? "m.score, fb.id DESC" : "fb.id DESC", from.ptr);
	for (i = 0; i < nlists && !error; i++)
		if (list_asks(&lists[i])) {
			error = buf_printf(sql, "%s:kind%zu", sep, i);
			sep = ", ";
		}
	if (!error)
		error = buf_puts(sql, ")) x WHERE ");
	for (i = 0, sep = ""; i < nlists && !error; i++)
		if (list_asks(&lists[i])) {
			error = buf_printf(sql, "%s(x.kind = :kind%zu AND x.pos <= :max%zu)", sep, i, i);
			sep = " OR ";
		}
	if (!error)
		error = buf_puts(sql, " ORDER BY x.kind, x.pos");
	buf_release(&from);
	return error;
}

static void examples_bind(struct store_stmt *stmt, const struct feedback_examples *lists, size_t nlists,
			  const char *rule_id, const char *query)
{
	char name[32];
	size_t i;

	if (query)
		store_bind_text(stmt, ":query", query);
	store_bind_text(stmt, ":rule", rule_id);
	for (i = 0; i < nlists; i++) {
		if (!list_asks(&lists[i]))
			continue;
		snprintf(name, sizeof(name), ":kind%zu", i);
		store_bind_text(stmt, name, feedback_kind_name(lists[i].kind));
		snprintf(name, sizeof(name), ":max%zu", i);
		store_bind_int(stmt, name, (int64_t)(lists[i].max < INT32_MAX ? lists[i].max : INT32_MAX));
	}
}

/* The row into each list of its kind that has room. */
static int examples_row(struct feedback_examples *lists, size_t nlists, struct store_stmt *stmt)
{
	const char *kind = store_column_text(stmt, 6);
	size_t i;
	int error = 0;

	for (i = 0; i < nlists && !error && kind; i++)
		if (lists[i].count < lists[i].max && !strcmp(kind, feedback_kind_name(lists[i].kind)))
			error = example_read(&lists[i], stmt);
	return error;
}

/*
 * Run the statement, match or the most recent; *rejected when the match
 * query was refused as it ran (FTS5's syntax errors are found then).
 */
static int examples_select(struct feedback_examples *lists, size_t nlists, bool *rejected, struct store *store,
			   const char *rule_id, const char *query)
{
	struct store_stmt *stmt = NULL;
	struct buf sql = BUF_INIT;
	int error, rc;

	*rejected = false;
	if ((error = examples_sql(&sql, store, lists, nlists, query != NULL)) == 0)
		error = store_prepare(store, &stmt, sql.ptr);
	buf_release(&sql);
	if (error < 0)
		return error;
	examples_bind(stmt, lists, nlists, rule_id, query);
	while (!error && (rc = store_step(stmt)) == STORE_ROW)
		error = examples_row(lists, nlists, stmt);
	if (!error && rc < 0) {
		if (query && store_step_refused(stmt)) {
			*rejected = true;
			error_clear();
		} else {
			error = rc;
		}
	}
	store_finalize(stmt);
	return error;
}

/* Under the store's lock: one statement for all the lists, two when the full-text search refuses the query. */
static int examples_find(struct feedback_examples *lists, size_t nlists, struct store *store, const char *rule_id,
			 const char *query)
{
	bool rejected = false;
	size_t i;
	int error;

	for (i = 0; i < nlists && !list_asks(&lists[i]); i++)
		;
	if (i == nlists || !rule_id)
		return 0;
	if (query && *query) {
		error = examples_select(lists, nlists, &rejected, store, rule_id, query);
		if (error || !rejected)
			return error;
		/* A query the full-text search cannot read must not cost the prompt its examples. */
		for (i = 0; i < nlists; i++)
			feedback_examples_release(&lists[i]);
	}
	return examples_select(lists, nlists, &rejected, store, rule_id, NULL);
}

int store_feedback_any(bool *out, struct store *store, const char *rule_id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	*out = false;
	store_lock(store);
	if ((error = store_prepare(store, &stmt, "SELECT 1 FROM feedback WHERE rule_id = :rule LIMIT 1")) == 0) {
		store_bind_text(stmt, ":rule", rule_id);
		if ((rc = store_step(stmt)) == STORE_ROW)
			*out = true;
		else if (rc < 0)
			error = rc;
	}
	store_finalize(stmt);
	store_unlock(store);
	return error;
}

int store_feedback_similar(struct feedback_examples *lists, size_t nlists, struct store *store,
			   const char *rule_id, const char *query)
{
	size_t i;
	int error;

	store_lock(store);
	error = examples_find(lists, nlists, store, rule_id, query);
	store_unlock(store);
	if (error < 0)
		for (i = 0; i < nlists; i++)
			feedback_examples_release(&lists[i]);
	return error;
}
