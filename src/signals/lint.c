/* Linters: run them as child processes, read their signals, keep them. */
#include "lint.h"
#include "child.h"
#include "clock.h"
#include "buf.h"
#include "config.h"
#include "glob.h"
#include "history.h"
#include "status.h"
#include "store_signals.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINT_TIMEOUT_MS 120000
#define OUTPUT_MAX (64u << 20)          /* what a linter may print, on either stream */

static const struct {
	const char *name;
	enum signal_format format;
	const char *command;
	const char *patterns;
	bool reads_stderr;
} linters[] = {
#define LINTER_ENTRY(id, name, format, command, patterns, err) { name, format, command, patterns, err },
	LINTERS(LINTER_ENTRY)
#undef LINTER_ENTRY
};

struct job {
	struct lint_result result;
	char **files;
	size_t nfiles;
	struct child *child;            /* stepped by the lint's own member */
	int64_t started_ms;
	bool user;                      /* the command is the user's (revline.lint.NAME) */
};

struct lint {
	char *workdir;
	struct job jobs[LINTER_COUNT];
	size_t njobs;
	struct poll_member member;      /* its pipes in the poll group */
	struct poll_group *own_group;   /* made when lint_start was given none */
};

const char *linter_name(enum linter linter)
{
	return linter < LINTER_COUNT ? linters[linter].name : "?";
}

int linter_of_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < LINTER_COUNT; i++)
		if (!strcmp(linters[i].name, name))
			return (int)i;
	return -1;
}

/* --- choosing the linters ------------------------------------------------- */

bool linter_installed(const char *command)
{
	char *prog = strndup(command, strcspn(command, " \t"));
	struct buf full = BUF_INIT;
	bool found = prog && child_which(&full, prog) == 0;

	if (!found)
		error_clear();
	free(prog);
	buf_release(&full);
	return found;
}

/* The user's command for a linter (git config revline.lint.NAME), or NULL. */
static char *user_command(struct config *config, enum linter linter)
{
	char key[64], *value = NULL;

	snprintf(key, sizeof(key), "revline.lint.%s", linters[linter].name);
	if (!config || config_get(&value, config, key) < 0 || !*value) {
		free(value);
		return NULL;
	}
	return value;
}

char *linter_command(struct config *config, enum linter linter, bool *user)
{
	char *mine = user_command(config, linter);

	*user = mine != NULL;
	return mine ? mine : strdup(linters[linter].command);
}

/* The linter's file patterns ("*.py,*.pyi"), compiled once for the files of a run. */
static int linter_globs(struct glob_list **out, enum linter linter)
{
	char patterns[256], *p, *save = NULL;
	const char *list[16];
	size_t n = 0;

	snprintf(patterns, sizeof(patterns), "%s", linters[linter].patterns);
	for (p = strtok_r(patterns, ",", &save); p && n < sizeof(list) / sizeof(list[0]);
	     p = strtok_r(NULL, ",", &save))
		list[n++] = p;
	return glob_list_new(out, list, n);
}

static int job_files(struct job *job, const char *const *files, size_t nfiles)
{
	struct glob_list *globs = NULL;
	size_t i;
	int error;

	if ((error = linter_globs(&globs, job->result.linter)) < 0)
		return error;
	if (!(job->files = calloc(nfiles ? nfiles : 1, sizeof(char *))))
		error = error_nomem();
	for (i = 0; i < nfiles && !error; i++)
		if (glob_list_matches(globs, files[i]) && !(job->files[job->nfiles++] = strdup(files[i])))
			error = error_nomem();
	glob_list_free(globs);
	job->result.nfiles = job->nfiles;
	return error;
}

static int job_init(struct job *job, enum linter linter, struct config *config,
		    const char *const *files, size_t nfiles)
{
	bool mine;

	job->result.linter = linter;
	job->result.exit_code = -1;
	if (!(job->result.command = linter_command(config, linter, &mine)))
		return error_nomem();
	job->user = mine;
	if (!mine && !linter_installed(job->result.command))
		job->result.status = LINT_NOT_INSTALLED;
	if (job_files(job, files, nfiles) < 0)
		return -1;
	if (job->result.status == LINT_PENDING && !job->nfiles)
		job->result.status = LINT_NO_FILES;
	return 0;
}

