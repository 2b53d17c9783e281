/* The diff model: files, lazy loading, printing back to text. */
#include "diff.h"
#include "array.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	char letter;
	const char *name;
} status_info[] = {
#define DIFF_STATUS_INFO(name, letter, text) { letter, text },
	DIFF_STATUS_LIST(DIFF_STATUS_INFO)
#undef DIFF_STATUS_INFO
};

char diff_status_letter(enum diff_status status)
{
	return status_info[status].letter;
}

const char *diff_status_name(enum diff_status status)
{
	return status_info[status].name;
}

static const struct {
	const char *code, *name;
} conflict_info[] = {
#define DIFF_CONFLICT_INFO(name, code, text) { code, text },
	DIFF_CONFLICT_LIST(DIFF_CONFLICT_INFO)
#undef DIFF_CONFLICT_INFO
};

const char *diff_conflict_code(enum diff_conflict conflict)
{
	return conflict_info[conflict].code;
}

const char *diff_conflict_name(enum diff_conflict conflict)
{
	return conflict_info[conflict].name;
}

int diff_new(struct diff **out)
{
	struct diff *diff = calloc(1, sizeof(*diff));

	*out = NULL;
	if (!diff)
		return error_nomem();
	/* Large blocks: a big diff is a handful of allocations. */
	arena_init(&diff->arena, 1024 * 1024);
	diff->refs = 1;
	*out = diff;
	return 0;
}

struct diff *diff_dup(struct diff *diff)
{
	if (diff)
		diff->refs++;
	return diff;
}

void diff_free(struct diff *diff)
{
	if (!diff || --diff->refs > 0)
		return;
	if (diff->source.free)
		diff->source.free(diff->source.ctx);
	arena_release(&diff->arena);
	free(diff->files);
	free(diff);
}

int diff_file_add(struct diff_file **out, struct diff *diff, enum diff_status status,
		  const char *old_path, const char *path, uint32_t old_mode, uint32_t new_mode)
{
	struct diff_file *file;
	int error;

	*out = NULL;
	if ((error = ARRAY_GROW(diff->files, diff->files_alloc, diff->nfiles + 1)) < 0)
		return error;
	file = &diff->files[diff->nfiles];
	memset(file, 0, sizeof(*file));
	file->status = status;
	file->path = arena_strndup(&diff->arena, path, strlen(path));
	file->old_path = strcmp(old_path, path) == 0 ? file->path :
		arena_strndup(&diff->arena, old_path, strlen(old_path));
	if (!file->path || !file->old_path)
		return error_nomem();
	file->old_mode = old_mode;
	file->new_mode = new_mode;
	diff->nfiles++;
	*out = file;
	return 0;
}

int diff_file_load(struct diff *diff, size_t index)
{
	struct diff_file *file = &diff->files[index];

	if (file->flags & DIFF_FILE_LOADED)
		return 0;
	if (!diff->source.load)
		return error_set(RL_ERROR, "%s: the diff has no source to load it from", file->path);
	return diff->source.load(diff->source.ctx, diff, index);
}

int diff_file_count(struct diff *diff, size_t index)
{
	struct diff_file *file = &diff->files[index];

	if (file->flags & DIFF_FILE_COUNTED)
		return 0;
	if (diff->source.count)
		return diff->source.count(diff->source.ctx, diff, index);
	return diff_file_load(diff, index);
}

void diff_file_counts_copy(struct diff *diff, struct diff_file *file, const struct diff_file *from)
{
	if (file->flags & DIFF_FILE_COUNTED)
		return;
	file->additions = from->additions;
	file->deletions = from->deletions;
	file->old_size = from->old_size;
	file->new_size = from->new_size;
	file->flags |= DIFF_FILE_COUNTED | (from->flags & (DIFF_FILE_BINARY | DIFF_FILE_BINARY_KNOWN));
	diff->counted++;
	diff->additions += from->additions;
	diff->deletions += from->deletions;
}

bool diff_counted(const struct diff *diff)
{
	return diff->counted == diff->nfiles;
}

static int lines_print(struct buf *out, const struct diff_file *file, const struct diff_hunk *hunk,
		       uint32_t max)
{
	uint32_t i;
	int error = 0;

	for (i = 0; i < hunk->nlines && i < max && !error; i++) {
		const struct diff_line *line = &file->lines[hunk->first_line + i];

		error = buf_grow(out, line->len + 2);
		if (!error) {
			out->ptr[out->len++] = line->origin;
			memcpy(out->ptr + out->len, line->text, line->len);
			out->len += line->len;
			out->ptr[out->len++] = '\n';
			out->ptr[out->len] = '\0';
		}
		if (!error && (line->flags & DIFF_LINE_NO_EOL))
			error = buf_puts(out, "\\ No newline at end of file\n");
	}
	return error;
}

