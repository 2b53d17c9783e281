/* revline diff: the diff model as text, stat, name-status or JSON. */
#include "commands.h"
#include "status.h"
#include "term.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum diff_format { FORMAT_PATCH, FORMAT_STAT, FORMAT_NAME_STATUS, FORMAT_JSON };

static int write_out(struct buf *out)
{
	if (out->len && fwrite(out->ptr, 1, out->len, stdout) != out->len)
		return -1;
	buf_clear(out);
	return 0;
}

/*
 * The patch is the files' own bytes. On a terminal, where they are read, a
 * file's escape sequences (a clipboard write, a title, a cleared screen)
 * are shown made visible, as `less` and `cat -v` show them. Into a pipe or
 * a file they stay byte for byte, so that `revline diff | git apply` and
 * `revline diff > x.patch` give back the change itself. The paths in the
 * headers are C-quoted by git's rules either way.
 */
static int write_patch(struct buf *out, bool terminal)
{
	if (!terminal)
		return write_out(out);
	term_write(stdout, out->ptr, out->len);
	buf_clear(out);
	return ferror(stdout) ? -1 : 0;
}

static int print_patch(struct diff *diff, struct buf *out)
{
	bool terminal = isatty(STDOUT_FILENO);
	size_t i;

	for (i = 0; i < diff->nfiles; i++) {
		if (diff_file_print(out, diff, i) < 0 || write_patch(out, terminal) < 0)
			return -1;
	}
	return 0;
}

static int print_name_status(struct diff *diff, struct buf *out)
{
	size_t i;

	for (i = 0; i < diff->nfiles; i++) {
		const struct diff_file *file = &diff->files[i];

		/* An unmerged path is "U" whatever its sides hold, as git says it. */
		buf_putc(out, file->conflict ? 'U' : diff_status_letter(file->status));
		if (file->status == DIFF_RENAMED || file->status == DIFF_COPIED) {
			buf_printf(out, "%03u\t", file->similarity);
			buf_put_quoted(out, "", file->old_path);
		}
		buf_putc(out, '\t');
		buf_put_quoted(out, "", file->path);
		buf_putc(out, '\n');
		if (write_out(out) < 0)
			return -1;
	}
	return 0;
}

/* Whether git quotes the path (buf_put_quoted's rule). */
static bool needs_quote(const char *path)
{
	const unsigned char *s;

	for (s = (const unsigned char *)path; *s; s++)
		if (*s < 0x20 || *s >= 0x7f || *s == '"' || *s == '\\')
			return true;
	return false;
}

/* git's name of a rename in a stat: the common directories outside braces, "a/{b => c}/d". */
static void stat_rename(struct buf *out, const char *a, const char *b)
{
	size_t len_a = strlen(a), len_b = strlen(b), pfx = 0, sfx = 0, i, mid_a, mid_b;
	const char *pa = a + len_a, *pb = b + len_b;

	if (needs_quote(a) || needs_quote(b)) {
		buf_put_quoted(out, "", a);
		buf_puts(out, " => ");
		buf_put_quoted(out, "", b);
		return;
	}
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* A common suffix, from a slash on; it may share the prefix's slash. */
	while (pa >= a + pfx - (pfx ? 1 : 0) && pb >= b + pfx - (pfx ? 1 : 0) && *pa == *pb) {
		if (*pa == '/')
			sfx = len_a - (size_t)(pa - a);
		pa--;
		pb--;
	}
	mid_a = len_a > pfx + sfx ? len_a - pfx - sfx : 0;
	mid_b = len_b > pfx + sfx ? len_b - pfx - sfx : 0;
	buf_put(out, a, pfx);
	if (pfx + sfx)
		buf_putc(out, '{');
	buf_put(out, a + pfx, mid_a);
	buf_puts(out, " => ");
	buf_put(out, b + pfx, mid_b);
	if (pfx + sfx) {
		buf_putc(out, '}');
		buf_put(out, a + len_a - sfx, sfx);
	}
}

/*
 * A file's name in the stat. An unmerged file whose working-tree text is
 * counted says so, as git's --compact-summary says "(new)".
 */
static void stat_name(struct buf *out, const struct diff *diff, const struct diff_file *file)
{
	buf_clear(out);
	if (file->old_path != file->path && strcmp(file->old_path, file->path))
		stat_rename(out, file->old_path, file->path);
	else
		buf_put_quoted(out, "", file->path);
	if (file->conflict && diff->unmerged_text)
		buf_printf(out, " (unmerged: %s)", diff_conflict_name(file->conflict));
}