int lint_new(struct lint **out, const char *workdir, struct config *config,
	     const char *const *files, size_t nfiles, const char *only)
{
	struct lint *lint = calloc(1, sizeof(*lint));
	int which = only ? linter_of_name(only) : -1, error = 0;
	size_t i;

	*out = NULL;
	if (!lint)
		return error_nomem();
	if (only && which < 0) {
		error = error_set(RL_EUSAGE, "no linter called '%s' (ruff, flake8, mypy, bandit, "
				  "shellcheck, cppcheck)", only);
		goto done;
	}
	if (!(lint->workdir = strdup(workdir))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < LINTER_COUNT; i++) {
		if (which >= 0 && (int)i != which)
			continue;
		if ((error = job_init(&lint->jobs[lint->njobs++], (enum linter)i, config, files, nfiles)) < 0)
			goto done;
	}
	/* ruff does what flake8 does: flake8 only without it. */
	if (which < 0 && lint->jobs[LINT_RUFF].result.status != LINT_NOT_INSTALLED &&
	    lint->jobs[LINT_FLAKE8].result.status == LINT_PENDING)
		lint->jobs[LINT_FLAKE8].result.status = LINT_NO_FILES;
	if (which >= 0 && lint->jobs[0].result.status == LINT_NOT_INSTALLED)
		error = error_set(RL_ECONFIG, "%s is not installed (or set git config revline.lint.%s "
				  "to its command)", only, only);
done:
	if (error < 0) {
		lint_free(lint);
		return error;
	}
	*out = lint;
	return 0;
}

static void job_release(struct job *job)
{
	size_t i;

	child_free(job->child);
	for (i = 0; i < job->nfiles; i++)
		free(job->files[i]);
	free(job->files);
	free(job->result.command);
	free(job->result.message);
	signal_list_release(&job->result.signals);
}

void lint_free(struct lint *lint)
{
	size_t i;

	if (!lint)
		return;
	poll_group_leave(&lint->member);
	poll_group_free(lint->own_group);
	for (i = 0; i < lint->njobs; i++)
		job_release(&lint->jobs[i]);
	free(lint->workdir);
	free(lint);
}

/* --- running them --------------------------------------------------------- */

/* sh -c 'COMMAND "$@"' with the files as the arguments: no quoting to get wrong. */
static int script_of(struct buf *out, const char *command)
{
	const char *at = strstr(command, "{files}");

	if (at)
		return buf_printf(out, "%.*s\"$@\"%s", (int)(at - command), command, at + 7);
	return buf_printf(out, "%s \"$@\"", command);
}

static int job_start(struct job *job, const char *workdir)
{
	struct buf script = BUF_INIT;
	struct child_options opts = {
		.shell_name = "revline-lint", .args = (const char *const *)job->files, .nargs = job->nfiles,
		.dir = workdir, .out_max = OUTPUT_MAX, .err_max = OUTPUT_MAX, .timeout_ms = LINT_TIMEOUT_MS,
	};
	int error;

	if (script_of(&script, job->result.command) < 0)
		return error_nomem();
	opts.shell = script.ptr;
	if ((error = child_start(&job->child, &opts, NULL)) < 0)
		error = error_set(RL_EIO, "cannot run %s: %s", linters[job->result.linter].name, error_message());
	else
		job->result.status = LINT_RUNNING;
	job->started_ms = clock_ms();
	buf_release(&script);
	return error;
}

