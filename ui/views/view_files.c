/* The files pane: status, path and +/- counts of every changed file. */
#include "draw.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void files_refresh(struct view *view)
{
	view->lines = view->tui->diff->nfiles;
}

static enum style status_style(enum diff_status status)
{
	switch (status) {
	case DIFF_ADDED: return STYLE_FILE_ADDED;
	case DIFF_DELETED: return STYLE_FILE_DELETED;
	case DIFF_RENAMED: case DIFF_COPIED: return STYLE_FILE_RENAMED;
	default: return STYLE_FILE_MODIFIED;
	}
}

/* "old → new" for renames and copies, else the path. */
static void file_label(struct buf *out, const struct diff_file *file)
{
	if (file->old_path != file->path && strcmp(file->old_path, file->path)) {
		buf_puts(out, file->old_path);
		buf_puts(out, MB_CUR_MAX > 1 ? " \xe2\x86\x92 " : " -> ");
	}
	buf_puts(out, file->path);
}

static void counts_text(char *out, size_t size, const struct diff_file *file)
{
	if (!(file->flags & DIFF_FILE_COUNTED))
		*out = '\0';
	else if (file->flags & DIFF_FILE_BINARY)
		snprintf(out, size, "bin");
	else
		snprintf(out, size, "+%u -%u", file->additions, file->deletions);
}

static void files_draw_line(struct view *view, size_t line, int row, bool selected)
{
	struct diff_file *file = &view->tui->diff->files[line];
	attr_t base = selected ? theme_attr(view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR) : 0;
	attr_t text = selected ? base : theme_attr(STYLE_DEFAULT);
	struct buf label = BUF_INIT;
	/* An unmerged path is U, as git status and tig show it. */
	char counts[32], letter[3] = { file->conflict ? 'U' : diff_status_letter(file->status), ' ', '\0' };
	int width = view->width, cwidth, avail, used;
	size_t tail;

	(void)row;
	/* Visible files are counted now; the rest in the background. */
	diff_file_count(view->tui->diff, line);
	counts_text(counts, sizeof(counts), file);
	cwidth = (int)strlen(counts);
	used = draw_str(view->win, width, letter, selected ? base : theme_attr(status_style(file->status)));
	file_label(&label, file);
	avail = width - used - (cwidth ? cwidth + 1 : 0);
	if (avail < 1)
		avail = 1;
	tail = 0;
	if (text_width(label.ptr, label.len) > avail) {
		/* Keep the end of the path, where the file name is. */
		used += draw_str(view->win, 1, MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "<", text);
		tail = text_tail(label.ptr, label.len, avail - 1);
	}
	used += draw_str(view->win, width - used, label.ptr + tail, text);
	draw_fill(view->win, width - used - cwidth, text);
	if (cwidth && width - used > cwidth) {
		char *space = strchr(counts, ' ');

		if (space && !selected) {
			*space = '\0';
			draw_str(view->win, cwidth, counts, theme_attr(STYLE_COUNT_ADD));
			draw_str(view->win, 1, " ", text);
			draw_str(view->win, cwidth, space + 1, theme_attr(STYLE_COUNT_DEL));
		} else {
			draw_str(view->win, cwidth, counts, selected ? base : text);
		}
	}
	buf_release(&label);
}

/* What git is doing, short enough for the pane's title: "merging", as git's prompt says it. */
static const char *in_progress_verb(const char *what)
{
	static const char *const verbs[][2] = {
		{ "merge", "merging" }, { "rebase", "rebasing" }, { "cherry-pick", "cherry-picking" },
		{ "revert", "reverting" }, { "am", "applying patches" }, { "bisect", "bisecting" },
	};
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i][0], what))
			return verbs[i][1];
	return what;
}

static void files_title(struct view *view, struct buf *out)
{
	const struct diff *diff = view->tui->diff;
	size_t unmerged = diff_unmerged(diff);

	buf_printf(out, "Files  %zu/%zu", view->lines ? view->lineno + 1 : 0, view->lines);
	if (diff->in_progress)
		buf_printf(out, "  %s", in_progress_verb(diff->in_progress));
	if (diff->in_progress && unmerged)
		buf_printf(out, ", %zu unmerged", unmerged);
}

static bool files_request(struct view *view, enum request request)
{
	if (request != REQ_ENTER)
		return false;
	if (view->lines) {
		tui_open_file(view->tui, view->lineno);
		tui_set_focus(view->tui, &view->tui->views[VIEW_DIFF]);
	}
	return true;
}

static bool files_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	const struct diff_file *file = &view->tui->diff->files[line];

	return text_contains(file->path, strlen(file->path), needle, icase) ||
		text_contains(file->old_path, strlen(file->old_path), needle, icase);
}

/* The diff pane follows the cursor. */
static void files_selected(struct view *view)
{
	if (view->lineno < view->lines)
		tui_open_file(view->tui, view->lineno);
}

static int files_init(struct view *view)
{
	view->has_cursor = true;
	return 0;
}

const struct view_ops files_view_ops = {
	.name = "files",
	.keys = "Enter diff|c check|s signals|I untracked|/ search|? help",
	.init = files_init,
	.prepare = files_refresh,
	.draw_line = files_draw_line,
	.title = files_title,
	.request = files_request,
	.matches = files_matches,
	.selected = files_selected,
};
