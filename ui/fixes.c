/* Signals and fixes in the terminal UI: the engine's lint and fix driven from the UI's loop. */
#include "fixes.h"
#include "array.h"
#include "clock.h"
#include "config.h"
#include "diff.h"
#include "draw.h"
#include "finding.h"
#include "lint.h"
#include "patch.h"
#include "repo.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPINNER_MS 100
/*
 * The fixes of the session that are over (failed, rejected, undone) kept
 * for the fix pane (a applies an undone one again); older ones go as new
 * ones are asked for, so that a day of fixes does not keep every file they
 * read. The store keeps them all (U lists the applied ones).
 */
#define SETTLED_KEPT 4

static void dirty_panes(struct tui *tui)
{
	view_dirty(&tui->views[VIEW_SIGNALS]);
	view_dirty(&tui->views[VIEW_FIX]);
	view_dirty(&tui->views[VIEW_DIFF]);
	tui->status_dirty = true;
}

static struct store *store_of(struct fixes *fx)
{
	return fx->tui->review.store;
}

static const char *workdir_of(struct fixes *fx)
{
	return fx->tui->repo->workdir;
}

/* --- the signals ---------------------------------------------------------- */

void fixes_refilter(struct fixes *fx)
{
	size_t i;

	fx->nshown = 0;
	/* Only for the pane: finding the changed lines reads the files. */
	for (i = 0; fx->pane && fx->shown && i < fx->signals.count; i++) {
		const struct signal *s = &fx->signals.items[i];

		if (fx->show_all || diff_line_added(fx->tui->diff, s->file, s->line))
			fx->shown[fx->nshown++] = i;
	}
	dirty_panes(fx->tui);
}

void fixes_reload(struct fixes *fx)
{
	struct signal_list list = { 0 };
	size_t i, n;

	if (!store_of(fx) || !workdir_of(fx))
		return;
	if (lint_current(&list, store_of(fx), workdir_of(fx)) < 0) {
		tui_message(fx->tui, true, "Cannot read the signals: %s", error_message());
		return;
	}
	n = list.count ? list.count : 1;
	free(fx->stored);
	free(fx->shown);
	fx->stored = calloc(n, sizeof(*fx->stored));
	fx->shown = calloc(n, sizeof(*fx->shown));
	signal_list_release(&fx->signals);
	fx->signals = list;
	if (!fx->stored || !fx->shown) {
		signal_list_release(&fx->signals);
		memset(&fx->signals, 0, sizeof(fx->signals));
		tui_message(fx->tui, true, "Cannot read the signals: out of memory");
	}
	for (i = 0; i < fx->signals.count; i++)
		if (fix_latest(&fx->stored[i], store_of(fx), fx->signals.items[i].id, 0) < 0)
			memset(&fx->stored[i], 0, sizeof(fx->stored[i]));
	fixes_refilter(fx);
}

const struct fix_summary *fixes_stored(const struct fixes *fx, size_t index)
{
	return fx->stored && index < fx->signals.count ? &fx->stored[index] : NULL;
}

