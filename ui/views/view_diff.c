/* The diff pane: one file's header, hunks and lines with old/new numbers. */
#include "array.h"
#include "draw.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After a line without a newline at its end, as git says it. */
#define NO_EOL_MARK " \\ no newline at end of file"

/* ROW_EMPTY: a line of what an empty diff compared and left out (index 0, 1, 2). */
enum row_kind { ROW_HEADER, ROW_HUNK, ROW_LINE, ROW_ERROR, ROW_EMPTY };

struct row {
	enum row_kind kind;
	uint32_t index;         /* hunk or line index; header line offset */
	uint32_t len;           /* header line length */
	const char *text;       /* header line text */
};

struct diff_view {
	size_t file;            /* the file the rows were built for */
	unsigned serial;        /* of the diff they were built from */
	bool built;
	struct row *rows;
	size_t nrows, alloc;
	int numwidth;           /* digits of the line number columns */
	int width;              /* of the widest row unscrolled; -1 until asked */
	char error[512];
};

static int rows_add(struct diff_view *dv, enum row_kind kind, uint32_t index,
		    const char *text, uint32_t len)
{
	if (ARRAY_GROW(dv->rows, dv->alloc, dv->nrows + 1) < 0)
		return -1;
	dv->rows[dv->nrows++] = (struct row){ kind, index, len, text };
	return 0;
}

static int header_rows(struct diff_view *dv, const char *header, size_t len)
{
	size_t start = 0, i;

	for (i = 0; i < len; i++) {
		if (header[i] != '\n')
			continue;
		if (rows_add(dv, ROW_HEADER, 0, header + start, (uint32_t)(i - start)) < 0)
			return -1;
		start = i + 1;
	}
	return 0;
}