static void job_fail(struct job *job, enum lint_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(struct job *job, enum lint_status status, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	free(job->result.message);
	job->result.message = buf_detach(&msg);
	job->result.status = status;
}

static int member_fds(void *ctx, struct pollfd *out, int max);
static int member_timeout(void *ctx);
static int member_step(void *ctx, const struct pollfd *fds, int n);

static int member_join(struct lint *lint, struct poll_group *group)
{
	int error;

	if (!group && (error = poll_group_new(&lint->own_group)) < 0)
		return error;
	lint->member.fds = member_fds;
	lint->member.timeout = member_timeout;
	lint->member.step = member_step;
	lint->member.ctx = lint;
	return poll_group_join(group ? group : lint->own_group, &lint->member);
}

int lint_start(struct lint *lint, struct poll_group *group)
{
	size_t i;
	int error;

	if ((error = member_join(lint, group)) < 0)
		return error;

	for (i = 0; i < lint->njobs; i++) {
		struct job *job = &lint->jobs[i];

		if (job->result.status == LINT_PENDING && job_start(job, lint->workdir) < 0)
			job_fail(job, LINT_FAILED, "%s", error_message());
	}
	return 0;
}

/* The first line of what it said on its other stream, for a failure's message. */
static void first_line(char *out, size_t size, const struct buf *text)
{
	size_t n = text->len ? strcspn(text->ptr, "\n") : 0;

	snprintf(out, size, "%.*s", (int)(n < size - 1 ? n : size - 1), text->len ? text->ptr : "");
}

/*
 * What it said, in the linter's format. A user's command may print another
 * format the tool has (ruff check without --output-format json prints its
 * text; with sarif, SARIF): what the linter's format reads nothing of is
 * read as an import would be, its format told from the content, under the
 * linter's name.
 */
static int signals_read(struct job *job, const struct buf *text)
{
	const char *name = linters[job->result.linter].name;
	int error = signals_parse(&job->result.signals, text->ptr ? text->ptr : "", text->len,
				  linters[job->result.linter].format, name);

	if (job->user && (error == RL_EPARSE ||
			  (!error && !job->result.signals.count && job->result.signals.nproblems))) {
		error_clear();
		signal_list_release(&job->result.signals);
		error = signals_parse(&job->result.signals, text->ptr ? text->ptr : "", text->len, -1, name);
	}
	return error;
}

/* It exited: read its signals. */
static void job_finish(struct job *job, const char *workdir)
{
	int reads = linters[job->result.linter].reads_stderr ? 1 : 0;
	const struct buf *out[2] = { child_out(job->child), child_err(job->child) };
	const struct buf *text = out[reads], *other = out[!reads];
	char said[300];

	job->result.duration_ms = clock_ms() - job->started_ms;
	job->result.exit_code = child_exit_code(job->child);
	first_line(said, sizeof(said), other->len ? other : text);
	if (job->result.exit_code == 127 || job->result.exit_code == 126) {
		job_fail(job, LINT_FAILED, "%s could not run: %s", linters[job->result.linter].name, said);
		return;
	}
	if (signals_read(job, text) < 0) {
		job_fail(job, LINT_FAILED, "%s said something unreadable: %s", linters[job->result.linter].name,
			 error_message());
		return;
	}
	signals_relativize(&job->result.signals, workdir, workdir);
	/* Linters exit 1 when they found something; more than that is their own failure. */
	if ((job->result.exit_code < 0 || job->result.exit_code > 1) && !job->result.signals.count) {
		job_fail(job, LINT_FAILED, "%s exited with status %d: %s", linters[job->result.linter].name,
			 job->result.exit_code, said);
		return;
	}
	job->result.status = LINT_DONE;
}

static void job_step(struct job *job, const char *workdir, const struct pollfd *fds, int n)
{
	if (job->result.status != LINT_RUNNING)
		return;
	child_step(job->child, fds, n);
	if (!child_done(job->child))
		return;
	if (job->child->state == CHILD_TIMEOUT) {
		job->result.duration_ms = clock_ms() - job->started_ms;
		job_fail(job, LINT_TIMEOUT, "%s took more than %d s and was stopped",
			 linters[job->result.linter].name, LINT_TIMEOUT_MS / 1000);
		return;
	}
	job_finish(job, workdir);
}

static int member_fds(void *ctx, struct pollfd *out, int max)
{
	struct lint *lint = ctx;
	int n = 0;
	size_t i;

	for (i = 0; i < lint->njobs; i++)
		if (lint->jobs[i].result.status == LINT_RUNNING)
			n += child_fds(lint->jobs[i].child, out + n, max - n);
	return n;
}

static int member_timeout(void *ctx)
{
	struct lint *lint = ctx;
	int t = -1;
	size_t i;

	for (i = 0; i < lint->njobs; i++)
		if (lint->jobs[i].result.status == LINT_RUNNING)
			t = poll_sooner(t, child_timeout(lint->jobs[i].child));
	return t;
}

/* Each child gets its own descriptors back, by their numbers. */
static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct lint *lint = ctx;
	size_t i;

	for (i = 0; i < lint->njobs; i++)
		job_step(&lint->jobs[i], lint->workdir, fds, n);
	return 0;
}