/* The first signal at or after (path, line): the list is sorted by file, then line. */
static size_t signal_lower_bound(const struct signal_list *list, const char *path, int line)
{
	size_t lo = 0, hi = list->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct signal *s = &list->items[mid];
		int c = strcmp(s->file, path);

		if (c < 0 || (c == 0 && s->line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool fixes_signal_at(const struct fixes *fx, const char *path, int line)
{
	size_t i = signal_lower_bound(&fx->signals, path, line);

	return i < fx->signals.count && fx->signals.items[i].line == line &&
		!strcmp(fx->signals.items[i].file, path);
}

/* --- the linters ---------------------------------------------------------- */

static void lint_finish(struct fixes *fx)
{
	struct buf said = BUF_INIT;
	size_t i, found = 0;
	bool failed = false;
	int64_t run;

	for (i = 0; i < lint_count(fx->lint); i++) {
		const struct lint_result *r = lint_result(fx->lint, i);

		if (r->status == LINT_DONE) {
			if (lint_store(&run, store_of(fx), workdir_of(fx), linter_name(r->linter), "run",
				       r->command, (struct signal_list *)&r->signals) < 0) {
				buf_printf(&said, "; %s: %s", linter_name(r->linter), error_message());
				failed = true;
				continue;
			}
			found += r->signals.count;
			buf_printf(&said, "; %s %zu", linter_name(r->linter), r->signals.count);
		} else if (r->status == LINT_FAILED || r->status == LINT_TIMEOUT) {
			buf_printf(&said, "; %s failed: %s", linter_name(r->linter),
				   r->message ? r->message : "no readable output");
			failed = true;
		}
	}
	if (!said.len)
		tui_message(fx->tui, true, "No linter ran: none installed is for these files "
			    "(revline doctor lists them)");
	else
		tui_message(fx->tui, failed, "Linters: %zu signal%s%s", found, found == 1 ? "" : "s",
			    said.ptr);
	buf_release(&said);
	lint_free(fx->lint);
	fx->lint = NULL;
	fixes_reload(fx);
}

bool fixes_linting(const struct fixes *fx)
{
	return fx->lint != NULL;
}

/* --- the loop ------------------------------------------------------------- */

static bool entry_busy(const struct fixes_entry *e)
{
	return fix_busy(e->fix);
}

bool fixes_busy(const struct fixes *fx)
{
	size_t i;

	for (i = 0; i < fx->nentries; i++)
		if (entry_busy(&fx->entries[i]))
			return true;
	return false;
}

static int source_timeout(void *ctx)
{
	struct fixes *fx = ctx;
	int t = -1;
	size_t i;

	/* The spinners and the elapsed seconds. */
	if (fx->lint)
		t = SPINNER_MS;
	for (i = 0; i < fx->nentries; i++)
		if (entry_busy(&fx->entries[i]))
			t = SPINNER_MS;
	return t;
}

/* What the status bar says when a fix moves on. */
static void entry_say(struct fixes *fx, struct fixes_entry *e)
{
	struct fix *fix = e->fix;
	enum fix_state state = fix_state(fix);
	enum fix_recheck recheck = fix_recheck(fix);

	if (state == e->seen && recheck == e->seen_recheck)
		return;
	if (state == FIX_PROPOSED && e->seen == FIX_ASKING)
		tui_message(fx->tui, false, "Fix %lld proposed for %s: a applies it, x rejects it",
			    (long long)fix_id(fix), fix_file(fix));
	else if (state == FIX_FAILED && e->seen == FIX_ASKING)
		tui_message(fx->tui, true, "Fix %lld failed: %s (Enter asks again)", (long long)fix_id(fix),
			    fix_error(fix) ? fix_error(fix) : "no answer");
	else if (state == FIX_APPLIED && recheck >= RECHECK_GONE && e->seen_recheck == RECHECK_RUNNING)
		tui_message(fx->tui, recheck == RECHECK_STILL || recheck == RECHECK_NEW,
			    "Fix %lld applied: %s (u undoes it)",
			    (long long)fix_id(fix), fix_recheck_detail(fix) ? fix_recheck_detail(fix) :
			    fix_recheck_name(recheck));
	e->seen = state;
	e->seen_recheck = recheck;
}

static void source_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct fixes *fx = ctx;
	size_t i;

	(void)fds;
	(void)n;
	if (fx->lint && lint_done(fx->lint))
		lint_finish(fx);
	for (i = 0; i < fx->nentries; i++)
		entry_say(fx, &fx->entries[i]);
	/* The spinners and the elapsed seconds. */
	dirty_panes(fx->tui);
}

static void source_add(struct fixes *fx)
{
	const struct loop_source source = { NULL, source_timeout, source_dispatch, NULL, fx, false };

	if (!fx->source)
		fx->source = loop_add(&fx->tui->loop, &source);
}

int fixes_lint(struct fixes *fx, const char *only)
{
	char **files = NULL;
	size_t nfiles = 0;
	int error = 0;

	if (fx->lint) {
		tui_message(fx->tui, true, "The linters are running already (Esc stops them)");
		return RL_EUSAGE;
	}
	if (!store_of(fx) || !workdir_of(fx)) {
		tui_message(fx->tui, true, "Cannot run the linters: %s", fx->tui->review.error[0] ?
			    fx->tui->review.error : "no working tree");
		return RL_ECONFIG;
	}
	if ((error = diff_text_files(&files, &nfiles, fx->tui->diff)) < 0 ||
	    (error = lint_new(&fx->lint, workdir_of(fx), fx->tui->review.config,
			      (const char *const *)files, nfiles, only)) < 0 ||
	    (error = lint_start(fx->lint, &fx->tui->loop.group)) < 0) {
		tui_message(fx->tui, true, "Cannot run the linters: %s", error_message());
		lint_free(fx->lint);
		fx->lint = NULL;
		goto done;
	}
	fx->lint_started_us = clock_us();
	source_add(fx);
	tui_message(fx->tui, false, "Running the linters on %zu file%s", nfiles, nfiles == 1 ? "" : "s");
	if (lint_done(fx->lint))
		lint_finish(fx);
	dirty_panes(fx->tui);
done:
	diff_free_paths(files, nfiles);
	return error;
}

void fixes_cancel(struct fixes *fx)
{
	size_t i;

	if (fx->lint) {
		lint_cancel(fx->lint);
		lint_finish(fx);
	}
	for (i = 0; i < fx->nentries; i++)
		if (fix_state(fx->entries[i].fix) == FIX_ASKING) {
			fix_cancel(fx->entries[i].fix);
			fx->entries[i].seen = FIX_FAILED;
			tui_message(fx->tui, false, "Fix %lld cancelled", (long long)fix_id(fx->entries[i].fix));
		}
	dirty_panes(fx->tui);
}

/* --- asking --------------------------------------------------------------- */

struct fixes_entry *fixes_entry_of(struct fixes *fx, int64_t signal, int64_t finding)
{
	size_t i;

	for (i = fx->nentries; i > 0; i--) {
		struct fixes_entry *e = &fx->entries[i - 1];

		if ((signal && e->signal == signal) || (finding && e->finding == finding))
			return e;
	}
	return NULL;
}

static int options_fill(struct fixes *fx, struct fix_options *opts)
{
	struct review *r = &fx->tui->review;

	memset(opts, 0, sizeof(*opts));
	if (!r->store)
		return error_set(RL_ECONFIG, "%s", r->error[0] ? r->error : "no database");
	if (!workdir_of(fx))
		return error_set(RL_EUSAGE, "the repository has no working tree to fix");
	opts->workdir = workdir_of(fx);
	opts->group = &fx->tui->loop.group;
	opts->store = r->store;
	opts->llm = &r->llm;
	opts->config = r->config;
	if (asker_options_load(&opts->ask, r->config) < 0)
		return error_status();
	return sched_options_load(&opts->sched, r->config);
}

static bool entry_settled(const struct fixes_entry *e)
{
	enum fix_state state = fix_state(e->fix);

	return !fix_busy(e->fix) && (state == FIX_FAILED || state == FIX_REJECTED || state == FIX_UNDONE);
}

/* The oldest fixes that are over go while more than SETTLED_KEPT are. */
static void entries_prune(struct fixes *fx)
{
	size_t i, kept = 0, settled = 0;

	for (i = 0; i < fx->nentries; i++)
		settled += entry_settled(&fx->entries[i]);
	for (i = 0; i < fx->nentries; i++) {
		if (settled > SETTLED_KEPT && entry_settled(&fx->entries[i])) {
			fix_free(fx->entries[i].fix);
			settled--;
			continue;
		}
		fx->entries[kept++] = fx->entries[i];
	}
	fx->nentries = kept;
}

/* A new entry for a fix made by fix_new_*, started; the fix is freed when it cannot start. */
static int entry_start(struct fixes *fx, struct fix *fix, int64_t signal, int64_t finding)
{
	struct fixes_entry *e;
	int error;

	entries_prune(fx);
	if ((error = fix_start(fix)) < 0) {
		fix_free(fix);
		return error;
	}
	if ((error = ARRAY_GROW(fx->entries, fx->entries_alloc, fx->nentries + 1)) < 0) {
		fix_free(fix);
		return error;
	}
	e = &fx->entries[fx->nentries++];
	memset(e, 0, sizeof(*e));
	e->signal = signal;
	e->finding = finding;
	e->fix = fix;
	e->started_us = clock_us();
	e->seen = fix_state(fix);
	e->seen_recheck = fix_recheck(fix);
	source_add(fx);
	tui_message(fx->tui, false, "Asking for a fix of %s (%s)", fix_file(fix), fix_window(fix));
	entry_say(fx, e);
	dirty_panes(fx->tui);
	return 0;
}

/* An entry of the same subject still asking is not asked again. */
static bool asking_already(struct fixes *fx, struct fixes_entry *e)
{
	if (!e || fix_state(e->fix) != FIX_ASKING)
		return false;
	tui_message(fx->tui, false, "Fix %lld is still being asked for (Esc stops it)", (long long)fix_id(e->fix));
	return true;
}

int fixes_ask_signal(struct fixes *fx, const struct signal *signal)
{
	struct fix_options opts;
	struct fix *fix = NULL;
	int error;

	if (asking_already(fx, fixes_entry_of(fx, signal->id, 0)))
		return 0;
	if ((error = options_fill(fx, &opts)) < 0 || (error = fix_new_signal(&fix, &opts, signal)) < 0 ||
	    (error = entry_start(fx, fix, signal->id, 0)) < 0)
		tui_message(fx->tui, true, "Cannot ask for a fix: %s", error_message());
	return error;
}

int fixes_ask_finding(struct fixes *fx, const struct finding *finding)
{
	struct fix_options opts;
	struct fix *fix = NULL;
	int error;

	if (!finding->id) {
		tui_message(fx->tui, true, "This finding is not stored, so it cannot be fixed");
		return RL_EUSAGE;
	}
	if (asking_already(fx, fixes_entry_of(fx, 0, finding->id)))
		return 0;
	if ((error = options_fill(fx, &opts)) < 0 || (error = fix_new_finding(&fix, &opts, finding->id)) < 0 ||
	    (error = entry_start(fx, fix, 0, finding->id)) < 0)
		tui_message(fx->tui, true, "Cannot ask for a fix: %s", error_message());
	return error;
}

/* --- apply, reject, undo -------------------------------------------------- */

/* The stored fix rows changed: the signals pane shows their states. */
static void stored_refresh(struct fixes *fx)
{
	size_t i;

	for (i = 0; fx->stored && i < fx->signals.count; i++)
		if (fix_latest(&fx->stored[i], store_of(fx), fx->signals.items[i].id, 0) < 0)
			memset(&fx->stored[i], 0, sizeof(fx->stored[i]));
}

/* The file changed on disk: the diff pane shows it as it is now, at the fixed lines. */
static void file_changed(struct fixes *fx, const struct fix *fix)
{
	const struct patch_snippet *s = fix_snippet(fix);

	tui_diff_reload(fx->tui, fix_file(fix), s ? s->first : 1);
	fixes_refilter(fx);
	stored_refresh(fx);
}

int fixes_apply(struct fixes *fx, struct fixes_entry *e)
{
	int error;

	if (!e) {
		tui_message(fx->tui, true, "No fix here to apply: Enter asks for one");
		return RL_EUSAGE;
	}
	if ((error = fix_apply(e->fix)) < 0) {
		if (error == RL_ECONFLICT)
			tui_message(fx->tui, true, "Not applied: %s (Enter asks again)", error_message());
		else
			tui_message(fx->tui, true, "Not applied: %s", error_message());
		dirty_panes(fx->tui);
		return error;
	}
	e->started_us = clock_us();
	e->seen = FIX_APPLIED;
	e->seen_recheck = fix_recheck(e->fix);
	if (fix_recheck(e->fix) == RECHECK_RUNNING)
		tui_message(fx->tui, false, "Fix %lld applied to %s; the linter looks again (u undoes it)",
			    (long long)fix_id(e->fix), fix_file(e->fix));
	else
		tui_message(fx->tui, false, "Fix %lld applied to %s (u undoes it)", (long long)fix_id(e->fix),
			    fix_file(e->fix));
	file_changed(fx, e->fix);
	return 0;
}

int fixes_reject(struct fixes *fx, struct fixes_entry *e)
{
	int error;

	if (!e) {
		tui_message(fx->tui, true, "No fix here to reject");
		return RL_EUSAGE;
	}
	if ((error = fix_reject(e->fix)) < 0) {
		tui_message(fx->tui, true, "%s", error_message());
		return error;
	}
	e->seen = FIX_REJECTED;
	tui_message(fx->tui, false, "Fix %lld rejected (%s asks for another)", (long long)fix_id(e->fix),
		    e->finding ? "F" : "Enter");
	stored_refresh(fx);
	dirty_panes(fx->tui);
	return 0;
}

/*
 * This session's fix applied last and still applied, or NULL: what u
 * undoes when the fix shown is not applied (the fixed signal may have
 * left the list, and the cursor with it). An apply sets started_us.
 */
static struct fixes_entry *last_applied(struct fixes *fx)
{
	struct fixes_entry *last = NULL;
	size_t i;

	for (i = 0; i < fx->nentries; i++)
		if (fix_state(fx->entries[i].fix) == FIX_APPLIED &&
		    (!last || fx->entries[i].started_us >= last->started_us))
			last = &fx->entries[i];
	return last;
}

int fixes_undo(struct fixes *fx, struct fixes_entry *e)
{
	int error;

	if ((!e || fix_state(e->fix) != FIX_APPLIED) && last_applied(fx))
		e = last_applied(fx);
	if (!e) {
		tui_message(fx->tui, true, "No applied fix to undo here: s shows the signals and their fixes");
		return RL_EUSAGE;
	}
	if ((error = fix_undo(e->fix)) < 0) {
		tui_message(fx->tui, true, "Not undone: %s", error_message());
		return error;
	}
	e->seen = FIX_UNDONE;
	e->seen_recheck = fix_recheck(e->fix);
	tui_message(fx->tui, false, "Fix %lld undone: %s is as it was (a applies it again)",
		    (long long)fix_id(e->fix), fix_file(e->fix));
	file_changed(fx, e->fix);
	return 0;
}

int fixes_undo_stored(struct fixes *fx, int64_t fix_id)
{
	int64_t undone = 0;
	int error;

	if (!store_of(fx) || !workdir_of(fx))
		return RL_ECONFIG;
	if ((error = fix_undo_stored(&undone, store_of(fx), workdir_of(fx), fix_id)) < 0) {
		tui_message(fx->tui, true, "Not undone: %s", error_message());
		return error;
	}
	tui_message(fx->tui, false, "Fix %lld undone", (long long)undone);
	tui_diff_reload(fx->tui, NULL, 0);
	fixes_refilter(fx);
	stored_refresh(fx);
	return 0;
}

int fixes_undo_id(struct fixes *fx, int64_t id)
{
	size_t i;

	for (i = 0; i < fx->nentries; i++)
		if (fix_id(fx->entries[i].fix) == id && fix_state(fx->entries[i].fix) == FIX_APPLIED)
			return fixes_undo(fx, &fx->entries[i]);
	return fixes_undo_stored(fx, id);
}

int fixes_applied(struct fixes *fx, struct fix_record **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	if (!store_of(fx) || !workdir_of(fx))
		return error_set(RL_ECONFIG, "no database: the applied fixes are kept there");
	return fix_applied(out, count, store_of(fx), workdir_of(fx));
}

/* --- setup ---------------------------------------------------------------- */

int fixes_init(struct fixes *fx, struct tui *tui)
{
	memset(fx, 0, sizeof(*fx));
	fx->tui = tui;
	fixes_reload(fx);
	return 0;
}

void fixes_release(struct fixes *fx)
{
	size_t i;

	if (fx->lint)
		lint_cancel(fx->lint);
	lint_free(fx->lint);
	for (i = 0; i < fx->nentries; i++) {
		if (fix_busy(fx->entries[i].fix))
			fix_cancel(fx->entries[i].fix);
		fix_free(fx->entries[i].fix);
	}
	free(fx->entries);
	signal_list_release(&fx->signals);
	free(fx->stored);
	free(fx->shown);
	memset(fx, 0, sizeof(*fx));
}

/* --- what the panes say of a fix ------------------------------------------ */

static const char *recheck_label(enum fix_recheck recheck, enum style *style)
{
	switch (recheck) {
	case RECHECK_GONE: *style = STYLE_RULE_OK; return "fixed";
	case RECHECK_NEW: *style = STYLE_RULE_ATTENTION; return "fixed, new";
	case RECHECK_STILL: *style = STYLE_RULE_FAILED; return "still there";
	default: *style = STYLE_RULE_OK; return "applied";
	}
}

const char *fixes_label(char *out, size_t size, const struct fixes_entry *e,
			const struct fix_summary *stored, enum style *style)
{
	long ms = e ? (long)((clock_us() - e->started_us) / 1000) : 0;
	enum fix_state state = e ? fix_state(e->fix) : stored && stored->id ? stored->state : FIX_FAILED;
	enum fix_recheck recheck = e ? fix_recheck(e->fix) : stored ? stored->recheck : RECHECK_NONE;

	*style = STYLE_DEFAULT;
	if (!e && (!stored || !stored->id))
		return strcpy(out, "");
	switch (state) {
	case FIX_ASKING:
		*style = STYLE_RULE_RUNNING;
		snprintf(out, size, "%s asking %lds", draw_spinner(ms), ms / 1000);
		break;
	case FIX_PROPOSED:
		*style = e && fix_error(e->fix) ? STYLE_RULE_FAILED : STYLE_RULE_ATTENTION;
		snprintf(out, size, e && fix_error(e->fix) ? "conflict" : "proposed");
		break;
	case FIX_FAILED:
		*style = STYLE_RULE_FAILED;
		snprintf(out, size, "failed");
		break;
	case FIX_APPLIED:
		if (recheck == RECHECK_RUNNING) {
			*style = STYLE_RULE_RUNNING;
			snprintf(out, size, "%s checking", draw_spinner(ms));
		} else {
			snprintf(out, size, "%s", recheck_label(recheck, style));
		}
		break;
	case FIX_REJECTED:
		*style = STYLE_RULE_MUTED;
		snprintf(out, size, "rejected");
		break;
	case FIX_UNDONE:
		*style = STYLE_RULE_MUTED;
		snprintf(out, size, "undone");
		break;
	}
	return out;
}
