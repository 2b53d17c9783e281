/*
 * The ids shell completion offers (`revline completion --list KIND`): this
 * repository's findings, signals, detected fixes or applied fixes from the
 * database, each with a line that says what it is. Quiet by design: the
 * shell calls it on every Tab.
 */
#include "complete_ids.h"
#include "buf.h"
#include "config.h"
#include "fix.h"
#include "history.h"
#include "lint.h"
#include "repo.h"
#include "signals.h"
#include "status.h"
#include "store.h"
#include "term.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const names[] = { NULL, "findings", "signals", "fixes", "applied" };

/* A description's width: a shell's menu line, not a report. */
#define DESCRIPTION_MAX 100

const char *complete_ids_name(enum option_ids ids)
{
	return ids > IDS_NONE && ids <= IDS_APPLIED_FIX ? names[ids] : NULL;
}

bool complete_ids_parse(enum option_ids *out, const char *name)
{
	int i;

	for (i = IDS_FINDING; i <= IDS_APPLIED_FIX; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum option_ids)i;
			return true;
		}
	return false;
}

/*
 * One "ID<TAB>description" line. The description is the repository's text:
 * on one line (control characters, tabs and newlines as spaces), cut at a
 * character's start, then through term_write (what is left that could
 * drive a terminal shown, secrets redacted).
 */
static void line_out(FILE *out, int64_t id, struct buf *text)
{
	size_t i, len = text->len;

	for (i = 0; i < len; i++)
		if ((unsigned char)text->ptr[i] < 0x20 || text->ptr[i] == 0x7f)
			text->ptr[i] = ' ';
	if (len > DESCRIPTION_MAX) {
		len = DESCRIPTION_MAX;
		while (len && ((unsigned char)text->ptr[len] & 0xc0) == 0x80)
			len--;
	}
	fprintf(out, "%lld\t", (long long)id);
	term_write(out, text->ptr ? text->ptr : "", len);
	fputc('\n', out);
	buf_clear(text);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static void findings_out(FILE *out, struct store *store, const char *repo)
{
	struct history_finding *list = NULL;
	struct buf text = BUF_INIT;
	size_t i, count = 0;

	if (history_findings(&list, &count, store, repo, COMPLETE_IDS_MAX) < 0)
		return;
	for (i = 0; i < count; i++) {
		buf_printf(&text, "%s %s %s:%d %s", or_empty(list[i].severity), or_empty(list[i].rule_id),
			   or_empty(list[i].file), list[i].line, or_empty(list[i].title));
		line_out(out, list[i].id, &text);
	}
	buf_release(&text);
	history_findings_free(list, count);
}

static int newer_signal(const void *a, const void *b)
{
	int64_t x = ((const struct signal *)a)->id, y = ((const struct signal *)b)->id;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void signals_out(FILE *out, struct store *store, const char *repo)
{
	struct signal_list list;
	struct buf text = BUF_INIT;
	size_t i;

	if (lint_current(&list, store, repo) < 0)
		return;
	qsort(list.items, list.count, sizeof(*list.items), newer_signal);
	for (i = 0; i < list.count && i < COMPLETE_IDS_MAX; i++) {
		const struct signal *s = &list.items[i];

		buf_printf(&text, "%s %s %s:%d %s", or_empty(s->tool), or_empty(s->code), or_empty(s->file), s->line,
			   or_empty(s->message));
		line_out(out, s->id, &text);
	}
	buf_release(&text);
	signal_list_release(&list);
}

static void detected_out(FILE *out, struct store *store, const char *repo)
{
	struct history_fix *list = NULL;
	struct buf text = BUF_INIT;
	size_t i, count = 0;

	if (history_fixes(&list, &count, store, &(struct history_scope){ .path = repo }, NULL) < 0)
		return;
	for (i = 0; i < count && i < COMPLETE_IDS_MAX; i++) {
		buf_printf(&text, "%s %s %s", or_empty(list[i].rule_id), or_empty(list[i].fix_type),
			   or_empty(list[i].explanation));
		line_out(out, list[i].id, &text);
	}
	buf_release(&text);
	history_fixes_free(list, count);
}

static void applied_out(FILE *out, struct store *store, const char *workdir)
{
	struct fix_record *list = NULL;
	struct buf text = BUF_INIT;
	size_t i, count = 0;

	if (fix_applied(&list, &count, store, workdir) < 0)
		return;
	for (i = 0; i < count && i < COMPLETE_IDS_MAX; i++) {
		buf_printf(&text, "%s:%d-%d %s %s %s", or_empty(list[i].file), list[i].first, list[i].last,
			   list[i].tool ? list[i].tool : "finding", or_empty(list[i].code), or_empty(list[i].message));
		line_out(out, list[i].id, &text);
	}
	buf_release(&text);
	fix_records_free(list, count);
}

/* The database, when there is one: a completion never creates it. */
static int store_of(struct store **store, struct repo *repo, struct config **config)
{
	struct buf path = BUF_INIT;
	int error;

	*store = NULL;
	if ((error = config_open(config, repo)) == 0 && (error = store_default_path(&path, *config)) == 0)
		error = access(path.ptr, F_OK) ? -1 : store_open(store, path.ptr);
	buf_release(&path);
	return error;
}

void complete_ids_print(FILE *out, enum option_ids ids)
{
	struct repo *repo = NULL;
	struct config *config = NULL;
	struct store *store = NULL;
	char *key = NULL;

	if (repo_open(&repo, NULL) < 0 || store_of(&store, repo, &config) < 0 ||
	    !(key = history_repo_key(repo->workdir ? repo->workdir : repo->gitdir)))
		goto done;
	switch (ids) {
	case IDS_FINDING:
		findings_out(out, store, key);
		break;
	case IDS_DETECTED_FIX:
		detected_out(out, store, key);
		break;
	/* Signals and applied fixes are a working tree's. */
	case IDS_SIGNAL:
		if (repo->workdir)
			signals_out(out, store, key);
		break;
	case IDS_APPLIED_FIX:
		if (repo->workdir)
			applied_out(out, store, key);
		break;
	case IDS_NONE:
		break;
	}
done:
	error_clear();
	free(key);
	store_close(store);
	config_free(config);
	repo_free(repo);
}
