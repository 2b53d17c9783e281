/* The project's own standards for its coding agents, read as context (standards.h). */
#include "standards.h"
#include "config.h"
#include "repo.h"
#include "status.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX (16 * 1024)
#define TOTAL_MAX (32 * 1024)
#define READ_MAX (1024 * 1024)
#define CURSOR_RULES_MAX 20

static const char *const fixed_files[] = {
	"AGENTS.md", "CLAUDE.md", ".cursorrules", ".github/copilot-instructions.md",
};

int standards_enabled(bool *out, struct config *config)
{
	int error = config_get_bool(out, config, "revline.projectStandards");

	if (error == RL_ENOTFOUND) {
		*out = true;
		return 0;
	}
	return error;
}

static int problem(struct standards *s, const char *fmt, const char *path, const char *why)
{
	struct buf text = BUF_INIT;
	int error = buf_printf(&text, fmt, path, why);

	return error ? error : strings_take(&s->problems, buf_detach(&text));
}

/* One file, cut to what is left of the budget; a file that is not there is no problem. */
static int read_one(struct standards *s, struct buf *all, struct repo *repo, const char *path)
{
	struct buf text = BUF_INIT;
	size_t room = TOTAL_MAX > all->len ? TOTAL_MAX - all->len : 0, keep;
	int error = repo_read_workdir(&text, repo, path, READ_MAX);

	if (error == RL_ENOTFOUND) {
		error_clear();
		error = 0;
		goto done;
	}
	if (error < 0) {
		error = error == RL_ENOMEM ? error : problem(s, "%s: not read (%s)", path, error_message());
		error_clear();
		goto done;
	}
	keep = text.len < FILE_MAX ? text.len : FILE_MAX;
	if (keep > room)
		keep = room;
	if (!keep) {
		error = problem(s, "%s: left out (%s)", path, "the project standards' 32 KB are spent");
		goto done;
	}
	if (keep < text.len && (error = problem(s, "%s: %s", path, "cut to fit (16 KB a file, 32 KB in all)")) < 0)
		goto done;
	if ((error = buf_printf(all, "%s## %s\n\n", all->len ? "\n\n" : "", path)) < 0 ||
	    (error = buf_put(all, text.ptr, keep)) < 0 ||
	    (error = strings_add(&s->files, path)) < 0)
		goto done;
done:
	buf_release(&text);
	return error;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .mdc files of .cursor/rules in the working tree, by name. */
static int cursor_rules(struct strings *out, struct repo *repo)
{
	struct buf dir = BUF_INIT;
	struct dirent *e;
	DIR *d;
	int error = 0;

	if (!repo->workdir || buf_printf(&dir, "%s.cursor/rules", repo->workdir) < 0)
		return repo->workdir ? error_nomem() : 0;
	if ((d = opendir(dir.ptr))) {
		while (!error && (e = readdir(d))) {
			size_t n = strlen(e->d_name);

			if (n > 4 && !strcmp(e->d_name + n - 4, ".mdc") && e->d_name[0] != '.') {
				buf_clear(&dir);
				error = buf_printf(&dir, ".cursor/rules/%s", e->d_name);
				if (!error)
					error = strings_add(out, dir.ptr);
			}
		}
		closedir(d);
	}
	if (out->count)
		qsort(out->items, out->count, sizeof(*out->items), by_name);
	buf_release(&dir);
	return error;
}

int standards_read(struct standards *out, struct repo *repo)
{
	struct strings mdc = STRINGS_INIT;
	struct buf all = BUF_INIT;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; !error && i < sizeof(fixed_files) / sizeof(fixed_files[0]); i++)
		error = read_one(out, &all, repo, fixed_files[i]);
	if (!error)
		error = cursor_rules(&mdc, repo);
	for (i = 0; !error && i < mdc.count && i < CURSOR_RULES_MAX; i++)
		error = read_one(out, &all, repo, mdc.items[i]);
	if (!error && mdc.count > CURSOR_RULES_MAX)
		error = problem(out, "%s: %s", ".cursor/rules", "only the first 20 rule files are read");
	strings_free(&mdc);
	if (error < 0) {
		buf_release(&all);
		standards_release(out);
		return error;
	}
	out->text = all.len ? buf_detach(&all) : NULL;
	buf_release(&all);
	return 0;
}

void standards_release(struct standards *s)
{
	strings_free(&s->files);
	strings_free(&s->problems);
	free(s->text);
	s->text = NULL;
}
