/*
 * Dependencies, full screen (D): the dependency bumps of the change on
 * screen, each with its ecosystem, versions, bump, advisories and
 * whether it breaks, how the project depends on it when only a lock file
 * moves it (transitive, via the direct dependency that pulls it in),
 * what a bot's commit message claims that the lock files do not bear
 * out, and the merge confidence with its reason. With a
 * check, its analysis (advisories included, live while they are looked
 * up); without one, the analysis of the diff alone (advisories come with
 * a check).
 */
#include "depreview.h"
#include "clock.h"
#include "draw.h"
#include "lines.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct deps_view {
	struct depreview *own;          /* the diff's analysis when there is no check */
	unsigned serial;                /* of the diff it analysed (tui->diff_serial) */
	struct lines lines;
	char error[512];
};

static void forget(struct deps_view *dv);

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* The analysis to show: the check's, or one of the diff made now (without advisories). */
static const struct depreview *source(struct deps_view *dv, struct tui *tui)
{
	const struct depreview *dr = tui->review.check ? check_deps(tui->review.check) : NULL;
	struct depreview_options o = { .advisories = false };

	if (dr)
		return dr;
	/* The diff was made again: the analysis of the one it replaced goes, with its reference. */
	if ((dv->own || dv->error[0]) && dv->serial != tui->diff_serial)
		forget(dv);
	dv->serial = tui->diff_serial;
	if (!dv->own && !dv->error[0] &&
	    (depreview_new(&dv->own, tui->repo, tui->target, tui->diff, &o) < 0 || depreview_start(dv->own) < 0))
		snprintf(dv->error, sizeof(dv->error), "%s", error_message());
	return dv->error[0] ? NULL : dv->own;
}

static int width_of(const struct deps_analysis *a, int most)
{
	size_t i;
	int w = 7;

	for (i = 0; i < a->npackages; i++) {
		int n = text_width(a->packages[i].name, strlen(a->packages[i].name));

		if (n > w)
			w = n;
	}
	return w > most ? most : w;
}

static enum style bump_style(const struct deps_package *p)
{
	return p->breaking ? STYLE_SEV_MAJOR : p->bump == BUMP_MINOR ? STYLE_SEV_MINOR : STYLE_DEFAULT;
}

static void package_rows(struct lines *l, const struct deps_package *p, int name_w, int width)
{
	char versions[300], text[1024];
	size_t k;

	snprintf(versions, sizeof(versions), "%s -> %s", or_dash(p->from), or_dash(p->to));
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, "  ");
	lines_pad(l, STYLE_FILE_HEADER, p->name, name_w + 2);
	lines_pad(l, STYLE_LABEL, deps_ecosystem_name(p->ecosystem), 10);
	lines_pad(l, STYLE_DEFAULT, versions, 30);
	lines_pad(l, bump_style(p), deps_bump_name(p->bump), 9);
	if (p->breaking)
		lines_add(l, STYLE_SEV_MAJOR, "breaking  ");
	if (p->downgrade)
		lines_add(l, STYLE_SEV_MINOR, "downgrade  ");
	lines_add(l, STYLE_RULE_MUTED, "%s", or_dash(p->manifest));
	/* What only a lock file moves: how the project depends on it, and through which direct dependency. */
	if (p->relation != RELATION_DIRECT)
		lines_add(l, STYLE_RULE_MUTED, "  %s%s%s", deps_relation_name(p->relation), p->via ? " via " : "",
			  p->via ? p->via : "");
	if (p->claimed) {
		snprintf(text, sizeof(text), "the commit message says %s; %s says otherwise", p->claimed,
			 or_dash(p->lock ? p->lock : p->manifest));
		lines_wrap(l, STYLE_RULE_ATTENTION, text, 6, width);
	}
	for (k = 0; k < p->nadvisories; k++) {
		const struct deps_advisory *v = &p->advisories[k];

		snprintf(text, sizeof(text), "%s (%s, %s): %s", v->id, or_dash(v->severity),
			 deps_advisory_effect(v), or_dash(v->summary));
		lines_wrap(l, v->fixed ? STYLE_RULE_OK : STYLE_RULE_FAILED, text, 6, width);
	}
}

