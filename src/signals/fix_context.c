/*
 * What a fix is shown of the repository besides its own file: the
 * definitions its code uses that the repository has (a function's
 * signature and first lines), so that the fixed code calls them as they
 * are defined. They come from the repository index of the working tree
 * (index.h: the files git tracks, less what may never be read), found and
 * rendered as the check's context pack finds the definitions the changed
 * lines use (pack_definitions): the words of the edit window first, then
 * those of the lines the prompt shows around it, within revline.contextTokens.
 *
 * The index is built in the fix's poll group while the fix waits to ask,
 * at most FIX_CONTEXT_MS: past that it stops with what it has (the
 * definitions stored or tagged by then; the rest is kept for the next
 * time) and the fix is asked at once. Warm (the store has the blobs), the
 * index takes tens of milliseconds; cold, a repository of curl's size
 * takes 1-2 s. revline.context none sends none; without universal-ctags,
 * or with the index failing, there are none, and the note says why.
 */
#include "fix_internal.h"
#include "check.h"
#include "clock.h"
#include "index.h"
#include "patch.h"
#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The longest the fix waits for the index before it asks without the rest:
 * the index's own cold target (README "The repository index"), well under
 * what the model then takes to answer.
 */
#define FIX_CONTEXT_MS 3000

/* Nothing to send, and why (NULL: nothing to say). */
static int context_off(struct fix_context *x, const char *why)
{
	free(x->note);
	x->note = NULL;
	if (why && !(x->note = strdup(why)))
		return error_nomem();
	return 0;
}

static int index_begin(struct fix *fix, const struct check_options *settings)
{
	struct fix_context *x = &fix->context;
	const struct target side = { .side = SIDE_WORKDIR };
	struct index_options o = {
		.target = &side, .store = fix->opts.store,
		.ctags = settings->ctags[0] ? settings->ctags : NULL,
		.ignore_file = settings->ignore_file[0] ? settings->ignore_file : NULL,
		.deadline_ms = clock_ms() + FIX_CONTEXT_MS,
	};
	int error;

	if ((error = repo_open(&x->repo, fix->opts.workdir)) < 0)
		return error;
	o.repo = x->repo;
	if ((error = index_new(&x->index, &o)) < 0)
		return error;
	return index_start(x->index, fix->member.group);
}

int fix_context_begin(struct fix *fix)
{
	struct fix_context *x = &fix->context;
	struct check_options settings = { 0 };

	/* The settings a check reads: a bad one leaves the fix without definitions, saying which. */
	if (check_options_load(&settings, fix->opts.config) < 0)
		return error_status() == RL_ENOMEM ? RL_ENOMEM : context_off(x, error_message());
	if (settings.context == CONTEXT_NONE || settings.context_tokens <= 0)
		return context_off(x, NULL);
	x->budget = (size_t)settings.context_tokens * 4;
	if (index_begin(fix, &settings) < 0) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		index_free(x->index);
		x->index = NULL;
		return context_off(x, error_message());
	}
	return 0;
}

bool fix_context_waiting(const struct fix *fix)
{
	return fix->context.index && !index_done(fix->context.index);
}

void fix_context_cancel(struct fix *fix)
{
	if (fix->context.index)
		index_cancel(fix->context.index);
}

/* Lines first..last of the file, to words, when they are there. */
static int lines_put(struct buf *out, const struct fix *fix, int first, int last)
{
	size_t from, to;

	if (first > last || !patch_lines(&from, &to, fix->text.ptr, fix->text.len, first, last))
		return 0;
	if (buf_put(out, fix->text.ptr + from, to - from) < 0)
		return RL_ENOMEM;
	return buf_putc(out, '\n');
}

/*
 * What the prompt shows, its lines in the order their words count: the
 * edit window, the context before and after it, then the parts (the
 * imports, the enclosing function, ...); shown gets their ranges.
 */
static int shown_text(struct buf *out, struct pack_shown *shown, size_t *nshown, const struct fix *fix)
{
	const struct editwin *w = &fix->win;
	size_t i;
	int error;

	shown[0] = (struct pack_shown){ (uint32_t)w->context_first, (uint32_t)w->context_last };
	*nshown = 1;
	if ((error = lines_put(out, fix, w->first, w->last)) < 0 ||
	    (error = lines_put(out, fix, w->context_first, w->first - 1)) < 0 ||
	    (error = lines_put(out, fix, w->last + 1, w->context_last)) < 0)
		return error;
	for (i = 0; i < w->nparts && !error; i++) {
		shown[(*nshown)++] = (struct pack_shown){ (uint32_t)w->parts[i].first, (uint32_t)w->parts[i].last };
		error = lines_put(out, fix, w->parts[i].first, w->parts[i].last);
	}
	return error;
}

static int defs_list(struct fix_context *x)
{
	size_t i;

	if (!x->sent.count)
		return 0;
	if (!(x->defs = calloc(x->sent.count, sizeof(*x->defs))))
		return error_nomem();
	for (i = 0; i < x->sent.count; i++) {
		const struct pack_item *it = &x->pack.items[x->sent.items[i]];

		x->defs[i] = (struct fix_definition){ it->symbol, it->path, (int)it->first };
	}
	return 0;
}

/* The definitions found, out of the index. */
static int definitions_find(struct fix *fix)
{
	struct fix_context *x = &fix->context;
	struct pack_shown *shown = NULL;
	struct buf words = BUF_INIT;
	size_t nshown = 0;
	int error = 0;

	if (index_status(x->index) < 0)
		return context_off(x, index_message(x->index));
	if (index_note(x->index) && (error = context_off(x, index_note(x->index))) < 0)
		return error;
	if (!(shown = calloc(fix->win.nparts + 1, sizeof(*shown))))
		return error_nomem();
	if ((error = shown_text(&words, shown, &nshown, fix)) < 0 ||
	    (error = pack_definitions(&x->pack, x->index, fix->target.file, shown, nshown,
				      words.ptr ? words.ptr : "", words.len)) < 0 ||
	    (error = pack_definitions_text(&x->text, &x->sent, &x->pack, x->budget)) < 0)
		goto done;
	error = defs_list(x);
done:
	free(shown);
	buf_release(&words);
	return error;
}

/*
 * Only memory fails it: without the definitions the fix is asked all the
 * same. The index goes then (the definitions found own their strings): a
 * fix kept for the session does not keep the repository's.
 */
int fix_context_find(struct fix *fix)
{
	struct fix_context *x = &fix->context;
	int error;

	if (x->found || !x->index)
		return 0;
	x->found = true;
	error = definitions_find(fix);
	index_free(x->index);
	repo_free(x->repo);
	x->index = NULL;
	x->repo = NULL;
	return error;
}

void fix_context_release(struct fix_context *x)
{
	index_free(x->index);
	repo_free(x->repo);
	pack_release(&x->pack);
	pack_use_release(&x->sent);
	buf_release(&x->text);
	free(x->defs);
	free(x->note);
	memset(x, 0, sizeof(*x));
}

const struct fix_definition *fix_definitions(const struct fix *fix, size_t *count)
{
	*count = fix->context.sent.count;
	return fix->context.defs;
}

const char *fix_context_note(const struct fix *fix)
{
	return fix->context.note;
}
