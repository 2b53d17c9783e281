/* revline diff: the diff model as text, stat, name-status or JSON. */
#include "commands.h"
#include "status.h"
#include "term.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

		buf_putc(out, diff_status_letter(file->status));
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

static void stat_name(struct buf *out, const struct diff_file *file)
{
	if (file->old_path != file->path && strcmp(file->old_path, file->path)) {
		buf_put_quoted(out, "", file->old_path);
		buf_puts(out, " => ");
	}
	buf_put_quoted(out, "", file->path);
}

static int print_stat(struct diff *diff, struct buf *out)
{
	struct buf name = BUF_INIT;
	size_t i, width = 0, most = 0, bar;
	int error = 0;

	for (i = 0; i < diff->nfiles && !error; i++) {
		const struct diff_file *file = &diff->files[i];

		if ((error = diff_file_count(diff, i)) < 0)
			break;
		buf_clear(&name);
		stat_name(&name, file);
		if (name.len > width)
			width = name.len;
		if (file->additions + file->deletions > most)
			most = file->additions + file->deletions;
	}
	if (width > 50)
		width = 50;
	bar = 80 - width - 10;
	for (i = 0; i < diff->nfiles && !error; i++) {
		const struct diff_file *file = &diff->files[i];
		size_t total = file->additions + file->deletions, adds = file->additions, dels = file->deletions;

		buf_clear(&name);
		stat_name(&name, file);
		if (most > bar) {
			adds = (adds * bar + most - 1) / most;
			dels = (dels * bar + most - 1) / most;
		}
		buf_printf(out, " %-*s | ", (int)width, name.ptr);
		if (file->flags & DIFF_FILE_BINARY) {
			buf_puts(out, "Bin\n");
		} else {
			buf_printf(out, "%5zu ", total);
			while (adds--)
				buf_putc(out, '+');
			while (dels--)
				buf_putc(out, '-');
			buf_putc(out, '\n');
		}
		error = write_out(out);
	}
	if (!error)
		buf_printf(out, " %zu file%s changed, %llu insertion%s(+), %llu deletion%s(-)\n",
			   diff->nfiles, diff->nfiles == 1 ? "" : "s",
			   (unsigned long long)diff->additions, diff->additions == 1 ? "" : "s",
			   (unsigned long long)diff->deletions, diff->deletions == 1 ? "" : "s");
	buf_release(&name);
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
	json_t *hunks = json_array();
	uint32_t i;

	for (i = 0; i < file->nhunks; i++)
		json_array_append_new(hunks, hunk_json(file, &file->hunks[i]));
	return json_pack("{s:o, s:o, s:s, s:b, s:i, s:i, s:o, s:o, s:i, s:o}",
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
	json_t *head = json_pack("{s:s, s:s?, s:s, s:{s:s, s:s?, s:s, s:s?, s:s}}",
				 "repo", repo->name, "workdir", repo->workdir, "branch", repo->branch,
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
	"Prints the diff of the target as unified text (the default), as a stat, as\n"
	"name-status lines or as JSON (per file: path, old_path, status, binary,\n"
	"additions, deletions and hunks with their lines and line numbers).\n",
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