/* git prints "Unmerged" for a file with no text; this one has its working tree's. */
static bool stat_unmerged(const struct diff *diff, const struct diff_file *file)
{
	return file->conflict && !diff->unmerged_text;
}

static int decimal_width(uint64_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

/* git's stat layout (show_stats in diff.c): the widths of the name, the count and the graph. */
struct stat_layout {
	int name, number, graph;
	uint64_t max_change;
};

/* The total width: COLUMNS, the terminal's, or 80, as git's term_columns. */
static int stat_columns(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && atoi(env) > 0)
		return atoi(env);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
}

static int stat_layout(struct stat_layout *l, struct diff *diff, struct buf *name)
{
	int width = stat_columns(), bin_width = 0, max_len = 0;
	size_t i;
	int error;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < diff->nfiles; i++) {
		const struct diff_file *file = &diff->files[i];

		if ((error = diff_file_count(diff, i)) < 0)
			return error;
		stat_name(name, diff, file);
		if ((int)name->len > max_len)
			max_len = (int)name->len;
		if (stat_unmerged(diff, file)) {
			bin_width = bin_width < 8 ? 8 : bin_width;
		} else if (file->flags & DIFF_FILE_BINARY) {
			int w = 14 + decimal_width(file->new_size) + decimal_width(file->old_size);

			bin_width = bin_width < w ? w : bin_width;
			l->number = 3;
		} else if ((uint64_t)file->additions + file->deletions > l->max_change) {
			l->max_change = (uint64_t)file->additions + file->deletions;
		}
	}
	if (decimal_width(l->max_change) > l->number)
		l->number = decimal_width(l->max_change);
	if (width < 16 + 6 + l->number)
		width = 16 + 6 + l->number;
	l->graph = l->max_change + 4 > (uint64_t)bin_width ? (int)l->max_change : bin_width - 4;
	l->name = max_len;
	if (l->name + l->number + 6 + l->graph > width) {
		if (l->graph > width * 3 / 8 - l->number - 6) {
			l->graph = width * 3 / 8 - l->number - 6;
			if (l->graph < 6)
				l->graph = 6;
		}
		if (l->name > width - l->number - 6 - l->graph)
			l->name = width - l->number - 6 - l->graph;
		else
			l->graph = width - l->number - 6 - l->name;
	}
	return 0;
}

static int scale_linear(uint64_t it, int width, uint64_t max_change)
{
	return it ? 1 + (int)(it * (uint64_t)(width - 1) / max_change) : 0;
}

/* A name cut to the layout's width: "..." and its end, from a directory on. */
static void stat_put_name(struct buf *out, const struct stat_layout *l, const char *name)
{
	int len = l->name, name_len = (int)strlen(name), padding;
	const char *prefix = "";

	if (l->name < name_len) {
		const char *slash;

		prefix = "...";
		len = len > 3 ? len - 3 : 0;
		name += name_len - len;
		if ((slash = strchr(name, '/')))
			name = slash;
	}
	padding = len - (int)strlen(name);
	buf_printf(out, " %s%s%*s | ", prefix, name, padding > 0 ? padding : 0, "");
}

static void stat_line(struct buf *out, const struct stat_layout *l, const struct diff *diff,
		      const struct diff_file *file, const char *name)
{
	uint64_t adds = file->additions, dels = file->deletions, total = adds + dels;
	int add = (int)adds, del = (int)dels;

	stat_put_name(out, l, name);
	if (stat_unmerged(diff, file)) {
		buf_printf(out, "%*s\n", l->number, "Unmerged");
		return;
	}
	if (file->flags & DIFF_FILE_BINARY) {
		buf_printf(out, "%*s", l->number, "Bin");
		if (file->old_size || file->new_size)
			buf_printf(out, " %llu -> %llu bytes", (unsigned long long)file->old_size,
				   (unsigned long long)file->new_size);
		buf_putc(out, '\n');
		return;
	}
	if ((uint64_t)l->graph <= l->max_change) {
		int scaled = scale_linear(total, l->graph, l->max_change);

		if (scaled < 2 && adds && dels)
			scaled = 2;
		if (adds < dels) {
			add = scale_linear(adds, l->graph, l->max_change);
			del = scaled - add;
		} else {
			del = scale_linear(dels, l->graph, l->max_change);
			add = scaled - del;
		}
	}
	buf_printf(out, "%*llu%s", l->number, (unsigned long long)total, total ? " " : "");
	while (add-- > 0)
		buf_putc(out, '+');
	while (del-- > 0)
		buf_putc(out, '-');
	buf_putc(out, '\n');
}

