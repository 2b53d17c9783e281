/*
 * History, full screen: the repository's checks, newest first; Enter on a
 * check shows its violations, Enter on a violation whether and how it was
 * fixed. The store is read again whenever it has changed, so the checks
 * and the fixes that this UI's own fix detection finds appear as they are
 * stored, and what it is still working on says so.
 */
#include "draw.h"
#include "history.h"
#include "lines.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum level { LEVEL_CHECKS, LEVEL_VIOLATIONS, LEVEL_FIX };

struct history_view {
	enum level level;
	bool loaded;
	struct history_version version;
	char *repo;                             /* the store's key of the repository */
	struct history_check *checks;
	size_t nchecks;
	struct history_violation *violations;   /* of the check open */
	size_t nviolations;
	struct history_fix *fix;                /* of the violation open, or NULL */
	int64_t check;                          /* the check open, or under the cursor */
	int64_t violation;                      /* its violation (threadline row) open, or under the cursor */
	char error[512];                        /* why the history could not be read */
	struct lines lines;
};

static bool utf8(void)
{
	return MB_CUR_MAX > 1;
}

static const char *ellipsis(void)
{
	return utf8() ? "\xe2\x80\xa6" : "...";
}

/* Local time to the minute. */
static void time_text(char *out, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(out, size, "%Y-%m-%d %H:%M", &tm))
		snprintf(out, size, "?");
}

/* "1 finding", "2 findings". */
static void count_text(char *out, size_t size, long n, const char *noun)
{
	snprintf(out, size, "%ld %s%s", n, noun, n == 1 ? "" : "s");
}

/* A row of text; its indent is not styled (an underline would show under it). */
static void text_row(struct lines *l, enum style style, const char *text)
{
	size_t indent = strspn(text, " ");

	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, "%.*s", (int)indent, text);
	lines_add(l, style, "%s", text + indent);
}

static const struct history_check *check_of(const struct history_view *hv, int64_t id)
{
	size_t i;

	for (i = 0; i < hv->nchecks; i++)
		if (hv->checks[i].id == id)
			return &hv->checks[i];
	return NULL;
}

static const struct history_violation *violation_open(const struct history_view *hv)
{
	size_t i;

	for (i = 0; i < hv->nviolations; i++)
		if (hv->violations[i].threadline_row == hv->violation)
			return &hv->violations[i];
	return NULL;
}

/* What the UI's own fix detection says of a violation, while it looks at the violation's check. */
static const struct violation *live_of(const struct tui *tui, int64_t check, int64_t threadline_row)
{
	const struct fixdetect *fd = tui->review.fixes;
	size_t i;

	if (!fd || fixdetect_previous(fd) != check)
		return NULL;
	for (i = 0; i < fixdetect_count(fd); i++)
		if (fixdetect_violation(fd, i)->threadline_row == threadline_row)
			return fixdetect_violation(fd, i);
	return NULL;
}

static bool live_running(const struct violation *live)
{
	return live && live->outcome == OUTCOME_PENDING;
}

static void data_free(struct history_view *hv)
{
	history_checks_free(hv->checks, hv->nchecks);
	history_violations_free(hv->violations, hv->nviolations);
	history_fixes_free(hv->fix, hv->fix ? 1 : 0);
	hv->checks = NULL;
	hv->violations = NULL;
	hv->fix = NULL;
	hv->nchecks = hv->nviolations = 0;
}

/* Read what the level shows. */
static int load(struct history_view *hv, struct tui *tui)
{
	struct store *store = tui->review.store;
	const struct history_violation *v;
	int error;

	data_free(hv);
	if (!hv->repo &&
	    !(hv->repo = history_repo_key(tui->repo->workdir ? tui->repo->workdir : tui->repo->gitdir)))
		return error_nomem();
	if ((error = history_checks(&hv->checks, &hv->nchecks, store, &(struct history_scope){ .path = hv->repo },
				    0)) < 0)
		return error;
	if (hv->level != LEVEL_CHECKS &&
	    (error = history_violations(&hv->violations, &hv->nviolations, store, hv->check)) < 0)
		return error;
	if (hv->level == LEVEL_FIX && (v = violation_open(hv)) && v->fix_id)
		return history_fix_lookup(&hv->fix, store, v->fix_id);
	return 0;
}

