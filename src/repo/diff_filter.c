/* A diff of some of a diff's files: listed, or matched by glob patterns. */
#include "diff.h"
#include "glob.h"
#include "status.h"

#include <string.h>

/*
 * A filtered diff is made by printing the chosen files and parsing the
 * text: the copy is exact and owns its memory, and only the chosen files
 * are loaded.
 */
static int filter_by(struct diff **out, struct diff *diff,
		     bool (*keep)(const struct diff_file *file, const void *arg), const void *arg)
{
	struct buf text = BUF_INIT;
	size_t i;
	int error = 0;

	*out = NULL;
	for (i = 0; i < diff->nfiles && !error; i++)
		if (keep(&diff->files[i], arg))
			error = diff_file_print(&text, diff, i);
	if (!error)
		error = diff_from_text(out, text.ptr ? text.ptr : "", text.len);
	buf_release(&text);
	return error;
}

struct path_list {
	const char *const *items;
	size_t count;
};

static bool keep_listed(const struct diff_file *file, const void *arg)
{
	const struct path_list *list = arg;
	size_t i;

	for (i = 0; i < list->count; i++)
		if (!strcmp(list->items[i], file->path) || !strcmp(list->items[i], file->old_path))
			return true;
	return false;
}

static bool keep_matched(const struct diff_file *file, const void *arg)
{
	const struct glob_list *list = arg;

	return glob_list_matches(list, file->path) ||
		(file->old_path != file->path && glob_list_matches(list, file->old_path));
}

int diff_filter_files(struct diff **out, struct diff *diff,
		      const char *const *paths, size_t count)
{
	struct path_list list = { paths, count };

	return filter_by(out, diff, keep_listed, &list);
}

int diff_filter_patterns(struct diff **out, struct diff *diff,
			 const char *const *patterns, size_t count)
{
	struct glob_list *list;
	int error;

	*out = NULL;
	if ((error = glob_list_new(&list, patterns, count)) < 0)
		return error;
	error = filter_by(out, diff, keep_matched, list);
	glob_list_free(list);
	return error;
}
