/*
 * The terminal UI's top: the screen opened, the views and the modules set
 * up, the loop's sources added (the terminal, background work on the diff,
 * the watcher, the review's and the fixes' own), and the loop run, with
 * keys from the terminal or from a script.
 */
#include "tui.h"
#include "app.h"
#include "background.h"
#include "config.h"
#include "screen.h"
#include "script.h"
#include "status.h"
#include "watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct view_ops *const view_ops[] = {
#define VIEW_OPS_ENTRY(id, ops) &ops,
	VIEW_LIST(VIEW_OPS_ENTRY)
#undef VIEW_OPS_ENTRY
};

static int input_fds(void *ctx, struct pollfd *out, int max)
{
	(void)ctx;
	if (max < 1)
		return 0;
	out->fd = STDIN_FILENO;
	out->events = POLLIN;
	return 1;
}

static void input_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct tui *tui = ctx;
	int key;

	(void)fds;
	(void)n;
	/* Read every key that is waiting, then draw once. */
	while (!tui->quit && screen_read_key(tui, &key))
		if (key >= 0)
			tui_key(tui, key);
}

/* The diff was made again: the watcher looks at its files from now on. */
static void watch_follow(struct tui *tui)
{
	watch_reset(tui->watch);
}

/* The theme: --theme, REVLINE_THEME, git config revline.theme, default-dark; NO_COLOR wins. */
static void theme_choose(struct tui *tui, const struct tui_options *options)
{
	const char *no_color = getenv("NO_COLOR");
	struct config *config = NULL;
	struct buf errors = BUF_INIT;
	char *name = NULL;

	if (no_color && *no_color) {
		theme_mono(&tui->theme);
	} else {
		if (options && options->theme)
			name = strdup(options->theme);
		else if (config_open(&config, tui->repo) == 0)
			config_get(&name, config, "revline.theme");
		theme_load(&tui->theme, name ? name : "default-dark", &errors);
		if (!has_colors())
			tui->theme.mono = true;
	}
	if (!tui->theme.mono) {
		start_color();
		use_default_colors();
	}
	theme_apply(&tui->theme);
	if (errors.len) {
		char *nl = memchr(errors.ptr, '\n', errors.len);

		tui_message(tui, true, "%.*s%s", nl ? (int)(nl - errors.ptr) : (int)errors.len,
			    errors.ptr, nl && (size_t)(nl - errors.ptr) + 1 < errors.len ? " (and more)" : "");
	}
	buf_release(&errors);
	free(name);
	config_free(config);
}

/* What the repository's .revline may not do until trusted: said where the user looks. */
static void revline_note(struct tui *tui)
{
	struct config *config = NULL;
	struct buf note = BUF_INIT;

	if (config_open(&config, tui->repo) == 0 && config_revline_note(&note, config) == 0 && note.len)
		tui_message(tui, true, "%s", note.ptr);
	buf_release(&note);
	config_free(config);
	error_clear();
}

static int views_init(struct tui *tui)
{
	int i;

	for (i = 0; i < VIEW_COUNT; i++) {
		tui->views[i].ops = view_ops[i];
		tui->views[i].tui = tui;
		tui->views[i].dirty = true;
		if (view_ops[i]->init && view_ops[i]->init(&tui->views[i]) < 0)
			return error_nomem();
	}
	return 0;
}

static void run_loop(struct tui *tui)
{
	while (!tui->quit) {
		tui_draw(tui);
		if (tui->script) {
			loop_drain(&tui->loop);
			tui_draw(tui);
			if (!script_step(tui->script, tui))
				break;
			continue;
		}
		loop_step(&tui->loop, -1);
	}
}

int tui_run(struct repo *repo, struct target *target, struct diff *diff,
	    struct tui_options *options)
{
	struct tui tui = { .repo = repo, .target = target, .diff = diff, .diff_changed = watch_follow,
			   .untracked = -1 };
	const struct loop_source input = { input_fds, NULL, input_dispatch, NULL, &tui, false };
	const struct loop_source counter = { NULL, NULL, NULL, background_count, &tui, false };
	const struct loop_source renamer = { NULL, NULL, NULL, background_renames, &tui, false };
	const char *script_path = getenv("REVLINE_SCRIPT");
	int rc = 0, i;

	if (script_path && *script_path && script_load(&tui.script, script_path) < 0) {
		fprintf(stderr, "revline: %s\n", error_message());
		return 2;
	}
	if (!tui.script && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "revline: the terminal UI needs a terminal; "
			"use 'revline diff' or 'revline check' in scripts\n");
		script_free(tui.script);
		return 2;
	}
	if (screen_open(tui.script != NULL) < 0 || views_init(&tui) < 0) {
		for (i = 0; i < VIEW_COUNT; i++)
			view_release(&tui.views[i]);
		screen_close(&tui);
		fprintf(stderr, "revline: %s\n", error_message());
		buf_release(&tui.prompt);
		script_free(tui.script);
		return 2;
	}
	/* The UI's own reference: a diff made again replaces it (state.c), the caller's stays. */
	diff_dup(tui.diff);
	theme_choose(&tui, options);
	revline_note(&tui);
	review_init(&tui.review, &tui);
	fixes_init(&tui.fixes, &tui);
	tui_set_focus(&tui, &tui.views[VIEW_FILES]);
	tui_untracked_count(&tui);
	tui_layout(&tui);
	if (!tui.script)
		tui.input = loop_add(&tui.loop, &input);
	/* Before the renames and the counting: its idle slice (the watches) comes first. */
	if (watch_new(&tui.watch, &tui) == 0) {
		struct loop_source watcher = watch_source(tui.watch);

		loop_add(&tui.loop, &watcher);
	}
	tui.renamer = loop_add(&tui.loop, &renamer);
	loop_wake(tui.renamer);
	tui.counter = loop_add(&tui.loop, &counter);
	loop_wake(tui.counter);
	if (options && options->check)
		tui_renames_finish(&tui);
	if (options && options->check && review_start(&tui.review) == 0)
		tui_layout(&tui);
	run_loop(&tui);
	rc = tui.exit_status;
	if (options)
		options->fixes_left = review_fixes_unfinished(&tui.review);
	if (getenv("REVLINE_LOOP_STATS") && *getenv("REVLINE_LOOP_STATS"))
		review_stats_write(&tui.review, getenv("REVLINE_LOOP_STATS"));
	/* Fixes first: a fix cancelled on the way out is stored as such. */
	fixes_release(&tui.fixes);
	review_release(&tui.review);
	watch_free(tui.watch);
	loop_release(&tui.loop);
	diff_free(tui.diff);
	/* Windows go before the screen that owns them. */
	for (i = 0; i < VIEW_COUNT; i++)
		view_release(&tui.views[i]);
	screen_close(&tui);
	buf_release(&tui.prompt);
	script_free(tui.script);
	return rc;
}