/* Read again when the store changed since (a check, fix detection, feedback, another revline). */
static void reread(struct history_view *hv, struct tui *tui)
{
	bool changed = history_changed(&hv->version, tui->review.store);

	if (hv->loaded && !changed)
		return;
	hv->error[0] = '\0';
	if (load(hv, tui) < 0)
		snprintf(hv->error, sizeof(hv->error), "%s", error_message());
	hv->loaded = true;
}

static enum style status_style(const char *status)
{
	if (!strcmp(status, "complete"))
		return STYLE_RULE_OK;
	if (!strcmp(status, "running"))
		return STYLE_RULE_RUNNING;
	if (!strcmp(status, "partial"))
		return STYLE_RULE_ATTENTION;
	if (!strcmp(status, "cancelled"))
		return STYLE_RULE_MUTED;
	return STYLE_RULE_FAILED;
}

static enum style severity_style(const char *severity)
{
	if (!strcmp(severity, "critical"))
		return STYLE_SEV_CRITICAL;
	if (!strcmp(severity, "major"))
		return STYLE_SEV_MAJOR;
	if (!strcmp(severity, "minor"))
		return STYLE_SEV_MINOR;
	return STYLE_SEV_NITPICK;
}

static int widest(int width, const char *text)
{
	int w = text_width(text, strlen(text));

	return w > width ? w : width;
}

/* The columns of the checks list, as wide as their widest entry. */
struct check_columns {
	int id, branch, status, rules, findings, violations;
};

static void check_columns(struct check_columns *w, const struct history_view *hv)
{
	char text[64];
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < hv->nchecks; i++) {
		const struct history_check *c = &hv->checks[i];

		snprintf(text, sizeof(text), "#%lld", (long long)c->id);
		w->id = widest(w->id, text);
		w->branch = widest(w->branch, c->branch);
		w->status = widest(w->status, c->status);
		count_text(text, sizeof(text), c->rules, "rule");
		w->rules = widest(w->rules, text);
		count_text(text, sizeof(text), c->findings, "finding");
		w->findings = widest(w->findings, text);
		count_text(text, sizeof(text), c->attention, "violation");
		w->violations = widest(w->violations, text);
	}
}

static void check_row(struct lines *l, const struct check_columns *w, const struct history_check *c,
		      bool detecting)
{
	char text[64];

	lines_add(l, STYLE_DEFAULT, " ");
	snprintf(text, sizeof(text), "#%lld", (long long)c->id);
	lines_pad(l, STYLE_LINE_NUMBER, text, w->id + 2);
	time_text(text, sizeof(text), c->created_ms);
	lines_add(l, STYLE_DEFAULT, "%s  ", text);
	lines_pad(l, STYLE_HUNK_HEADER, c->branch, w->branch + 2);
	lines_pad(l, status_style(c->status), c->status, w->status + 2);
	count_text(text, sizeof(text), c->rules, "rule");
	lines_pad(l, STYLE_DEFAULT, text, w->rules + 2);
	count_text(text, sizeof(text), c->findings, "finding");
	lines_pad(l, STYLE_DEFAULT, text, w->findings + 2);
	count_text(text, sizeof(text), c->attention, "violation");
	lines_pad(l, c->attention ? STYLE_RULE_ATTENTION : STYLE_DEFAULT, text, w->violations + 2);
	lines_add(l, STYLE_RULE_MUTED, "%s", c->target ? c->target : "");
	if (detecting)
		lines_add(l, STYLE_RULE_RUNNING, "  finding fixes%s", ellipsis());
}

