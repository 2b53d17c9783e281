/*
 * A fix another process proposed (an MCP client's other server, a command
 * before this one), read back from its stored row so that it can be
 * applied here: the window's bytes, where they are and the file's id when
 * the fix was asked for, and the proposed bytes; fix_apply refuses it when
 * the file changed since, as for a fix asked for in this process.
 */
#include "fix_internal.h"
#include "history.h"
#include "lint.h"
#include "signals.h"
#include "status.h"
#include "store_fixes.h"

#include <stdlib.h>
#include <string.h>

static int target_open(struct fix **out, const struct fix_options *options, const struct fix_stored *row,
		       int64_t id)
{
	struct signal signal;
	int error;

	if (row->finding_id)
		return fix_new_finding(out, options, row->finding_id);
	if (!row->signal_id)
		return error_set(RL_ENOTFOUND, "fix %lld: its signal is gone (a newer lint run replaced it): "
				 "ask for a fix again", (long long)id);
	if ((error = lint_signal(&signal, options->store, options->workdir, row->signal_id)) < 0)
		return error;
	error = fix_new_signal(out, options, &signal);
	signal_release(&signal);
	return error;
}

/* The stored window and answer, taken over: what fix_apply writes and checks. */
static int proposal_take(struct fix *fix, struct fix_stored *row, int64_t id, enum fix_state state)
{
	struct patch_snippet *sn = &fix->snippet;

	if (!(sn->path = strdup(row->file)))
		return error_nomem();
	sn->first = row->first;
	sn->last = row->last;
	sn->start = row->offset;
	sn->end = row->offset + row->before_len;
	sn->text = row->before;
	sn->len = row->before_len;
	row->before = NULL;
	memcpy(sn->file_id, row->file_id, sizeof(sn->file_id));
	if (buf_put(&fix->replacement, row->after, row->after_len) < 0)
		return error_nomem();
	snprintf(fix->window, sizeof(fix->window), "%s", row->window);
	fix->explanation = row->explanation;
	fix->preview = row->preview;
	row->explanation = row->preview = NULL;
	fix->id = id;
	fix->state = state;
	return 0;
}

int fix_open(struct fix **out, const struct fix_options *options, int64_t id)
{
	char *key = history_repo_key(options->workdir);
	struct fix_stored row;
	enum fix_state state;
	int error;

	*out = NULL;
	if (!key)
		return error_nomem();
	if ((error = store_fix_stored(&row, options->store, key, id)) < 0)
		goto done;
	state = fix_state_parse(row.state);
	if ((state != FIX_PROPOSED && state != FIX_REJECTED && state != FIX_UNDONE) || !row.after) {
		error = error_set(RL_EUSAGE, "fix %lld is %s: there is no proposal to apply", (long long)id, row.state);
		goto done;
	}
	if ((error = target_open(out, options, &row, id)) < 0 || (error = proposal_take(*out, &row, id, state)) < 0)
		goto done;
done:
	if (error < 0) {
		fix_free(*out);
		*out = NULL;
	}
	fix_stored_release(&row);
	free(key);
	return error;
}
