/* Help: every key and what it does, generated from the request table. */
#include "draw.h"
#include "tui.h"

#include <stdlib.h>
#include <string.h>

struct help_line {
	const char *group;      /* a group heading, or NULL */
	const struct request_info *info;
};

struct help_view {
	struct help_line *lines;
	size_t count;
	int keywidth;
};

static bool group_seen(const struct request_info *table, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(table[j].group, table[i].group))
			return true;
	return false;
}

static void help_add(struct help_view *hv, const struct request_info *info)
{
	struct buf keys = BUF_INIT;

	hv->lines[hv->count++].info = info;
	request_keys_text(&keys, info);
	if ((int)keys.len > hv->keywidth)
		hv->keywidth = (int)keys.len;
	buf_release(&keys);
}

static int help_init(struct view *view)
{
	struct help_view *hv = calloc(1, sizeof(*hv));
	const struct request_info *table;
	size_t n, i, k;

	if (!hv)
		return -1;
	table = request_table(&n);
	if (!(hv->lines = calloc(n * 3 + 1, sizeof(*hv->lines)))) {
		free(hv);
		return -1;
	}
	/* Each group once, its keys together, in the order the groups first come. */
	for (i = 0; i < n; i++) {
		if (group_seen(table, i))
			continue;
		if (hv->count)
			hv->count++;  /* a blank line between groups */
		hv->lines[hv->count++].group = table[i].group;
		for (k = i; k < n; k++)
			if (!strcmp(table[k].group, table[i].group))
				help_add(hv, &table[k]);
	}
	view->data = hv;
	view->lines = hv->count;
	view->has_cursor = false;
	return 0;
}

static void help_refresh(struct view *view)
{
	view->lines = ((struct help_view *)view->data)->count;
}

static void help_draw_line(struct view *view, size_t line, int row, bool selected)
{
	struct help_view *hv = view->data;
	const struct help_line *hl = &hv->lines[line];
	struct buf keys = BUF_INIT;
	int used = 0;

	(void)row;
	(void)selected;
	if (hl->group) {
		used = draw_str_cut(view->win, view->width, hl->group, theme_attr(STYLE_HELP_GROUP));
	} else if (hl->info) {
		request_keys_text(&keys, hl->info);
		used = draw_str(view->win, view->width, "  ", theme_attr(STYLE_DEFAULT));
		used += draw_str_cut(view->win, view->width - used, keys.ptr ? keys.ptr : "",
				     theme_attr(STYLE_HELP_KEY));
		/* The column of what the keys do, when the pane is wide enough for it. */
		if (hv->keywidth + 4 < view->width) {
			draw_fill(view->win, hv->keywidth + 4 - used, theme_attr(STYLE_DEFAULT));
			used = hv->keywidth + 4 > used ? hv->keywidth + 4 : used;
		}
		used += draw_str_cut(view->win, view->width - used, hl->info->help, theme_attr(STYLE_DEFAULT));
	}
	draw_fill(view->win, view->width - used, theme_attr(STYLE_DEFAULT));
	buf_release(&keys);
}

static void help_title(struct view *view, struct buf *out)
{
	(void)view;
	buf_printf(out, "Help: revline %s  (q, Esc or ? to close)", REVLINE_VERSION);
}

static bool help_request(struct view *view, enum request request)
{
	if (request == REQ_QUIT || request == REQ_CANCEL || request == REQ_HELP) {
		tui_overlay(view->tui, NULL);
		return true;
	}
	return false;
}

static bool help_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	const struct help_line *hl = &((struct help_view *)view->data)->lines[line];
	const char *text = hl->group ? hl->group : hl->info ? hl->info->help : "";

	return text_contains(text, strlen(text), needle, icase);
}

static void help_free(struct view *view)
{
	struct help_view *hv = view->data;

	if (hv)
		free(hv->lines);
	free(hv);
	view->data = NULL;
}

const struct view_ops help_view_ops = {
	.name = "help",
	.keys = "q close|/ search",
	.init = help_init,
	.prepare = help_refresh,
	.draw_line = help_draw_line,
	.title = help_title,
	.request = help_request,
	.matches = help_matches,
	.free = help_free,
};
