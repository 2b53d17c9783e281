/*
 * A finding's proposed fix as a report's suggestion: the fix asked for the
 * finding (or for the same finding in an earlier check) and not applied,
 * while the file is as it was when it was asked for.
 */
#include "fix.h"
#include "history.h"
#include "patch.h"
#include "status.h"
#include "store_fixes.h"

#include <stdlib.h>
#include <string.h>

void fix_suggestion_release(struct fix_suggestion *suggestion)
{
	buf_release(&suggestion->text);
	suggestion->first = suggestion->last = 0;
}

/* The proposed bytes without the last line's end: the lines a suggestion shows. */
static int text_of(struct buf *out, const char *after, size_t len)
{
	if (len && after[len - 1] == '\n' && --len && after[len - 1] == '\r')
		len--;
	return buf_put(out, after, len);
}

int fix_suggestion_find(struct fix_suggestion *out, struct store *store, const char *workdir, int64_t finding_id)
{
	struct patch_undo undo = { 0 };
	enum patch_side side = PATCH_NEITHER;
	char *key = history_repo_key(workdir);
	int error;

	memset(out, 0, sizeof(*out));
	if (!key)
		return error_nomem();
	if ((error = store_fix_proposal(&undo, &out->first, &out->last, store, key, finding_id)) < 0)
		goto done;
	/* A file that cannot be read, or changed since, has no suggestion. */
	if (patch_side(&side, workdir, &undo) < 0 || side != PATCH_BEFORE) {
		error_clear();
		error = RL_ENOTFOUND;
		goto done;
	}
	error = text_of(&out->text, undo.after, undo.after_len);
done:
	if (error < 0)
		fix_suggestion_release(out);
	patch_undo_release(&undo);
	free(key);
	return error;
}