static void analysis_rows(struct lines *l, const struct depreview *dr, struct tui *tui, int width)
{
	const struct deps_analysis *a = depreview_analysis(dr);
	enum style style = a->confidence == CONFIDENCE_HIGH ? STYLE_RULE_OK :
		a->confidence == CONFIDENCE_MEDIUM ? STYLE_RULE_ATTENTION : STYLE_RULE_FAILED;
	int name_w = width_of(a, 32);
	size_t i;

	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_add(l, STYLE_HELP_GROUP, "%zu package%s changed", a->npackages, a->npackages == 1 ? "" : "s");
	if (a->bot)
		lines_add(l, STYLE_DEFAULT, ", by %s", a->bot);
	if (a->dependency_only)
		lines_add(l, STYLE_DEFAULT, "; the change is dependencies only");
	lines_row(l, -1);
	for (i = 0; i < a->npackages; i++)
		package_rows(l, &a->packages[i], name_w, width);
	for (i = 0; i < a->nproblems; i++)
		lines_wrap(l, STYLE_RULE_FAILED, a->problems[i], 2, width);
	for (i = 0; i < a->nclaims; i++)
		lines_wrap(l, STYLE_RULE_ATTENTION, a->claims[i], 2, width);
	lines_row(l, -1);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	if (tui->review.check && check_deps_pending(tui->review.check)) {
		lines_add(l, STYLE_RULE_RUNNING, "%s looking up advisories (the rules wait for them, 15 s at most)",
			  draw_spinner((long)(clock_us() / 1000)));
		return;
	}
	lines_add(l, STYLE_LABEL, "merge confidence: ");
	lines_add(l, style, "%s", deps_confidence_name(a->confidence));
	lines_add(l, STYLE_DEFAULT, " (%s)", or_dash(a->reason));
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	if (!tui->review.check)
		lines_add(l, STYLE_RULE_MUTED, "advisories are looked up when the diff is checked (c)");
	else if (depreview_error(dr))
		lines_add(l, STYLE_RULE_MUTED, "advisories: %s", depreview_error(dr));
	else
		lines_add(l, STYLE_RULE_MUTED, "advisories: %zu package%s looked up in OSV", depreview_checked(dr),
			  depreview_checked(dr) == 1 ? "" : "s");
}

static void deps_prepare(struct view *view)
{
	struct deps_view *dv = view->data;
	const struct depreview *dr = source(dv, view->tui);

	lines_clear(&dv->lines);
	lines_row(&dv->lines, -1);
	if (!dr) {
		lines_row(&dv->lines, -1);
		lines_add(&dv->lines, STYLE_RULE_FAILED, " Cannot read the manifests: %s", dv->error);
	} else if (!depreview_found(dr)) {
		lines_row(&dv->lines, -1);
		lines_add(&dv->lines, STYLE_EMPTY_TITLE, " No dependency changes: no manifest (package.json, go.mod, "
			  "Cargo.toml, requirements*.txt, pyproject.toml, Gemfile) changes a version.");
	} else {
		analysis_rows(&dv->lines, dr, view->tui, view->width);
	}
	view->lines = dv->lines.nrows;
}

static void deps_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct deps_view *)view->data)->lines, view, line, selected);
}

static void deps_title(struct view *view, struct buf *out)
{
	buf_printf(out, "Dependencies: %s  (q: close)", view->tui->target->description);
}

static void forget(struct deps_view *dv)
{
	depreview_free(dv->own);
	dv->own = NULL;
	dv->error[0] = '\0';
}

static bool deps_request(struct view *view, enum request request)
{
	struct deps_view *dv = view->data;

	switch (request) {
	case REQ_QUIT: case REQ_CANCEL: case REQ_DEPS: case REQ_BACK:
		forget(dv);
		tui_overlay(view->tui, NULL);
		return true;
	case REQ_HELP: case REQ_HISTORY: case REQ_STATS:
		forget(dv);
		return false;
	default:
		return false;
	}
}

static bool deps_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct deps_view *)view->data)->lines, line, needle, icase);
}

static int deps_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct deps_view));
	view->has_cursor = false;
	return view->data ? 0 : -1;
}

static void deps_free(struct view *view)
{
	struct deps_view *dv = view->data;

	if (dv) {
		forget(dv);
		lines_release(&dv->lines);
	}
	free(dv);
	view->data = NULL;
}

const struct view_ops deps_view_ops = {
	.name = "dependencies",
	.keys = "/ search|q close",
	.init = deps_init,
	.prepare = deps_prepare,
	.draw_line = deps_draw_line,
	.title = deps_title,
	.request = deps_request,
	.matches = deps_matches,
	.free = deps_free,
};