/* git's last line: " 2 files changed, 5 insertions(+)", the zero count left out unless both are. */
static void stat_summary(struct buf *out, size_t files, uint64_t adds, uint64_t dels)
{
	if (!files) {
		buf_puts(out, " 0 files changed\n");
		return;
	}
	buf_printf(out, " %zu file%s changed", files, files == 1 ? "" : "s");
	if (adds || !dels)
		buf_printf(out, ", %llu insertion%s(+)", (unsigned long long)adds, adds == 1 ? "" : "s");
	if (dels || !adds)
		buf_printf(out, ", %llu deletion%s(-)", (unsigned long long)dels, dels == 1 ? "" : "s");
	buf_putc(out, '\n');
}

/* git's --stat, byte for byte: its widths, its scaling, "Bin X -> Y bytes" from the sizes alone. */
static int print_stat(struct diff *diff, struct buf *out)
{
	struct buf name = BUF_INIT;
	struct stat_layout layout;
	uint64_t adds = 0, dels = 0;
	size_t i, files = 0;
	int error;

	if (!diff->nfiles)
		return 0;
	if ((error = stat_layout(&layout, diff, &name)) < 0) {
		buf_release(&name);
		return error;
	}
	for (i = 0; i < diff->nfiles && !error; i++) {
		const struct diff_file *file = &diff->files[i];

		stat_name(&name, diff, file);
		stat_line(out, &layout, diff, file, name.ptr);
		if (!stat_unmerged(diff, file))
			files++;
		if (!stat_unmerged(diff, file) && !(file->flags & DIFF_FILE_BINARY)) {
			adds += file->additions;
			dels += file->deletions;
		}
		error = write_out(out);
	}
	buf_release(&name);
	if (!error)
		stat_summary(out, files, adds, dels);
	return error < 0 || write_out(out) < 0 ? -1 : 0;
}

static json_t *json_lineno(int32_t n)
{
	return n < 0 ? json_null() : json_integer(n);
}

static json_t *line_json(const struct diff_line *line)
{
	char origin[2] = { line->origin, '\0' };
	json_t *obj = json_pack("{s:s, s:o, s:o, s:o}", "origin", origin,
				"old_lineno", json_lineno(line->old_lineno),
				"new_lineno", json_lineno(line->new_lineno),
				"content", utf8_jsonn(line->text, line->len));

	if (obj && !utf8_valid(line->text, line->len)) {
		struct buf raw = BUF_INIT;

		base64_encode(&raw, (const unsigned char *)line->text, line->len);
		json_object_set_new(obj, "content_base64", json_stringn(raw.ptr, raw.len));
		buf_release(&raw);
	}
	if (obj && (line->flags & DIFF_LINE_NO_EOL))
		json_object_set_new(obj, "no_newline", json_true());
	return obj;
}

static json_t *hunk_json(const struct diff_file *file, const struct diff_hunk *hunk)
{
	json_t *lines = json_array();
	uint32_t i;

	for (i = 0; i < hunk->nlines; i++)
		json_array_append_new(lines, line_json(&file->lines[hunk->first_line + i]));
	return json_pack("{s:o, s:i, s:i, s:i, s:i, s:o}",
			 "header", utf8_jsonn(hunk->header, hunk->header_len),
			 "old_start", (json_int_t)hunk->old_start, "old_lines", (json_int_t)hunk->old_lines,
			 "new_start", (json_int_t)hunk->new_start, "new_lines", (json_int_t)hunk->new_lines,
			 "lines", lines);
}

static json_t *file_json(const struct diff_file *file)
{
	json_t *hunks = json_array(), *obj;
	uint32_t i;

	for (i = 0; i < file->nhunks; i++)
		json_array_append_new(hunks, hunk_json(file, &file->hunks[i]));
	obj = json_pack("{s:o, s:o, s:s, s:b, s:i, s:i, s:o, s:o, s:i, s:o}",
			 "path", utf8_jsonn(file->path, strlen(file->path)),
			 "old_path", file->status == DIFF_ADDED ? json_null() :
				utf8_jsonn(file->old_path, strlen(file->old_path)),
			 "status", diff_status_name(file->status),
			 "binary", (file->flags & DIFF_FILE_BINARY) != 0,
			 "additions", (json_int_t)file->additions,
			 "deletions", (json_int_t)file->deletions,
			 "old_mode", file->old_mode ? json_sprintf("%06o", file->old_mode) : json_null(),
			 "new_mode", file->new_mode ? json_sprintf("%06o", file->new_mode) : json_null(),
			 "similarity", (json_int_t)file->similarity,
			 "hunks", hunks);
	if (obj)
		json_object_set_new(obj, "unmerged", file->conflict ?
				    json_string(diff_conflict_code(file->conflict)) : json_null());
	return obj;
}