static void checks_rows(struct history_view *hv, struct view *view)
{
	const struct fixdetect *fd = view->tui->review.fixes;
	struct check_columns w;
	size_t i;

	if (!hv->nchecks) {
		text_row(&hv->lines, STYLE_EMPTY_TITLE, " No checks of this repository yet: c checks the diff.");
		return;
	}
	check_columns(&w, hv);
	for (i = 0; i < hv->nchecks; i++) {
		lines_row(&hv->lines, (long)i);
		check_row(&hv->lines, &w, &hv->checks[i],
			  fd && !fixdetect_done(fd) && fixdetect_previous(fd) == hv->checks[i].id);
	}
}

/* What is known of a violation's fix, in a few words. */
static void violation_fix_state(char *out, size_t size, enum style *style, const struct history_violation *v,
		      const struct violation *live)
{
	*style = STYLE_RULE_MUTED;
	if (live_running(live)) {
		*style = STYLE_RULE_RUNNING;
		snprintf(out, size, "finding fix%s", ellipsis());
	} else if (v->fix_id) {
		*style = v->fix_feedback == HISTORY_FIX_INCORRECT ? STYLE_MARK : STYLE_RULE_OK;
		snprintf(out, size, "fixed: %s%s", v->fix_type,
			 v->fix_feedback == HISTORY_FIX_INCORRECT ? " (marked incorrect)" :
			 v->fix_feedback == HISTORY_FIX_CORRECT ? " (marked correct)" : "");
	} else if (live && live->outcome == OUTCOME_FAILED) {
		*style = STYLE_RULE_FAILED;
		snprintf(out, size, "fix detection failed");
	} else if (live && live->outcome == OUTCOME_SKIPPED) {
		snprintf(out, size, "not looked at");
	} else {
		snprintf(out, size, live ? "not fixed" : "not fixed (yet)");
	}
}

static void files_add(struct lines *l, enum style style, char **files, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		lines_add(l, style, "%s%s", i ? ", " : "", files[i]);
	if (!count)
		lines_add(l, style, "(none named)");
}

static void violations_rows(struct history_view *hv, struct view *view)
{
	char text[128];
	enum style style;
	int rule_w = 0, state_w = 0;
	size_t i;

	if (!hv->nviolations) {
		text_row(&hv->lines, STYLE_EMPTY_TITLE, " No violations: no rule needed attention in this check.");
		return;
	}
	for (i = 0; i < hv->nviolations; i++) {
		const struct history_violation *v = &hv->violations[i];

		rule_w = widest(rule_w, v->rule_id);
		violation_fix_state(text, sizeof(text), &style, v, live_of(view->tui, hv->check, v->threadline_row));
		state_w = widest(state_w, text);
	}
	for (i = 0; i < hv->nviolations; i++) {
		const struct history_violation *v = &hv->violations[i];

		lines_row(&hv->lines, (long)i);
		lines_add(&hv->lines, STYLE_DEFAULT, " ");
		lines_pad(&hv->lines, severity_style(v->severity), v->severity, 10);
		lines_pad(&hv->lines, STYLE_DEFAULT, v->rule_id, rule_w + 2);
		count_text(text, sizeof(text), v->findings, "finding");
		lines_pad(&hv->lines, STYLE_DEFAULT, text, 12);
		violation_fix_state(text, sizeof(text), &style, v, live_of(view->tui, hv->check, v->threadline_row));
		lines_pad(&hv->lines, style, text, state_w + 2);
		files_add(&hv->lines, STYLE_RULE_MUTED, v->files, v->nfiles);
	}
}

static void violation_head(struct history_view *hv, const struct history_violation *v, int width)
{
	const struct history_check *c = check_of(hv, hv->check);
	struct lines *l = &hv->lines;
	char when[32] = "?", found[32];

	if (c)
		time_text(when, sizeof(when), c->created_ms);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_add(l, STYLE_FILE_HEADER, "%s", v->rule_id);
	lines_add(l, STYLE_RULE_MUTED, "  %s", v->rule_file);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_add(l, severity_style(v->severity), "%s", v->severity);
	count_text(found, sizeof(found), v->findings, "finding");
	lines_add(l, STYLE_DEFAULT, ", %s in check #%lld (%s, %s)", found, (long long)hv->check, when,
		  c ? c->branch : "?");
	text_row(l, STYLE_LABEL, " Files: ");
	files_add(l, STYLE_DEFAULT, v->files, v->nfiles);
	if (v->reasoning && *v->reasoning) {
		text_row(l, STYLE_LABEL, " Why it needed attention");
		lines_wrap(l, STYLE_DEFAULT, v->reasoning, 3, width);
	}
	lines_row(l, -1);
}