int diff_file_print_hunks(struct buf *out, struct diff *diff, size_t index,
			  uint32_t first, uint32_t count)
{
	const struct diff_file *file;
	uint32_t i, end;
	bool second = false;
	int error;

	if ((error = diff_file_load(diff, index)) < 0)
		return error;
	file = &diff->files[index];
	end = first + count < file->nhunks ? first + count : file->nhunks;
	if ((error = buf_put(out, file->header, file->header_len)) < 0)
		return error;
	for (i = first; i < end; i++) {
		const struct diff_hunk *hunk = &file->hunks[i];

		/* A type change's creation header comes before its first hunk. */
		if (file->header2 && i >= file->split_hunk && !second) {
			second = true;
			if ((error = buf_put(out, file->header2, file->header2_len)) < 0)
				return error;
		}
		if ((error = buf_put(out, hunk->header, hunk->header_len)) < 0 ||
		    (error = buf_putc(out, '\n')) < 0 ||
		    (error = lines_print(out, file, hunk, UINT32_MAX)) < 0)
			return error;
	}
	if (file->header2 && !second && end >= file->nhunks && file->split_hunk >= file->nhunks)
		error = buf_put(out, file->header2, file->header2_len);
	return error;
}

int diff_file_print_hunk_cut(struct buf *out, struct diff *diff, size_t index, uint32_t hunk, uint32_t keep)
{
	const struct diff_file *file;
	int error;

	if ((error = diff_file_load(diff, index)) < 0)
		return error;
	file = &diff->files[index];
	if (hunk >= file->nhunks)
		return 0;
	if ((error = buf_put(out, file->header, file->header_len)) < 0 ||
	    (file->header2 && hunk >= file->split_hunk &&
	     (error = buf_put(out, file->header2, file->header2_len)) < 0) ||
	    (error = buf_put(out, file->hunks[hunk].header, file->hunks[hunk].header_len)) < 0 ||
	    (error = buf_putc(out, '\n')) < 0)
		return error;
	return lines_print(out, file, &file->hunks[hunk], keep);
}

int diff_file_print(struct buf *out, struct diff *diff, size_t index)
{
	int error = diff_file_load(diff, index);

	return error < 0 ? error : diff_file_print_hunks(out, diff, index, 0, diff->files[index].nhunks);
}

int diff_print(struct buf *out, struct diff *diff)
{
	size_t i;
	int error = 0;

	for (i = 0; i < diff->nfiles && !error; i++)
		error = diff_file_print(out, diff, i);
	return error;
}

void diff_free_paths(char **paths, size_t count)
{
	size_t i;

	if (!paths)
		return;
	for (i = 0; i < count; i++)
		free(paths[i]);
	free(paths);
}

int diff_text_files(char ***out, size_t *count, const struct diff *diff)
{
	size_t i;

	*count = 0;
	if (!(*out = calloc(diff->nfiles ? diff->nfiles : 1, sizeof(char *))))
		return error_nomem();
	for (i = 0; i < diff->nfiles; i++) {
		const struct diff_file *f = &diff->files[i];

		/* A link or a submodule is no text of ours: a linter would follow it anywhere. */
		if (f->status == DIFF_DELETED || (f->flags & DIFF_FILE_BINARY) ||
		    (f->new_mode & 0170000) == 0120000 || (f->new_mode & 0170000) == 0160000)
			continue;
		if (!((*out)[*count] = strdup(f->path)))
			return error_nomem();
		(*count)++;
	}
	return 0;
}

int diff_extract_files(char ***out, size_t *count, const struct diff *diff, bool both)
{
	char **paths = calloc(diff->nfiles * 2 + 1, sizeof(*paths));
	size_t i, n = 0;

	*out = NULL;
	*count = 0;
	if (!paths)
		return error_nomem();
	for (i = 0; i < diff->nfiles; i++) {
		const struct diff_file *file = &diff->files[i];

		if (!(paths[n++] = strdup(file->path)))
			goto nomem;
		if (both && file->old_path != file->path && strcmp(file->old_path, file->path) &&
		    !(paths[n++] = strdup(file->old_path)))
			goto nomem;
	}
	*out = paths;
	*count = n;
	return 0;
nomem:
	diff_free_paths(paths, n);
	return error_nomem();
}

size_t diff_unmerged(const struct diff *diff)
{
	size_t i, n = 0;

	for (i = 0; i < diff->nfiles; i++)
		n += diff->files[i].conflict != DIFF_CONFLICT_NONE;
	return n;
}

long diff_find_file(const struct diff *diff, const char *path)
{
	size_t i;

	for (i = 0; i < diff->nfiles; i++)
		if (!strcmp(diff->files[i].path, path) || !strcmp(diff->files[i].old_path, path))
			return (long)i;
	return -1;
}

bool diff_line_added(struct diff *diff, const char *path, int line)
{
	long index = diff_find_file(diff, path);
	const struct diff_file *file;
	uint32_t i;

	if (index < 0 || line < 1 || diff_file_load(diff, (size_t)index) < 0)
		return false;
	file = &diff->files[index];
	for (i = 0; i < file->nlines; i++)
		if (file->lines[i].origin == '+' && file->lines[i].new_lineno == line)
			return true;
	return false;
}