static int dump(json_t *value, struct buf *out)
{
	char *text = value ? json_dumps(value, JSON_COMPACT) : NULL;

	json_decref(value);
	if (!text)
		return -1;
	buf_puts(out, text);
	free(text);
	return 0;
}

static int print_json(struct repo *repo, struct target *t, struct diff *diff, struct buf *out)
{
	json_t *head = json_pack("{s:s, s:s?, s:s, s:s?, s:{s:s, s:s?, s:s, s:s?, s:s}}",
				 "repo", repo->name, "workdir", repo->workdir, "branch", repo->branch,
				 "in_progress", diff->in_progress,
				 "target", "base", t->base_label, "base_oid", *t->base_oid ? t->base_oid : NULL,
				 "head", t->head_label, "head_oid", *t->head_oid ? t->head_oid : NULL,
				 "description", t->description);
	size_t i;

	if (dump(head, out) < 0)
		return -1;
	out->len--;  /* reopen the object to stream the files into it */
	buf_puts(out, ",\"files\":[\n");
	for (i = 0; i < diff->nfiles; i++) {
		if (diff_file_load(diff, i) < 0)
			return -1;
		if (i)
			buf_puts(out, ",\n");
		if (dump(file_json(&diff->files[i]), out) < 0 || write_out(out) < 0)
			return -1;
	}
	buf_printf(out, "\n],\"totals\":{\"files\":%zu,\"additions\":%llu,\"deletions\":%llu}}\n",
		   diff->nfiles, (unsigned long long)diff->additions, (unsigned long long)diff->deletions);
	return write_out(out);
}

const struct command_help diff_help = {
	"diff",
	"revline diff [TARGET] [--stat | --name-status | --json]",
	"print the diff that revline reviews",
	"Prints the diff of the target as unified text (the default), as git's stat,\n"
	"as name-status lines (U for an unmerged path) or as JSON (in_progress: a\n"
	"merge, rebase, ... git has in progress; per file: path, old_path, status,\n"
	"binary, additions, deletions, unmerged (UU, AA, DU, ...) and hunks with\n"
	"their lines and line numbers).\n",
};

int cmd_diff(int argc, char **argv)
{
	struct target_spec spec = { 0 };
	int format = FORMAT_PATCH;      /* enum diff_format */
	const struct option options[] = {
		OPT_TARGET(&spec),
		OPT_SET_INT(0, "stat", &format, FORMAT_STAT, "a line per file with a bar of its changes"),
		OPT_SET_INT(0, "name-status", &format, FORMAT_NAME_STATUS, "a status letter and the path(s) per file"),
		OPT_SET_INT(0, "json", &format, FORMAT_JSON, "print JSON"),
		OPT_END(),
	};
	struct target target = { 0 };
	struct repo *repo = NULL;
	struct diff *diff = NULL;
	struct buf out = BUF_INIT;
	int n, rc = 0;

	if ((n = parse_options(argc, argv, options, &diff_help)) < 0)
		return parse_options_exit(n);
	if (!cli_targets(&spec, n, argv, &diff_help))
		return 2;
	if ((rc = cli_open(&repo, &target, &spec)) != 0)
		return rc;
	if (repo_diff(&diff, repo, &target) < 0) {
		cli_error("%s", error_message());
		rc = 3;
		goto done;
	}
	switch (format) {
	case FORMAT_PATCH: rc = print_patch(diff, &out); break;
	case FORMAT_STAT: rc = print_stat(diff, &out); break;
	case FORMAT_NAME_STATUS: rc = print_name_status(diff, &out); break;
	case FORMAT_JSON: rc = print_json(repo, &target, diff, &out); break;
	}
	if (rc < 0) {
		cli_error("%s", error_status() ? error_message() : "cannot write the output");
		rc = 3;
	}
	if (fflush(stdout) != 0)
		rc = 3;
done:
	buf_release(&out);
	diff_free(diff);
	target_release(&target);
	repo_free(repo);
	return rc;
}