static const char *method_text(const char *method)
{
	if (method && !strcmp(method, "deterministic"))
		return "deterministic (decided without asking an LLM)";
	return "llm_analysis (an LLM compared the two checks)";
}

static const char *feedback_text(enum history_fix_feedback feedback)
{
	switch (feedback) {
	case HISTORY_FIX_CORRECT: return "marked correct";
	case HISTORY_FIX_INCORRECT: return "marked incorrect (left out of the statistics)";
	case HISTORY_FIX_UNRATED: break;
	}
	return "none yet";
}

static void fix_found(struct history_view *hv, const struct history_fix *fix, int width)
{
	const struct history_check *by = check_of(hv, fix->fix_check_id);
	struct lines *l = &hv->lines;
	char when[32] = "?", took[32] = "unknown";

	if (by)
		time_text(when, sizeof(when), by->created_ms);
	if (fix->timed)
		history_duration_text(took, sizeof(took), (double)fix->seconds);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_add(l, STYLE_RULE_OK, "Fixed: %s", fix->fix_type);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, "   by check #%lld (%s); time to fix: %s", (long long)fix->fix_check_id,
		  when, took);
	text_row(l, STYLE_LABEL, " How");
	lines_wrap(l, STYLE_DEFAULT, fix->explanation && *fix->explanation ? fix->explanation :
		   "(no explanation)", 3, width);
	text_row(l, STYLE_LABEL, " Evidence");
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, "   files referenced: ");
	files_add(l, STYLE_DEFAULT, fix->files, fix->nfiles);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, "   method: %s", method_text(fix->method));
	lines_row(l, -1);
	text_row(l, STYLE_LABEL, " Feedback: ");
	lines_add(l, STYLE_MARK, "%s", feedback_text(fix->feedback));
	lines_add(l, STYLE_RULE_MUTED, "  (+ correct, - incorrect)");
}

/* The violation's fix, or what fix detection said or is doing. */
static void fix_outcome(struct history_view *hv, struct view *view, const struct violation *live)
{
	const struct check *check = view->tui->review.check;
	struct lines *l = &hv->lines;

	if (live_running(live)) {
		text_row(l, STYLE_RULE_RUNNING, " Fix detection running");
		lines_add(l, STYLE_RULE_RUNNING, "%s", ellipsis());
		lines_add(l, STYLE_DEFAULT, " (check #%lld against this one)",
			  (long long)(check ? check_id(check) : 0));
	} else if (hv->fix) {
		fix_found(hv, hv->fix, view->width);
	} else if (live && live->outcome == OUTCOME_FAILED) {
		text_row(l, STYLE_RULE_FAILED, " Fix detection failed");
		lines_wrap(l, STYLE_DEFAULT, live->error ? live->error : "(no reason given)", 3, view->width);
	} else if (live) {
		text_row(l, STYLE_RULE_MUTED, live->outcome == OUTCOME_SKIPPED ? " Not looked at" : " Not fixed");
		lines_wrap(l, STYLE_DEFAULT, live->explanation ? live->explanation : "", 3, view->width);
	} else {
		text_row(l, STYLE_RULE_MUTED, " Not fixed (yet)");
		text_row(l, STYLE_DEFAULT, "   No later check on this branch has found it fixed.");
	}
}

