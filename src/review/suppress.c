/* Inline suppression: "revline: ignore RULE-ID" on a finding's line or the line above (suppress.h). */
#include "suppress.h"
#include "array.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK "revline:"

struct suppress_file {
	char *path;
	struct buf text;
	bool readable;
};

struct suppress_files {
	struct file_reader reader;
	struct suppress_file *files;
	size_t count, alloc;
};

static bool id_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* After "ignore": the ids listed (none: every rule), whether rule_id is one of them. */
static bool list_has(const char *p, const char *end, const char *rule_id)
{
	bool any = false;

	for (;;) {
		const char *id;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || !isalnum((unsigned char)*p))
			return !any;
		for (id = p; p < end && id_char(*p); p++)
			;
		any = true;
		if ((size_t)(p - id) == strlen(rule_id) && !strncmp(id, rule_id, (size_t)(p - id)))
			return true;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p != ',')
			return false;
		p++;
	}
}

bool suppress_line_ignores(const char *line, size_t len, const char *rule_id)
{
	const char *end = line + len, *p = line;

	while ((p = memmem(p, (size_t)(end - p), MARK, strlen(MARK)))) {
		p += strlen(MARK);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) >= 6 && !strncmp(p, "ignore", 6) && (p + 6 == end || !id_char(p[6])))
			return list_has(p + 6, end, rule_id);
	}
	return false;
}

int suppress_files_new(struct suppress_files **out, const struct file_reader *reader)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return error_nomem();
	(*out)->reader = *reader;
	return 0;
}

void suppress_files_free(struct suppress_files *files)
{
	size_t i;

	if (!files)
		return;
	for (i = 0; i < files->count; i++) {
		free(files->files[i].path);
		buf_release(&files->files[i].text);
	}
	free(files->files);
	free(files);
}

/* The new side of path, read once. */
static const struct suppress_file *file_get(struct suppress_files *files, const char *path)
{
	struct suppress_file *f;
	size_t i;

	for (i = 0; i < files->count; i++)
		if (!strcmp(files->files[i].path, path))
			return &files->files[i];
	if (ARRAY_GROW(files->files, files->alloc, files->count + 1) < 0)
		return NULL;
	f = &files->files[files->count];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	files->count++;
	f->readable = files->reader.read(files->reader.ctx, path, false, &f->text) == 0 && f->text.ptr;
	error_clear();
	return f;
}

/* Line n (from 1) of text: where it starts and how long it is; false past the end. */
static bool line_at(const struct buf *text, int n, const char **start, size_t *len)
{
	const char *p = text->ptr, *end = text->ptr + text->len, *nl;

	for (; n > 1 && p < end; n--) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return false;
		p = nl + 1;
	}
	if (n > 1 || p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	*start = p;
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	return true;
}

/* Whether the line ignores every rule the finding came from. */
static bool ignores_all(const char *line, size_t len, const struct finding *f)
{
	size_t i;

	if (!f->nfrom)
		return f->rule_id && suppress_line_ignores(line, len, f->rule_id);
	for (i = 0; i < f->nfrom; i++)
		if (!suppress_line_ignores(line, len, f->from_rules[i]))
			return false;
	return true;
}

int suppress_inline(struct finding *finding, struct suppress_files *files)
{
	const struct suppress_file *file;
	const char *line;
	size_t len;
	int n;

	if (!finding->file || finding->line < 1)
		return 0;
	if (!(file = file_get(files, finding->file)))
		return error_nomem();
	if (!file->readable)
		return 0;
	for (n = finding->line; n >= finding->line - 1 && n >= 1; n--)
		if (line_at(&file->text, n, &line, &len) && ignores_all(line, len, finding)) {
			free(finding->suppressed_by);
			if (asprintf(&finding->suppressed_by, "revline: ignore at line %d", n) < 0) {
				finding->suppressed_by = NULL;
				return error_nomem();
			}
			finding->suppressed = true;
			return 0;
		}
	return 0;
}