static int digits(uint32_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static int rows_build(struct diff_view *dv, const struct diff_file *file)
{
	uint32_t h, l, most = 0;

	if (header_rows(dv, file->header, file->header_len) < 0)
		return -1;
	for (h = 0; h < file->nhunks; h++) {
		const struct diff_hunk *hunk = &file->hunks[h];

		if (file->header2 && h == file->split_hunk &&
		    header_rows(dv, file->header2, file->header2_len) < 0)
			return -1;
		if (rows_add(dv, ROW_HUNK, h, NULL, 0) < 0)
			return -1;
		for (l = 0; l < hunk->nlines; l++)
			if (rows_add(dv, ROW_LINE, hunk->first_line + l, NULL, 0) < 0)
				return -1;
		if (hunk->old_start + hunk->old_lines > most)
			most = hunk->old_start + hunk->old_lines;
		if (hunk->new_start + hunk->new_lines > most)
			most = hunk->new_start + hunk->new_lines;
	}
	if (file->header2 && file->split_hunk >= file->nhunks &&
	    header_rows(dv, file->header2, file->header2_len) < 0)
		return -1;
	dv->numwidth = digits(most) < 3 ? 3 : digits(most);
	return 0;
}

/* The row of a new line (or the first after it), for a finding's place. */
static void goto_line(struct view *view, int line)
{
	struct diff_view *dv = view->data;
	const struct diff_file *file = &view->tui->diff->files[dv->file];
	size_t i, best = 0, row;
	bool found = false;

	for (i = 0; i < dv->nrows && !found; i++) {
		const struct diff_line *l = dv->rows[i].kind == ROW_LINE ? &file->lines[dv->rows[i].index] : NULL;

		if (l && l->new_lineno >= line) {
			best = i;
			found = true;
		}
	}
	if (!found)
		return;
	view_select(view, best);
	/* A diff read again keeps the line on its row; a finding's goes a third down. */
	row = view->tui->goto_row > 0 ? (size_t)view->tui->goto_row - 1 : (size_t)view->height / 3;
	view_scroll_to(view, best > row ? best - row : 0);
}

int diff_view_place(struct view *view, int *row)
{
	struct diff_view *dv = view->data;
	const struct tui *tui = view->tui;
	const struct diff_file *file;
	size_t i;

	*row = (int)(view->lineno - view->offset);
	if (!dv->built || dv->file != tui->file || dv->serial != tui->diff_serial ||
	    dv->file >= tui->diff->nfiles || view->lineno >= dv->nrows || dv->rows[view->lineno].kind == ROW_HEADER)
		return 0;
	file = &tui->diff->files[dv->file];
	/* The cursor's new line, or the next one (a deleted line, a hunk header), or the last before. */
	for (i = view->lineno; i < dv->nrows; i++)
		if (dv->rows[i].kind == ROW_LINE && file->lines[dv->rows[i].index].new_lineno > 0)
			return file->lines[dv->rows[i].index].new_lineno;
	for (i = view->lineno < dv->nrows ? view->lineno : dv->nrows; i-- > 0;)
		if (dv->rows[i].kind == ROW_LINE && file->lines[dv->rows[i].index].new_lineno > 0)
			return file->lines[dv->rows[i].index].new_lineno;
	return 0;
}

static void diff_build(struct view *view);

static void diff_refresh(struct view *view)
{
	diff_build(view);
	if (view->tui->goto_line && view->tui->file < view->tui->diff->nfiles) {
		goto_line(view, view->tui->goto_line);
		view->tui->goto_line = view->tui->goto_row = 0;
	}
}

static void diff_build(struct view *view)
{
	struct diff_view *dv = view->data;
	struct tui *tui = view->tui;

	if (dv->built && dv->file == tui->file && dv->serial == tui->diff_serial)
		return;
	dv->serial = tui->diff_serial;
	dv->nrows = 0;
	dv->error[0] = '\0';
	dv->file = tui->file;
	dv->built = true;
	dv->width = -1;
	view->lineno = view->offset = 0;
	view->col = 0;
	if (tui->file >= tui->diff->nfiles) {
		/* Nothing to show (a check's panes stay after I left the untracked files out): say why. */
		rows_add(dv, ROW_EMPTY, 0, NULL, 0);
		rows_add(dv, ROW_EMPTY, 1, NULL, 0);
		if (tui->target->side == SIDE_WORKDIR)
			rows_add(dv, ROW_EMPTY, 2, NULL, 0);
	} else if (diff_file_load(tui->diff, tui->file) < 0) {
		snprintf(dv->error, sizeof(dv->error), "%s", error_message());
		rows_add(dv, ROW_ERROR, 0, NULL, 0);
	} else if (rows_build(dv, &tui->diff->files[tui->file]) < 0) {
		snprintf(dv->error, sizeof(dv->error), "out of memory");
		dv->nrows = 0;
		rows_add(dv, ROW_ERROR, 0, NULL, 0);
	}
	view->lines = dv->nrows;
}

static struct text_style text_style(struct view *view, enum style style, bool selected)
{
	struct tui *tui = view->tui;
	attr_t cursor = theme_attr(view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR);
	struct text_style ts = {
		.attrs = selected ? cursor : theme_attr(style),
		.special = selected ? cursor : theme_attr(STYLE_SPECIAL),
		.match = theme_attr(STYLE_SEARCH_MATCH),
		.needle = tui->search.active ? tui->search.needle : NULL,
		.icase = tui->search.icase,
	};

	return ts;
}

/* The gutter: a finding's mark coloured by its severity, else a linter signal's. */
static void gutter_mark(struct view *view, const struct diff_line *line, attr_t attrs, bool selected,
			int *used)
{
	struct diff_view *dv = view->data;
	const char *path = view->tui->diff->files[dv->file].path;
	int sev = line->new_lineno >= 0 ?
		review_severity_at(&view->tui->review, path, line->new_lineno) : -1;
	enum style style = sev == SEV_CRITICAL ? STYLE_SEV_CRITICAL : sev == SEV_MAJOR ?
		STYLE_SEV_MAJOR : sev == SEV_MINOR ? STYLE_SEV_MINOR : STYLE_SEV_NITPICK;
	const char *mark = " ";

	if (sev >= 0) {
		mark = MB_CUR_MAX > 1 ? "\xe2\x97\x8f" : "*";
	} else if (line->new_lineno >= 0 && fixes_signal_at(&view->tui->fixes, path, line->new_lineno)) {
		mark = MB_CUR_MAX > 1 ? "\xe2\x96\xb2" : "^";
		style = STYLE_RULE_ATTENTION;
	}
	*used += draw_str(view->win, view->width - *used, mark,
			  *mark == ' ' || selected ? attrs : theme_attr(style));
}

static void line_numbers(struct view *view, const struct diff_line *line, bool selected, int *used)
{
	struct diff_view *dv = view->data;
	attr_t attrs = selected ? theme_attr(view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR) :
		theme_attr(STYLE_LINE_NUMBER);
	char old[16] = "", new[16] = "", gutter[40];

	if (tui_review_shown(view->tui) || view->tui->fixes.signals.count)
		gutter_mark(view, line, attrs, selected, used);
	if (line->old_lineno >= 0)
		snprintf(old, sizeof(old), "%d", line->old_lineno);
	if (line->new_lineno >= 0)
		snprintf(new, sizeof(new), "%d", line->new_lineno);
	snprintf(gutter, sizeof(gutter), "%*s %*s", dv->numwidth, old, dv->numwidth, new);
	*used += draw_str(view->win, view->width - *used, gutter, attrs);
	*used += draw_str(view->win, view->width - *used, MB_CUR_MAX > 1 ? " \xe2\x94\x82" : " |",
			  selected ? attrs : theme_attr(STYLE_DELIMITER));
}

static void draw_diff_line(struct view *view, const struct diff_line *line, bool selected)
{
	enum style style = line->origin == '+' ? STYLE_DIFF_ADD :
		line->origin == '-' ? STYLE_DIFF_DEL : STYLE_DIFF_CONTEXT;
	struct text_style ts = text_style(view, style, selected);
	attr_t special = selected ? ts.attrs : theme_attr(STYLE_SPECIAL);
	struct text_style ts_eol = { special, special, special, NULL, false };
	struct draw_part parts[2] = {
		{ line->text, line->len, &ts },
		{ NO_EOL_MARK, strlen(NO_EOL_MARK), &ts_eol },
	};
	char origin[2] = { line->origin, '\0' };
	int used = 0;

	line_numbers(view, line, selected, &used);
	used += draw_str(view->win, view->width - used, origin, ts.attrs);
	/* Past the pane's edge, the line says it goes on (l scrolls). */
	used += draw_parts(view->win, view->width - used, view->col, parts,
			   line->flags & DIFF_LINE_NO_EOL ? 2 : 1);
	draw_fill(view->win, view->width - used, selected ? ts.attrs : theme_attr(style));
}

/* An empty diff's rows: "Nothing to review", what was compared, what was left out. */
static void empty_draw(struct view *view, const struct row *r, bool selected)
{
	struct tui *tui = view->tui;
	attr_t attrs = theme_attr(selected ? (view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR) :
				  r->index == 0 ? STYLE_EMPTY_TITLE : STYLE_DEFAULT);
	struct buf text = BUF_INIT;
	int used;

	if (r->index == 0)
		buf_puts(&text, "Nothing to review");
	else if (r->index == 1)
		buf_printf(&text, "%s: no changes", tui->target->description);
	else
		tui_untracked_text(tui, &text);
	used = draw_str_cut(view->win, view->width, text.ptr ? text.ptr : "", attrs);
	draw_fill(view->win, view->width - used, attrs);
	buf_release(&text);
}

static void diff_draw_line(struct view *view, size_t index, int row, bool selected)
{
	struct diff_view *dv = view->data;
	const struct row *r = &dv->rows[index];
	const struct diff *diff = view->tui->diff;
	const struct diff_file *file = dv->file < diff->nfiles ? &diff->files[dv->file] : NULL;
	struct draw_part part;
	struct text_style ts;
	int used = 0;

	(void)row;
	switch (r->kind) {
	case ROW_EMPTY:
		empty_draw(view, r, selected);
		return;
	case ROW_LINE:
		draw_diff_line(view, &file->lines[r->index], selected);
		return;
	case ROW_HUNK:
		ts = text_style(view, STYLE_HUNK_HEADER, selected);
		part = (struct draw_part){ file->hunks[r->index].header, file->hunks[r->index].header_len, &ts };
		used = draw_parts(view->win, view->width, view->col, &part, 1);
		break;
	case ROW_HEADER:
		ts = text_style(view, STYLE_FILE_HEADER, selected);
		part = (struct draw_part){ r->text, r->len, &ts };
		used = draw_parts(view->win, view->width, view->col, &part, 1);
		break;
	case ROW_ERROR:
		ts = text_style(view, STYLE_STATUS_ERROR, selected);
		part = (struct draw_part){ dv->error, strlen(dv->error), &ts };
		used = draw_parts(view->win, view->width, 0, &part, 1);
		break;
	}
	draw_fill(view->win, view->width - used, ts.attrs);
}

static void diff_title(struct view *view, struct buf *out)
{
	struct tui *tui = view->tui;
	const struct diff_file *file;

	if (tui->file >= tui->diff->nfiles) {
		buf_puts(out, "Diff");
		return;
	}
	file = &tui->diff->files[tui->file];
	buf_printf(out, "%s  %s  file %zu/%zu", file->path, diff_status_name(file->status),
		   tui->file + 1, tui->diff->nfiles);
	if (file->flags & DIFF_FILE_COUNTED && !(file->flags & DIFF_FILE_BINARY))
		buf_printf(out, "  +%u -%u", file->additions, file->deletions);
	if (view->lines)
		buf_printf(out, "  line %zu/%zu", view->lineno + 1, view->lines);
}

/* The first (or last) hunk row after (or before) the cursor, or -1. */
static long hunk_row(struct diff_view *dv, size_t from, int direction, bool inclusive)
{
	long i = (long)from + (inclusive ? 0 : direction);

	for (; i >= 0 && i < (long)dv->nrows; i += direction)
		if (dv->rows[i].kind == ROW_HUNK)
			return i;
	return -1;
}

static void show_hunk(struct view *view, long row)
{
	view_select(view, (size_t)row);
	view_scroll_to(view, (size_t)row);
}

/* Next or previous hunk, going on into the next or previous file. */
static void hunk_move(struct view *view, int direction)
{
	struct diff_view *dv = view->data;
	struct tui *tui = view->tui;
	size_t file = tui->file;
	long row;

	/* The rows may be another file's: keys are read before drawing. */
	diff_refresh(view);
	row = hunk_row(dv, view->lineno, direction, false);
	if (row >= 0) {
		show_hunk(view, row);
		return;
	}
	while ((direction > 0 && file + 1 < tui->diff->nfiles) || (direction < 0 && file > 0)) {
		file += (size_t)(long)direction;
		tui_open_file(tui, file);
		diff_refresh(view);
		row = direction > 0 ? hunk_row(dv, 0, 1, true) :
			hunk_row(dv, dv->nrows ? dv->nrows - 1 : 0, -1, true);
		if (row >= 0) {
			show_hunk(view, row);
			return;
		}
	}
	tui_message(tui, false, direction > 0 ? "No more hunks" : "No earlier hunks");
}

/* How far right the rows go, as drawn without scrolling. */
static int rows_width(struct view *view)
{
	struct diff_view *dv = view->data;
	const struct diff_file *file;
	int most = 0, w;
	size_t i;

	if (dv->file >= view->tui->diff->nfiles)
		return view->width;
	file = &view->tui->diff->files[dv->file];
	for (i = 0; i < dv->nrows; i++) {
		const struct row *r = &dv->rows[i];

		if (r->kind == ROW_LINE)
			w = 2 * dv->numwidth + 4 + text_width(file->lines[r->index].text, file->lines[r->index].len) +
				(file->lines[r->index].flags & DIFF_LINE_NO_EOL ? (int)strlen(NO_EOL_MARK) : 0);
		else if (r->kind == ROW_HUNK)
			w = text_width(file->hunks[r->index].header, file->hunks[r->index].header_len);
		else if (r->kind == ROW_HEADER)
			w = text_width(r->text, r->len);
		else
			w = 0;
		if (w > most)
			most = w;
	}
	return most;
}

static bool diff_request(struct view *view, enum request request)
{
	struct diff_view *dv = view->data;
	struct tui *tui = view->tui;

	switch (request) {
	case REQ_SCROLL_RIGHT:
		diff_refresh(view);
		if (dv->width < 0)
			dv->width = rows_width(view);
		if (view->col + view->width < dv->width)
			return false;
		tui_message(tui, false, "Cannot scroll beyond the last column");
		return true;
	case REQ_NEXT: case REQ_PREV:
		if (tui->search.active)
			return false;
		hunk_move(view, request == REQ_NEXT ? 1 : -1);
		return true;
	case REQ_ENTER:
		return true;
	default:
		return false;
	}
}

static bool row_matches(const struct diff_file *file, const struct row *r, const char *needle, bool icase)
{
	switch (r->kind) {
	case ROW_LINE:
		return text_contains(file->lines[r->index].text, file->lines[r->index].len, needle, icase);
	case ROW_HUNK:
		return text_contains(file->hunks[r->index].header, file->hunks[r->index].header_len,
				     needle, icase);
	case ROW_HEADER:
		return text_contains(r->text, r->len, needle, icase);
	default:
		return false;
	}
}

static bool diff_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	struct diff_view *dv = view->data;

	if (dv->file >= view->tui->diff->nfiles)
		return false;
	return row_matches(&view->tui->diff->files[dv->file], &dv->rows[line], needle, icase);
}