static void fix_rows(struct history_view *hv, struct view *view)
{
	const struct history_violation *v = violation_open(hv);

	if (!v) {
		text_row(&hv->lines, STYLE_EMPTY_TITLE, " This violation is no longer in the database.");
		return;
	}
	violation_head(hv, v, view->width);
	fix_outcome(hv, view, live_of(view->tui, hv->check, v->threadline_row));
}

/* The id of what a row stands for at the level shown, or 0. */
static int64_t row_id(const struct history_view *hv, size_t row)
{
	long tag = lines_tag(&hv->lines, row);

	if (tag < 0)
		return 0;
	if (hv->level == LEVEL_CHECKS)
		return (size_t)tag < hv->nchecks ? hv->checks[tag].id : 0;
	return (size_t)tag < hv->nviolations ? hv->violations[tag].threadline_row : 0;
}

/* Keep the cursor on what it was on when rows come and go above it. */
static void cursor_keep(struct history_view *hv, struct view *view)
{
	int64_t *id = hv->level == LEVEL_CHECKS ? &hv->check : &hv->violation;
	size_t i;

	if (hv->level == LEVEL_FIX)
		return;
	for (i = 0; *id && i < hv->lines.nrows; i++)
		if (row_id(hv, i) == *id)
			view->lineno = i;
	if (view->lineno >= hv->lines.nrows)
		view->lineno = hv->lines.nrows ? hv->lines.nrows - 1 : 0;
	if (view->lineno < view->offset)
		view->offset = view->lineno;
	else if (view->height > 0 && view->lineno >= view->offset + (size_t)view->height)
		view->offset = view->lineno - (size_t)view->height + 1;
	*id = row_id(hv, view->lineno);
}

static void history_prepare(struct view *view)
{
	struct history_view *hv = view->data;
	struct tui *tui = view->tui;

	lines_clear(&hv->lines);
	if (tui->review.store)
		reread(hv, tui);
	if (!tui->review.store) {
		text_row(&hv->lines, STYLE_DEFAULT, " ");
		lines_add(&hv->lines, STYLE_RULE_FAILED, "No history: %s",
			  tui->review.error[0] ? tui->review.error : "no database");
	} else if (hv->error[0]) {
		text_row(&hv->lines, STYLE_DEFAULT, " ");
		lines_add(&hv->lines, STYLE_RULE_FAILED, "Cannot read the history: %s", hv->error);
	} else if (hv->level == LEVEL_CHECKS) {
		checks_rows(hv, view);
	} else if (hv->level == LEVEL_VIOLATIONS) {
		violations_rows(hv, view);
	} else {
		fix_rows(hv, view);
	}
	view->lines = hv->lines.nrows;
	view->has_cursor = hv->level != LEVEL_FIX;
	cursor_keep(hv, view);
}

static void history_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct history_view *)view->data)->lines, view, line, selected);
}

static void history_title(struct view *view, struct buf *out)
{
	struct history_view *hv = view->data;
	const struct history_check *c = check_of(hv, hv->check);
	const struct history_violation *v = violation_open(hv);
	char when[32] = "?";

	if (c)
		time_text(when, sizeof(when), c->created_ms);
	if (hv->level == LEVEL_CHECKS)
		buf_printf(out, "History: %zu check%s  (Enter: violations; q: close)", hv->nchecks,
			   hv->nchecks == 1 ? "" : "s");
	else if (hv->level == LEVEL_VIOLATIONS)
		buf_printf(out, "History > check #%lld, %s, %s: %zu violation%s  (Enter: fix; BS: back)",
			   (long long)hv->check, when, c ? c->branch : "?", hv->nviolations,
			   hv->nviolations == 1 ? "" : "s");
	else
		buf_printf(out, "History > check #%lld > %s  (%sBS: back)", (long long)hv->check,
			   v ? v->rule_id : "?", hv->fix ? "+ or -: mark the fix; " : "");
}

/* Back to the checks, unread: what opens it next starts there. */
static void reset(struct history_view *hv)
{
	hv->level = LEVEL_CHECKS;
	hv->loaded = false;
	hv->check = hv->violation = 0;
	data_free(hv);
}

