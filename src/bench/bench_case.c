/* A benchmark case: a fix reversed, and the lines a review should find, as stored and read back. */
#include "bench_case.h"
#include "array.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 1000
#define MAX_RANGES 10000
#define MAX_LINE 100000000

void bench_case_release(struct bench_case *c)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].ranges);
	}
	free(c->files);
	free(c->subject);
	memset(c, 0, sizeof(*c));
}

void bench_cases_release(struct bench_cases *cases)
{
	size_t i;

	for (i = 0; i < cases->count; i++)
		bench_case_release(&cases->items[i]);
	free(cases->items);
	memset(cases, 0, sizeof(*cases));
}

static struct bench_case_file *file_of(struct bench_case *c, const char *path, bool make)
{
	struct bench_case_file *f;
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	if (!make || ARRAY_GROW(c->files, c->files_alloc, c->nfiles + 1) < 0)
		return NULL;     /* ARRAY_GROW set the error */
	f = &c->files[c->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path))) {
		error_nomem();
		return NULL;
	}
	c->nfiles++;
	return f;
}

int bench_case_add_range(struct bench_case *c, const char *path, int start, int end)
{
	struct bench_case_file *f = file_of(c, path, true);
	size_t i;

	if (!f)
		return RL_ENOMEM;
	for (i = 0; i < f->nranges; i++) {
		struct bench_range *r = &f->ranges[i];

		if (start <= r->end + 1 && end >= r->start - 1) {
			r->start = start < r->start ? start : r->start;
			r->end = end > r->end ? end : r->end;
			return 0;
		}
	}
	if (ARRAY_GROW(f->ranges, f->ranges_alloc, f->nranges + 1) < 0)
		return error_nomem();
	f->ranges[f->nranges++] = (struct bench_range){ start, end };
	return 0;
}

bool bench_case_hits(const struct bench_case *c, const char *path, int line, int end_line, int tolerance)
{
	const struct bench_case_file *f = NULL;
	size_t i;

	if (!path || line <= 0)
		return false;
	if (end_line < line)
		end_line = line;
	for (i = 0; i < c->nfiles && !f; i++)
		if (!strcmp(c->files[i].path, path))
			f = &c->files[i];
	for (i = 0; f && i < f->nranges; i++)
		if (line <= f->ranges[i].end + tolerance && end_line >= f->ranges[i].start - tolerance)
			return true;
	return false;
}

int bench_case_lines_json(char **out, const struct bench_case *c)
{
	json_t *files = json_array();
	size_t i, j;

	*out = NULL;
	for (i = 0; files && i < c->nfiles; i++) {
		json_t *lines = json_array();

		for (j = 0; lines && j < c->files[i].nranges; j++)
			json_array_append_new(lines, json_pack("[i, i]", c->files[i].ranges[j].start,
							       c->files[i].ranges[j].end));
		json_array_append_new(files, json_pack("{s:s, s:o}", "path", c->files[i].path, "lines", lines));
	}
	*out = files ? json_dumps(files, JSON_COMPACT) : NULL;
	json_decref(files);
	return *out ? 0 : error_nomem();
}

static int range_read(struct bench_case *c, const char *path, json_t *range, size_t i)
{
	json_int_t a, b;

	if (!json_is_array(range) || json_array_size(range) != 2 || !json_is_integer(json_array_get(range, 0)) ||
	    !json_is_integer(json_array_get(range, 1)))
		return error_set(RL_EPARSE, "a case's lines: %s: range %zu is not [first, last]", path, i + 1);
	a = json_integer_value(json_array_get(range, 0));
	b = json_integer_value(json_array_get(range, 1));
	if (a < 1 || b < a || b > MAX_LINE)
		return error_set(RL_EPARSE, "a case's lines: %s: range %zu, [%lld, %lld], is not lines from 1 "
				 "to %d, first to last", path, i + 1, (long long)a, (long long)b, MAX_LINE);
	return bench_case_add_range(c, path, (int)a, (int)b);
}

static int file_read(struct bench_case *c, json_t *file, size_t i, size_t *nranges)
{
	json_t *path = json_object_get(file, "path"), *lines = json_object_get(file, "lines"), *range;
	size_t j;
	int error;

	if (!json_is_string(path) || !*json_string_value(path) || !json_is_array(lines))
		return error_set(RL_EPARSE, "a case's lines: file %zu has no \"path\" or no \"lines\" array", i + 1);
	if ((*nranges += json_array_size(lines)) > MAX_RANGES)
		return error_set(RL_EPARSE, "a case's lines: over %d ranges", MAX_RANGES);
	json_array_foreach(lines, j, range)
		if ((error = range_read(c, json_string_value(path), range, j)) < 0)
			return error;
	return 0;
}

int bench_case_lines_parse(struct bench_case *c, const char *json, size_t len)
{
	json_error_t jerr;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr), *file;
	size_t i, nranges = 0;
	int error = 0;

	if (!root)
		return error_set(RL_EPARSE, "a case's lines: not JSON (%s, at character %d)", jerr.text, jerr.position);
	if (!json_is_array(root) || json_array_size(root) > MAX_FILES) {
		error = error_set(RL_EPARSE, "a case's lines: not an array of at most %d files", MAX_FILES);
		goto done;
	}
	json_array_foreach(root, i, file)
		if ((error = file_read(c, file, i, &nranges)) < 0)
			break;
done:
	json_decref(root);
	return error;
}

int bench_case_where(struct buf *out, const struct bench_case *c)
{
	size_t i, j;

	for (i = 0; i < c->nfiles; i++) {
		if (buf_printf(out, "%s%s:", i ? "; " : "", c->files[i].path) < 0)
			return error_nomem();
		for (j = 0; j < c->files[i].nranges; j++) {
			const struct bench_range *r = &c->files[i].ranges[j];

			if ((r->start == r->end ? buf_printf(out, "%s%d", j ? "," : "", r->start) :
			     buf_printf(out, "%s%d-%d", j ? "," : "", r->start, r->end)) < 0)
				return error_nomem();
		}
	}
	return 0;
}
