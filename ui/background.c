/* Work on the diff in the loop's idle slices: counting lines, pairing renames. */
#include "background.h"
#include "clock.h"
#include "repo.h"
#include "status.h"
#include "tui.h"

#include <stdint.h>

/* Background counting of +/- lines, a few milliseconds at a time. */
bool background_count(void *ctx)
{
	struct tui *tui = ctx;
	int64_t start = clock_ms();

	while (tui->counted < tui->diff->nfiles) {
		diff_file_count(tui->diff, tui->counted++);
		if (clock_ms() - start >= 8)
			break;
	}
	tui->status_dirty = true;
	return tui->counted < tui->diff->nfiles;
}

/* The diff again, with the renames known so far, shown where the user was. */
static void renames_show(struct tui *tui)
{
	struct diff *diff = NULL;

	if (repo_diff_renamed(&diff, tui->diff) < 0) {
		tui_message(tui, true, "The renames cannot be shown: %s", error_message());
		return;
	}
	tui_diff_refresh(tui, diff);
}

/*
 * Rename pairing in the background, a few milliseconds at a time: the list
 * shows the identical-content renames after the first slice, the others
 * when all are known. A working tree's first list (repo_diff_quick) is
 * replaced by libgit2's in the first slice, which makes it whole.
 */
bool background_renames(void *ctx)
{
	struct tui *tui = ctx;
	bool exact;
	int rc;

	if (repo_diff_renames_done(tui->diff))
		return false;
	exact = repo_diff_renames_exact(tui->diff);
	if ((rc = repo_diff_renames_step(tui->diff, 8000)) < 0) {
		tui_message(tui, true, "Renames are not detected: %s", error_message());
		return false;
	}
	if (rc == 1 || (!exact && repo_diff_renames_exact(tui->diff)))
		renames_show(tui);
	return rc == 0;
}

void tui_renames_finish(struct tui *tui)
{
	int rc = 0;

	if (repo_diff_renames_done(tui->diff))
		return;
	while ((rc = repo_diff_renames_step(tui->diff, INT64_MAX / 4)) == 0)
		;
	if (rc < 0)
		tui_message(tui, true, "Renames are not detected: %s", error_message());
	else
		renames_show(tui);
}
