/* The status bar: where we are and the totals, a message, or the search prompt. */
#include "draw.h"
#include "repo.h"
#include "tui.h"

#include <stdio.h>
#include <string.h>

/* A check's progress: rules settled, failures, tokens, time. */
static bool review_text(struct tui *tui, char *out, size_t size)
{
	const struct review *r = &tui->review;
	struct review_counts n;
	size_t len;

	if (!r->check)
		return false;
	review_count(r, &n);
	len = (size_t)snprintf(out, size, "%s %zu/%zu rules", review_running(r) ? "checking" :
			       check_status(r->check), n.settled, n.rules);
	if (n.failed && len < size)
		len += (size_t)snprintf(out + len, size - len, ", %zu failed", n.failed);
	if (check_store_error(r->check) && len < size)
		len += (size_t)snprintf(out + len, size - len, ", NOT STORED");
	if (len < size)
		len += (size_t)snprintf(out + len, size - len, ", %.1fk tokens, %.1fs", n.tokens / 1000.0,
					check_duration_ms(r->check) / 1000.0);
	if (r->fixes && !fixdetect_done(r->fixes) && len < size)
		snprintf(out + len, size - len, ", finding fixes");
	return true;
}

static void totals_text(struct tui *tui, char *out, size_t size)
{
	const struct diff *diff = tui->diff;

	if (review_text(tui, out, size))
		return;

	if (repo_diff_renames_pending(diff))
		snprintf(out, size, "%zu files  finding renames", diff->nfiles);
	else if (!diff_counted(diff))
		snprintf(out, size, "%zu files  counting %zu/%zu", diff->nfiles, diff->counted,
			 diff->nfiles);
	else
		snprintf(out, size, "%zu file%s  +%llu -%llu", diff->nfiles,
			 diff->nfiles == 1 ? "" : "s", (unsigned long long)diff->additions,
			 (unsigned long long)diff->deletions);
}

/* The focused view's main keys, as many whole ones as fit in width; false when some did not. */
static bool keys_text(struct tui *tui, struct buf *out, int width)
{
	const struct view *view = tui_active_view(tui);
	const char *key, *end;
	size_t len;

	if (!view || !view->ops->keys)
		return true;
	for (key = view->ops->keys; *key; key = *end ? end + 1 : end) {
		end = strchr(key, '|');
		if (!end)
			end = key + strlen(key);
		len = (size_t)(end - key);
		if ((int)(out->len + len + 2) > width)
			return false;
		buf_printf(out, "  %.*s", (int)len, key);
	}
	return true;
}

/* What the bar shows when there is no message: where we are, the focused view's keys, the totals. */
struct bar {
	struct buf left, keys;
	char right[128];
	bool keys_cut;
};

static void bar_make(struct bar *bar, struct tui *tui, int width)
{
	int room, used;

	memset(bar, 0, sizeof(*bar));
	buf_printf(&bar->left, "%s [%s] %s", tui->repo->name, tui->repo->branch, tui->target->description);
	if (tui->search.active)
		buf_printf(&bar->left, "  /%s", tui->search.needle);
	totals_text(tui, bar->right, sizeof(bar->right));
	room = width - (int)strlen(bar->right) - 1;
	used = text_width(bar->left.ptr, bar->left.len);
	bar->keys_cut = !keys_text(tui, &bar->keys, room - used - 1);
}

static void bar_release(struct bar *bar)
{
	buf_release(&bar->left);
	buf_release(&bar->keys);
}

bool statusbar_keys_cut(struct tui *tui, int width)
{
	struct bar bar;
	bool cut;

	bar_make(&bar, tui, width);
	cut = bar.keys_cut;
	bar_release(&bar);
	return cut;
}

void statusbar_draw(struct tui *tui, WINDOW *win, int width)
{
	attr_t attrs = theme_attr(STYLE_STATUS);
	struct bar bar;
	int used, rwidth, room;

	wmove(win, 0, 0);
	if (tui->prompting) {
		const char *typed = tui->prompt.ptr ? tui->prompt.ptr : "";
		size_t len = strlen(typed);

		used = draw_str_cut(win, width, tui->prompt_kind == PROMPT_NOTE ?
				    "False positive. Why? (Enter to skip, Esc to cancel): " : "/", attrs);
		/* What does not fit is its start: the end, where the cursor is, stays in sight. */
		if (used < width - 1 && text_width(typed, len) > width - used - 1) {
			used += draw_str(win, 1, draw_ellipsis(), attrs);
			typed += text_tail(typed, len, width - used - 1);
		}
		used += draw_str(win, width - used, typed, attrs);
		draw_fill(win, width - used, attrs);
		wmove(win, 0, used < width ? used : width - 1);
		wnoutrefresh(win);
		return;
	}
	if (tui->message[0]) {
		attr_t mattrs = theme_attr(tui->message_error ? STYLE_STATUS_ERROR : STYLE_STATUS);

		used = draw_str_cut(win, width, tui->message, mattrs);
		draw_fill(win, width - used, mattrs);
		wnoutrefresh(win);
		return;
	}
	bar_make(&bar, tui, width);
	rwidth = (int)strlen(bar.right);
	room = width - rwidth - 1 > 0 ? width - rwidth - 1 : 0;
	used = draw_str_cut(win, room, bar.left.ptr, attrs);
	if (bar.keys.len)
		used += draw_str(win, room - used, bar.keys.ptr, attrs);
	draw_fill(win, width - used - rwidth, attrs);
	if (width - used >= rwidth)
		draw_str(win, rwidth, bar.right, attrs);
	wnoutrefresh(win);
	bar_release(&bar);
}