int lint_wait(struct lint *lint, int max_ms)
{
	if (!lint->member.group || lint_done(lint))
		return 0;
	return poll_member_wait(&lint->member, max_ms);
}

bool lint_done(const struct lint *lint)
{
	size_t i;

	for (i = 0; i < lint->njobs; i++)
		if (lint->jobs[i].result.status == LINT_RUNNING || lint->jobs[i].result.status == LINT_PENDING)
			return false;
	return true;
}

void lint_cancel(struct lint *lint)
{
	size_t i;

	for (i = 0; i < lint->njobs; i++) {
		struct job *job = &lint->jobs[i];

		if (job->result.status == LINT_RUNNING) {
			child_cancel(job->child);
			job_fail(job, LINT_FAILED, "%s was stopped", linters[job->result.linter].name);
		} else if (job->result.status == LINT_PENDING) {
			job_fail(job, LINT_FAILED, "%s was not started", linters[job->result.linter].name);
		}
	}
}

size_t lint_count(const struct lint *lint)
{
	return lint->njobs;
}

const struct lint_result *lint_result(const struct lint *lint, size_t index)
{
	return index < lint->njobs ? &lint->jobs[index].result : NULL;
}

/* --- the store ------------------------------------------------------------ */

int lint_store(int64_t *run_id, struct store *store, const char *repo, const char *tool,
	       const char *source, const char *origin, struct signal_list *list)
{
	char *key = history_repo_key(repo);
	int error;

	*run_id = 0;
	if (!key)
		return error_nomem();
	error = store_signals_put(run_id, store, key, tool, source, origin, list);
	free(key);
	return error;
}

int lint_current(struct signal_list *out, struct store *store, const char *repo)
{
	char *key = history_repo_key(repo);
	int error;

	memset(out, 0, sizeof(*out));
	if (!key)
		return error_nomem();
	error = store_signals_current(out, store, key);
	free(key);
	return error;
}

int lint_signal(struct signal *out, struct store *store, const char *repo, int64_t id)
{
	char *key = history_repo_key(repo);
	int error;

	memset(out, 0, sizeof(*out));
	if (!key)
		return error_nomem();
	if ((error = store_signal_get(out, store, key, id)) == RL_ENOTFOUND)
		error = error_set(RL_ENOTFOUND, "no signal %lld in this repository (see 'revline signals --all')",
				  (long long)id);
	free(key);
	return error;
}

/* The signals of one tool, as a list that borrows them (items are not owned). */
static void tool_view(struct signal_list *view, const struct signal_list *all, const char *tool,
		      struct signal *room)
{
	size_t i;

	*view = (struct signal_list){ .format = all->format, .items = room };
	for (i = 0; i < all->count; i++)
		if (!strcmp(all->items[i].tool, tool))
			room[view->count++] = all->items[i];
}

static size_t first_of_tool(const struct signal_list *list, size_t i)
{
	size_t k;

	for (k = 0; k < i && strcmp(list->items[k].tool, list->items[i].tool); k++)
		;
	return k;
}

int lint_import(size_t *count, struct store *store, const char *repo, const char *origin,
		const char *tool, struct signal_list *list)
{
	struct signal *room = calloc(list->count ? list->count : 1, sizeof(*room));
	struct signal_list view;
	int64_t run;
	size_t i, k, n;
	int error = 0;

	*count = 0;
	if (!room)
		return error_nomem();
	if (!list->count) {
		/* Nothing to say is news too: the tool's earlier signals are gone. */
		error = lint_store(&run, store, repo, tool ? tool : signal_format_tool(list->format), "import",
				   origin, list);
		*count = error ? 0 : 1;
	}
	for (i = 0; i < list->count && !error; i++) {
		if (first_of_tool(list, i) != i)
			continue;
		tool_view(&view, list, list->items[i].tool, room);
		/* The input's problems go with its first run. */
		view.problems = *count ? NULL : list->problems;
		view.nproblems = *count ? 0 : list->nproblems;
		if ((error = lint_store(&run, store, repo, list->items[i].tool, "import", origin, &view)) < 0)
			break;
		(*count)++;
		for (k = 0, n = 0; k < list->count; k++)
			if (!strcmp(list->items[k].tool, list->items[i].tool))
				list->items[k].id = room[n++].id;
	}
	free(room);
	return error;
}