static void level_set(struct view *view, enum level level)
{
	struct history_view *hv = view->data;

	hv->level = level;
	hv->loaded = false;
	view->lineno = view->offset = 0;
	view->col = 0;
	view_dirty(view);
}

static void enter(struct view *view)
{
	struct history_view *hv = view->data;
	long tag = lines_tag(&hv->lines, view->lineno);

	if (tag < 0 || hv->level == LEVEL_FIX)
		return;
	if (hv->level == LEVEL_CHECKS) {
		hv->check = hv->checks[tag].id;
		hv->violation = 0;
	} else {
		hv->violation = hv->violations[tag].threadline_row;
	}
	level_set(view, (enum level)(hv->level + 1));
}

static void back(struct view *view)
{
	struct history_view *hv = view->data;

	if (hv->level == LEVEL_CHECKS) {
		reset(hv);
		tui_overlay(view->tui, NULL);
		return;
	}
	/* The cursor goes back to the check or violation that was open. */
	level_set(view, (enum level)(hv->level - 1));
}

/* The violation whose fix + and - mark: the one open, or under the cursor. */
static const struct history_violation *violation_marked(struct history_view *hv, struct view *view)
{
	long tag = lines_tag(&hv->lines, view->lineno);

	if (hv->level == LEVEL_FIX)
		return violation_open(hv);
	if (hv->level == LEVEL_VIOLATIONS && tag >= 0)
		return &hv->violations[tag];
	return NULL;
}

static void mark(struct view *view, bool correct)
{
	struct history_view *hv = view->data;
	struct tui *tui = view->tui;
	const struct history_violation *v = violation_marked(hv, view);
	int64_t id;

	if (!v || !v->fix_id) {
		tui_message(tui, true, "No fix to mark here: + and - mark a violation's fix");
		return;
	}
	if (feedback_on_fix(&id, tui->review.store, v->fix_id, correct, NULL) < 0) {
		tui_message(tui, true, "%s", error_message());
		return;
	}
	tui_message(tui, false, "The fix of %s in check #%lld is marked %s", v->rule_id,
		    (long long)hv->check, correct ? "correct" : "incorrect: the statistics leave it out");
	view_dirty(view);
}

static bool history_request(struct view *view, enum request request)
{
	struct history_view *hv = view->data;

	switch (request) {
	case REQ_QUIT: case REQ_CANCEL: case REQ_HISTORY:
		reset(hv);
		tui_overlay(view->tui, NULL);
		return true;
	case REQ_HELP: case REQ_STATS: case REQ_DEPS:
		/* Another full-screen view takes this one's place. */
		reset(hv);
		return false;
	case REQ_ENTER:
		enter(view);
		return true;
	case REQ_BACK:
		back(view);
		return true;
	case REQ_FIX_CORRECT: case REQ_FIX_INCORRECT:
		mark(view, request == REQ_FIX_CORRECT);
		return true;
	default:
		return false;
	}
}

static void history_selected(struct view *view)
{
	struct history_view *hv = view->data;

	if (hv->level == LEVEL_CHECKS)
		hv->check = row_id(hv, view->lineno);
	else if (hv->level == LEVEL_VIOLATIONS)
		hv->violation = row_id(hv, view->lineno);
}

static bool history_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct history_view *)view->data)->lines, line, needle, icase);
}

static int history_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct history_view));
	view->has_cursor = true;
	return view->data ? 0 : -1;
}

static void history_free(struct view *view)
{
	struct history_view *hv = view->data;

	if (hv) {
		data_free(hv);
		lines_release(&hv->lines);
		free(hv->repo);
	}
	free(hv);
	view->data = NULL;
}

const struct view_ops history_view_ops = {
	.name = "history",
	.keys = "Enter open|Backspace back|+ - judge fix|q close",
	.init = history_init,
	.prepare = history_prepare,
	.draw_line = history_draw_line,
	.title = history_title,
	.request = history_request,
	.matches = history_matches,
	.selected = history_selected,
	.free = history_free,
};