/* Whether a file (loaded for the search) has a match anywhere. */
static bool file_matches(struct tui *tui, size_t index)
{
	const struct diff_file *file;
	uint32_t i;

	if (diff_file_load(tui->diff, index) < 0)
		return false;
	file = &tui->diff->files[index];
	if (text_contains(file->header, file->header_len, tui->search.needle, tui->search.icase) ||
	    (file->header2 && text_contains(file->header2, file->header2_len, tui->search.needle,
					    tui->search.icase)))
		return true;
	for (i = 0; i < file->nhunks; i++)
		if (text_contains(file->hunks[i].header, file->hunks[i].header_len,
				  tui->search.needle, tui->search.icase))
			return true;
	for (i = 0; i < file->nlines; i++)
		if (text_contains(file->lines[i].text, file->lines[i].len,
				  tui->search.needle, tui->search.icase))
			return true;
	return false;
}

/*
 * Past the end of a file (the start going back), the search goes on through
 * the other files and around to the same file's first match (last, going
 * back): the last step of the loop is the file it started in.
 */
static bool diff_search_more(struct view *view, int direction)
{
	struct tui *tui = view->tui;
	size_t n = tui->diff->nfiles, start = tui->file, lineno = view->lineno, offset = view->offset;
	size_t step, file;

	for (step = 1; step <= n; step++) {
		file = (start + n + (size_t)((long)step * direction)) % n;
		if (!file_matches(tui, file))
			continue;
		tui_open_file(tui, file);
		diff_refresh(view);
		if (view_search_from(view, direction > 0 ? 0 : view->lines - 1, direction))
			return true;
	}
	/* Nothing shown matches (a match only in text the pane does not show): stay. */
	if (tui->file != start) {
		tui_open_file(tui, start);
		diff_refresh(view);
		view->offset = offset;
		view_select(view, lineno);
	}
	return false;
}

static int diff_view_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct diff_view));
	view->has_cursor = true;
	return view->data ? 0 : -1;
}

static void diff_view_free(struct view *view)
{
	struct diff_view *dv = view->data;

	if (dv)
		free(dv->rows);
	free(dv);
	view->data = NULL;
}

const struct view_ops diff_view_ops = {
	.name = "diff",
	.keys = "n N hunk|] [ file|e edit|c check|/ search|? help",
	.init = diff_view_init,
	.prepare = diff_refresh,
	.draw_line = diff_draw_line,
	.title = diff_title,
	.request = diff_request,
	.matches = diff_matches,
	.search_more = diff_search_more,
	.free = diff_view_free,
	.place = diff_view_place,
};
