/* The models' tools read_file (a file's lines, a directory's files) and references (a name's definitions and uses). */
#include "repo_tools_state.h"
#include "clock.h"
#include "index.h"
#include "refs.h"
#include "status.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the model is told of a path the tools do not read, whether a file is there or not. */
#define NOT_READ "no file of the repository by that path can be read. The tools read the files git tracks " \
	"(and the change's new files when it has them), never an ignored or untracked file, a link, a " \
	"submodule, anything under .git, or a binary, generated or vendored file"

/* The first of the index's files (by path) at or after key. */
static size_t files_from(const struct index_file *files, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(files[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool under(const char *path, const char *dir, size_t len)
{
	return !len || (!strncmp(path, dir, len) && path[len] == '/');
}

/* Why a file the index lists is not read, in the model's words. */
static const char *unreadable(char *out, size_t size, const struct index_file *f)
{
	switch (f->state) {
	case INDEX_BINARY: return "a binary file";
	case INDEX_LARGE:
		snprintf(out, size, "too large (%llu bytes; the tools read files up to %u KiB)",
			 (unsigned long long)f->size, INDEX_FILE_MAX >> 10);
		return out;
	default: return f->why ? f->why : "not read";
	}
}

/* --- a path not found ---------------------------------------------------------------------- */

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The readable files it may be a typo of: the same name elsewhere (up to 5), or the nearest name. */
static int guesses(struct buf *out, const struct index *index, const char *path)
{
	const struct index_file *files;
	const char *base = base_of(path);
	struct text_guess g;
	size_t i, n, same = 0;

	files = index_files(index, &n);
	for (i = 0; i < n && same < 5; i++)
		if (index_file_readable(&files[i]) && !strcmp(base_of(files[i].path), base) &&
		    buf_printf(out, "%s%s", same++ ? ", " : ". Did you mean ", files[i].path) < 0)
			return error_nomem();
	if (same)
		return buf_puts(out, "?");
	text_guess_init(&g, base, strlen(base));
	for (i = 0; i < n; i++)
		if (index_file_readable(&files[i]))
			text_guess_try(&g, base_of(files[i].path), i);
	if (text_guess_result(&g))
		return buf_printf(out, ". Did you mean %s?", files[g.index].path);
	return 0;
}

static int not_found(struct call *c, const char *path)
{
	struct buf more = BUF_INIT;
	int error;

	if ((error = guesses(&more, c->index, path)) == 0)
		error = call_fail(c, "%s: " NOT_READ "%s", path, more.ptr ? more.ptr : "");
	buf_release(&more);
	return error;
}

/* --- a directory ------------------------------------------------------------------------------ */

/* One entry of a directory: a file, or a folder with its count of files. */
static int entry_put(struct call *c, const struct index_file *f, size_t len, size_t files)
{
	struct buf line = BUF_INIT;
	const char *rest = f->path + (len ? len + 1 : 0), *slash = strchr(rest, '/');
	char why[128];
	int error;

	if (slash)
		error = buf_printf(&line, "%.*s/ (%zu file%s)\n", (int)(slash - f->path), f->path, files,
				   files == 1 ? "" : "s");
	else if (!index_file_readable(f))
		error = buf_printf(&line, "%s (not readable: %s)\n", f->path, unreadable(why, sizeof(why), f));
	else
		error = buf_printf(&line, "%s\n", f->path);
	if (error == 0 && call_fits(c, line.len))
		error = buf_put(&c->out->text, line.ptr, line.len);
	else if (error == 0)
		error = 1;
	buf_release(&line);
	return error;
}

/* The files from first under dir whose next component is the same folder as first's: how many. */
static size_t folder_files(const struct index_file *files, size_t n, size_t first, size_t len)
{
	const char *rest = files[first].path + (len ? len + 1 : 0), *slash = strchr(rest, '/');
	size_t k = (size_t)(slash - files[first].path) + 1, i;

	for (i = first; i < n && !strncmp(files[i].path, files[first].path, k); i++)
		;
	return i - first;
}

/* The next entry of the directory after the one at i: a file, or all of a folder's. */
static size_t entry_next(const struct index_file *files, size_t n, size_t i, size_t len, size_t *step)
{
	const char *rest = files[i].path + (len ? len + 1 : 0);

	*step = strchr(rest, '/') ? folder_files(files, n, i, len) : 1;
	return i + *step;
}

/* A directory's entries (files, and folders with their count), start to end of them as for lines. */
static int dir_list(struct call *c, const char *dir, size_t from, const struct repo_tool_args *a)
{
	const struct index_file *files;
	size_t n, i, step, len = strlen(dir), total = 0, k = 0, shown = 0, first, last;
	int error = 0;

	files = index_files(c->index, &n);
	for (i = from; i < n && under(files[i].path, dir, len); i = entry_next(files, n, i, len, &step))
		total++;
	first = a->start ? (size_t)a->start : 1;
	if (first > total)
		return call_fail(c, "%s/ has %zu entr%s: start %lld is past its end", len ? dir : ".", total,
				 total == 1 ? "y" : "ies", (long long)a->start);
	last = a->end && (uint64_t)a->end < total ? (size_t)a->end : total;
	if (last - first + 1 > REPO_TOOLS_ENTRIES)
		last = first + REPO_TOOLS_ENTRIES - 1;
	if ((error = buf_printf(&c->out->text, "%s/: a directory; entries %zu-%zu of %zu (files, and folders with "
				"their count of files):\n", len ? dir : ".", first, last, total)) < 0)
		return error;
	for (i = from; i < n && under(files[i].path, dir, len) && k < last; i += step) {
		step = 1;
		entry_next(files, n, i, len, &step);
		if (++k < first)
			continue;
		if ((error = entry_put(c, &files[i], len, step)) != 0)
			break;
		shown = k;
	}
	if (error < 0)
		return error;
	if (shown < first) {
		c->use->complete = false;
		return buf_printf(&c->out->text, "[no entry fit in what is left of this result (%zu bytes)]\n", c->max);
	}
	if (shown < total && (!a->end || shown < (size_t)a->end)) {
		c->use->complete = false;
		return buf_printf(&c->out->text, "[entries %zu-%zu of %zu shown: list on with start %zu]\n", first, shown,
				  total, shown + 1);
	}
	return 0;
}

/* --- a file's lines ----------------------------------------------------------------------------- */

static uint32_t lines_count(const char *p, size_t len)
{
	uint32_t n = 0;
	const char *e = p + len, *nl;

	for (; p < e; p = nl + 1, n++)
		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			return n + 1;
	return n;
}

/* The lines from start on, while they fit: the last one shown (start - 1 when none). */
static int lines_put(struct call *c, const struct buf *text, uint32_t start, uint32_t last, uint32_t *shown)
{
	const char *p = text->ptr, *e = text->ptr + text->len;
	struct buf line = BUF_INIT;
	uint32_t l = 1;
	int error = 0;

	*shown = start - 1;
	for (; p < e && l <= last && !error; l++) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);

		if (l >= start) {
			while (len && p[len - 1] == '\r')
				len--;
			buf_clear(&line);
			if ((error = buf_printf(&line, "%5u  ", l)) < 0 ||
			    (error = text_line(&line, p, len, REPO_TOOLS_LINE_SHOWN)) < 0 ||
			    (len > REPO_TOOLS_LINE_SHOWN &&
			     (error = buf_printf(&line, " [line cut: %zu bytes]", len)) < 0) ||
			    (error = buf_putc(&line, '\n')) < 0)
				break;
			if (!call_fits(c, line.len))
				break;
			if ((error = buf_put(&c->out->text, line.ptr, line.len)) < 0)
				break;
			*shown = l;
		}
		p = nl ? nl + 1 : e;
	}
	buf_release(&line);
	return error;
}

static int file_lines(struct call *c, const struct index_file *f, const struct repo_tool_args *a)
{
	struct buf text = BUF_INIT;
	uint32_t n, start, last, shown;
	uint64_t want;
	int error;

	if (f->size > call_read_left(c))
		return call_fail(c, "%s: not read: the %s of files a question's tools may read are used up",
				 f->path, call_read_max(c));
	if ((error = call_read(&text, c, f)) < 0) {
		error = error == RL_EPARSE ? call_fail(c, "%s: a binary file: not read", f->path) :
			error == RL_ENOMEM ? error : call_fail(c, "%s: cannot be read now (it changed since the review "
							 "began)", f->path);
		error_clear();
		goto done;
	}
	n = lines_count(text.ptr, text.len);
	start = (uint32_t)(a->start ? a->start : 1);
	if (!n) {
		error = buf_printf(&c->out->text, "%s: an empty file\n", f->path);
		goto done;
	}
	if (a->start > (int64_t)n) {
		error = call_fail(c, "%s has %u line%s: start %lld is past its end", f->path, n, n == 1 ? "" : "s",
				  (long long)a->start);
		goto done;
	}
	want = a->end && a->end < (int64_t)n ? (uint64_t)a->end : n;
	last = want - start + 1 > c->rt->opts.lines ? start + (uint32_t)c->rt->opts.lines - 1 : (uint32_t)want;
	if ((error = buf_printf(&c->out->text, "%s: lines %u-%u of %u\n", f->path, start, last, n)) < 0 ||
	    (error = lines_put(c, &text, start, last, &shown)) < 0)
		goto done;
	c->use->start = shown >= start ? start : 0;
	c->use->end = shown >= start ? shown : 0;
	if (shown >= start && (error = call_span(c, f->path, start, shown)) < 0)
		goto done;
	if (shown < last)
		error = buf_printf(&c->out->text, "[lines %u-%u did not fit in this result (%zu bytes): read on with "
				   "start %u]\n", shown + 1, last, c->max, shown + 1);
	else if (last < want)
		error = buf_printf(&c->out->text, "[at most %zu lines a call: read on with start %u]\n",
				   c->rt->opts.lines, last + 1);
	c->use->complete = shown == want;
done:
	buf_release(&text);
	return error;
}

int tool_read_file(struct call *c, const struct repo_tool_args *a)
{
	struct buf path = BUF_INIT, key = BUF_INIT;
	const struct index_file *files, *f = NULL;
	size_t n, from = 0;
	char why[128];
	int error;

	if (repo_tool_path_clean(&path, a->path, strlen(a->path)) < 0) {
		error = call_fail(c, "%s", error_message());
		error_clear();
		goto done;
	}
	free(c->use->subject);
	if (!(c->use->subject = strdup(path.ptr)) || (path.len && buf_printf(&key, "%s/", path.ptr) < 0)) {
		error = error_nomem();
		goto done;
	}
	files = index_files(c->index, &n);
	if (path.len) {
		f = index_file(c->index, path.ptr);
		from = files_from(files, n, key.ptr);
	}
	if (f && index_file_readable(f))
		error = file_lines(c, f, a);
	else if (f)
		error = call_fail(c, "%s: not read: %s", f->path, unreadable(why, sizeof(why), f));
	else if (from < n && under(files[from].path, path.ptr, path.len))
		error = dir_list(c, path.ptr, from, a);
	else
		error = not_found(c, path.ptr);
done:
	buf_release(&path);
	buf_release(&key);
	return error;
}

/* --- references --------------------------------------------------------------------------------- */

static int defs_put(struct call *c, const struct def *const *defs, size_t nd, size_t *shown)
{
	struct buf line = BUF_INIT;
	size_t i;
	int error = 0;

	*shown = 0;
	for (i = 0; i < nd && i < c->rt->opts.refs && !error; i++) {
		const struct def *d = defs[i];

		buf_clear(&line);
		if ((error = buf_printf(&line, "%s:%u", d->file->path, d->line)) < 0 ||
		    (d->end > d->line && (error = buf_printf(&line, "-%u", d->end)) < 0) ||
		    (error = buf_printf(&line, ": %s %s", *d->kind ? d->kind : "definition", d->name)) < 0 ||
		    (error = text_line(&line, d->signature, strlen(d->signature), REPO_TOOLS_HIT_SHOWN)) < 0 ||
		    (*d->scope && (error = buf_printf(&line, " (in %s)", d->scope)) < 0) ||
		    ((d->flags & DEF_FILE_SCOPE) && (error = buf_puts(&line, " (its file only)")) < 0) ||
		    (*d->language && (error = buf_printf(&line, " [%s]", d->language)) < 0) ||
		    (error = buf_putc(&line, '\n')) < 0)
			break;
		if (!call_fits(c, line.len))
			break;
		if ((error = buf_put(&c->out->text, line.ptr, line.len)) < 0 ||
		    (error = call_span(c, d->file->path, d->line, d->end > d->line ? d->end : d->line)) < 0)
			break;
		++*shown;
	}
	buf_release(&line);
	return error;
}

static int refs_put(struct call *c, const struct refs *refs, size_t *shown)
{
	struct buf line = BUF_INIT;
	size_t i;
	int error = 0;

	*shown = 0;
	for (i = 0; i < refs->count && !error; i++) {
		const struct ref *r = &refs->items[i];

		buf_clear(&line);
		if ((error = buf_printf(&line, "%s:%u: %s\n", r->file->path, r->line, r->text)) < 0)
			break;
		if (!call_fits(c, line.len))
			break;
		if ((error = buf_put(&c->out->text, line.ptr, line.len)) < 0 ||
		    (error = call_span(c, r->file->path, r->line, r->line)) < 0)
			break;
		++*shown;
	}
	buf_release(&line);
	return error;
}

/* What the result says it left out, or that definitions are not known at all. */
static int refs_notes(struct call *c, size_t nd, size_t dshown, const struct refs *refs, size_t rshown)
{
	const char *note = index_note(c->index);
	size_t ndefs;

	index_defs(c->index, &ndefs);
	if (!ndefs && note && buf_printf(&c->out->text, "[definitions are not known: %s]\n", note) < 0)
		return error_nomem();
	if (dshown < nd && buf_printf(&c->out->text, "[%zu of %zu definitions shown]\n", dshown, nd) < 0)
		return error_nomem();
	if (rshown == refs->count && refs->complete)
		return 0;
	c->use->complete = false;
	if (rshown < refs->count)
		return buf_printf(&c->out->text, "[%zu of the %zu references found shown: the rest did not fit in this "
				  "result; search for \\b%s\\b with a path_glob]\n", rshown, refs->count, c->use->subject);
	if (refs->count >= c->rt->opts.refs)
		return buf_printf(&c->out->text, "[the first %zu references by path; there are more: search for "
				  "\\b%s\\b with a path_glob for the others]\n", rshown, c->use->subject);
	return buf_printf(&c->out->text, "[the call's time (%d ms) was up before every file was searched: search "
			  "for \\b%s\\b with a path_glob for the rest]\n", c->rt->opts.call_ms, c->use->subject);
	return 0;
}

int tool_references(struct call *c, const struct repo_tool_args *a)
{
	struct refs_options o = { .per_symbol = c->rt->opts.refs, .total = c->rt->opts.refs, .deadline_ms = c->until };
	struct refs refs;
	const struct def *const *defs;
	size_t nd, dshown = 0, rshown = 0;
	int error;

	if (!call_read_left(c))
		return call_fail(c, "not run: the %s of files a question's tools may read are used up",
				 call_read_max(c));
	if (c->rt->opts.deadline_ms && c->rt->opts.deadline_ms < o.deadline_ms)
		o.deadline_ms = c->rt->opts.deadline_ms;
	defs = index_lookup(c->index, a->symbol, &nd);
	if ((error = refs_find(&refs, c->index, &a->symbol, 1, &o)) < 0)
		return error;
	c->rt->read += refs.bytes_read;
	c->use->files_read = refs.files_read;
	c->use->bytes_read = refs.bytes_read;
	c->use->found = nd + refs.count;
	if (!nd && !refs.count)
		error = buf_printf(&c->out->text, "%s: no definition and no use found in the repository's files%s\n",
				   a->symbol, refs.complete ? "" : " searched before the time was up");
	else if ((error = buf_printf(&c->out->text, "%s: %zu definition%s, %s%zu reference%s\n", a->symbol, nd,
				     nd == 1 ? "" : "s", refs.complete ? "" : "at least ", refs.count,
				     refs.count == 1 ? "" : "s")) == 0 &&
		 (!nd || (error = buf_puts(&c->out->text, "definitions:\n")) == 0) &&
		 (error = defs_put(c, defs, nd, &dshown)) == 0 &&
		 (!refs.count || (error = buf_puts(&c->out->text, "references (whole words; comments and strings "
						   "too; not the definitions' lines):\n")) == 0))
		error = refs_put(c, &refs, &rshown);
	if (error == 0)
		error = refs_notes(c, nd, dshown, &refs, rshown);
	refs_release(&refs);
	return error < 0 ? error_nomem() : 0;
}
