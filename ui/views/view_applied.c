/*
 * The applied fixes (U): every fix of the repository that is applied, of
 * this session and earlier ones, newest first, as 'revline undo --list'
 * lists them; u or Enter undoes the one under the cursor.
 */
#include "draw.h"
#include "lines.h"
#include "status.h"
#include "tui.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct applied_view {
	struct lines lines;
	struct fix_record *records;
	size_t count;
	bool loaded;
	char error[256];
};

static void records_drop(struct applied_view *av)
{
	fix_records_free(av->records, av->count);
	av->records = NULL;
	av->count = 0;
}

static void reload(struct applied_view *av, struct tui *tui)
{
	records_drop(av);
	av->error[0] = '\0';
	if (fixes_applied(&tui->fixes, &av->records, &av->count) < 0)
		snprintf(av->error, sizeof(av->error), "%s", error_message());
	av->loaded = true;
}

static void record_row(struct lines *l, const struct fix_record *r, size_t index)
{
	char when[32];
	time_t t = (time_t)(r->applied_at / 1000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm))
		snprintf(when, sizeof(when), "?");
	lines_row(l, (long)index);
	lines_add(l, STYLE_DEFAULT, " #%-5lld ", (long long)r->id);
	lines_add(l, STYLE_RULE_MUTED, "%s  ", when);
	lines_add(l, STYLE_DEFAULT, "%s:%d-%d  ", r->file, r->first, r->last);
	lines_add(l, STYLE_RULE_MUTED, "%s %s  ", r->tool ? r->tool : "finding", r->code ? r->code : "");
	lines_add(l, STYLE_DEFAULT, "%s", r->message ? r->message : "");
	if (r->recheck_detail) {
		lines_row(l, (long)index);
		lines_add(l, r->recheck == RECHECK_GONE ? STYLE_RULE_OK : r->recheck == RECHECK_NOT_RUN ?
			  STYLE_RULE_MUTED : STYLE_RULE_ATTENTION, "        %s", r->recheck_detail);
	}
}

static void applied_prepare(struct view *view)
{
	struct applied_view *av = view->data;
	size_t i;

	if (!av->loaded)
		reload(av, view->tui);
	lines_clear(&av->lines);
	if (av->error[0] || !av->count) {
		lines_row(&av->lines, -1);
		lines_add(&av->lines, STYLE_DEFAULT, " ");
		lines_add(&av->lines, av->error[0] ? STYLE_RULE_FAILED : STYLE_EMPTY_TITLE, "%s",
			  av->error[0] ? av->error : "No applied fix in this repository");
	}
	for (i = 0; i < av->count; i++)
		record_row(&av->lines, &av->records[i], i);
	view->lines = av->lines.nrows;
	if (view->lineno >= view->lines)
		view->lineno = view->lines ? view->lines - 1 : 0;
}

static void applied_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct applied_view *)view->data)->lines, view, line, selected);
}

static void applied_title(struct view *view, struct buf *out)
{
	buf_printf(out, "Applied fixes  %zu  (u or Enter undoes the one selected; q, Esc or U to close)",
		   ((struct applied_view *)view->data)->count);
}

static bool applied_request(struct view *view, enum request request)
{
	struct applied_view *av = view->data;
	long tag = view->lineno < av->lines.nrows ? lines_tag(&av->lines, view->lineno) : -1;

	switch (request) {
	case REQ_QUIT: case REQ_CANCEL: case REQ_APPLIED: case REQ_BACK:
		av->loaded = false;
		tui_overlay(view->tui, NULL);
		return true;
	case REQ_UNDO: case REQ_ENTER:
		if (tag < 0 || (size_t)tag >= av->count)
			tui_message(view->tui, true, "No applied fix here to undo");
		else if (fixes_undo_id(&view->tui->fixes, av->records[tag].id) == 0)
			av->loaded = false;
		view->dirty = true;
		return true;
	case REQ_HELP: case REQ_HISTORY: case REQ_STATS: case REQ_DEPS:
		av->loaded = false;
		return false;
	default:
		return false;
	}
}

static bool applied_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct applied_view *)view->data)->lines, line, needle, icase);
}

static int applied_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct applied_view));
	view->has_cursor = true;
	return view->data ? 0 : -1;
}

static void applied_free(struct view *view)
{
	struct applied_view *av = view->data;

	if (av) {
		lines_release(&av->lines);
		records_drop(av);
	}
	free(av);
	view->data = NULL;
}

const struct view_ops applied_view_ops = {
	.name = "applied",
	.keys = "Enter undo|/ search|q close",
	.init = applied_init,
	.prepare = applied_prepare,
	.draw_line = applied_draw_line,
	.title = applied_title,
	.request = applied_request,
	.matches = applied_matches,
	.free = applied_free,
};
