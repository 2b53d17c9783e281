/* revline detect-fixes CHECK_ID: which violations of the check before it were fixed, and how. */
#include "commands.h"
#include "config.h"
#include "fixdetect.h"
#include "status.h"
#include "term.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run fix detection for a check to the end (for this command and --wait-fix-detection). */
int detect_fixes_run(struct fixdetect **out, struct store *store, int64_t check_id,
		     struct llm_config *llm, const struct sched_options *sched, bool once)
{
	struct fixdetect_options opts = { .llm = llm, .sched = *sched, .once = once };
	struct fixdetect_event ev;
	int error;

	if ((error = fixdetect_new(out, store, check_id, &opts)) < 0 ||
	    (error = fixdetect_start(*out)) < 0)
		return error;
	while (!fixdetect_done(*out)) {
		while (fixdetect_next_event(*out, &ev))
			;
		if ((error = fixdetect_wait(*out, 1000)) < 0)
			return error;
	}
	return 0;
}

/*
 * Start `revline detect-fixes --once CHECK_ID` detached (its own session,
 * output to /dev/null), so that the check's answer never waits for it.
 */
void detect_fixes_spawn(int64_t check_id)
{
	char id[32];
	pid_t pid;
	int null;

	snprintf(id, sizeof(id), "%lld", (long long)check_id);
	fflush(NULL);
	if ((pid = fork()) < 0)
		return;
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return;
	}
	/* The middle process leaves at once: the detector is nobody's child. */
	if (setsid() < 0 || fork() != 0)
		_exit(0);
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	execl("/proc/self/exe", "revline", "detect-fixes", "--once", id, (char *)NULL);
	_exit(127);
}

void detect_fixes_print(FILE *out, const struct fixdetect *fd)
{
	size_t i;

	if (!fixdetect_previous(fd)) {
		fputs("fix detection: no earlier check on this branch to compare with\n", out);
		return;
	}
	if (fixdetect_elsewhere(fd)) {
		fprintf(out, "fix detection against check %lld: another run has it (running or done); "
			"'revline detect-fixes ID' runs it again\n", (long long)fixdetect_previous(fd));
		return;
	}
	fprintf(out, "fix detection against check %lld (%ld s earlier): %zu violation%s, %zu fixed",
		(long long)fixdetect_previous(fd), fixdetect_seconds(fd), fixdetect_count(fd),
		fixdetect_count(fd) == 1 ? "" : "s", fixdetect_fixed(fd));
	if (fixdetect_errors(fd))
		fprintf(out, ", %zu failed", fixdetect_errors(fd));
	fputc('\n', out);
	for (i = 0; i < fixdetect_count(fd); i++) {
		const struct violation *v = fixdetect_violation(fd, i);

		/* A rule's id, the model's words and a server's errors: through term_*. */
		fputs("  ", out);
		term_pad(out, v->rule_id, 30);
		fprintf(out, " %-9s", outcome_name(v->outcome));
		if (v->fix_type)
			term_printf(out, " %s", v->fix_type);
		if (v->method)
			term_printf(out, " (%s)", v->method);
		fputc('\n', out);
		if (v->error || v->explanation)
			term_printf(out, "      %s\n", v->error ? v->error : v->explanation);
	}
}

json_t *detect_fixes_json(const struct fixdetect *fd)
{
	json_t *list = json_array();
	size_t i, k;

	for (i = 0; i < fixdetect_count(fd); i++) {
		const struct violation *v = fixdetect_violation(fd, i);
		json_t *files = json_array();

		for (k = 0; k < v->nfiles; k++)
			json_array_append_new(files, utf8_json(v->files[k]));
		json_array_append_new(list, json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:I}",
			"rule_id", utf8_json(v->rule_id), "rule_path", utf8_json(v->rule_path),
			"outcome", outcome_name(v->outcome), "fix_type", utf8_json(v->fix_type),
			"method", utf8_json(v->method), "explanation", utf8_json(v->explanation),
			"error", utf8_json(v->error), "files", files, "fix_id", (json_int_t)v->fix_id));
	}
	return json_pack("{s:I, s:b, s:o, s:I, s:I, s:o}", "run_id", (json_int_t)fixdetect_run_id(fd),
			 "elsewhere", fixdetect_elsewhere(fd),
			 "previous_check_id", fixdetect_previous(fd) ? json_integer(fixdetect_previous(fd)) :
				json_null(),
			 "seconds_between_checks", (json_int_t)fixdetect_seconds(fd),
			 "fixed", (json_int_t)fixdetect_fixed(fd), "violations", list);
}

const struct command_help detect_fixes_help = {
	"detect-fixes",
	"revline detect-fixes CHECK_ID [--json] [--once]",
	"find which violations of the check before CHECK_ID were fixed, and how",
	"Compares the check with the previous one on the same branch: for each rule\n"
	"that needed attention then, was it fixed by a code change, by changing the\n"
	"rule, or by deleting the rule? What needs no judgement is decided without\n"
	"the LLM; the rest is asked, in parallel. `revline check` starts this in the\n"
	"background after each check (with --once, so that clients sharing one\n"
	"database run it once per pair of checks); it can be run again by hand.\n",
};

int cmd_detect_fixes(int argc, char **argv)
{
	struct sched_options sched;
	struct llm_config llm = { 0 };
	struct config *config = NULL;
	struct store *store = NULL;
	struct fixdetect *fd = NULL;
	struct repo *repo = NULL;
	struct buf path = BUF_INIT;
	int64_t check_id = 0;
	bool json = false, once = false;
	const struct option options[] = { OPT_JSON(&json), OPT_BOOL(0, "once", &once, "do nothing when another run has the pair of checks (running or done)"), OPT_END() };
	int n, rc = 0;

	if ((n = parse_options(argc, argv, options, &detect_fixes_help)) < 0)
		return parse_options_exit(n);
	if (!parse_options_at_most(n, argv, 1, &detect_fixes_help) ||
	    (n == 1 && !cli_id(&check_id, argv[0], "check", "revline history")))
		return 2;
	if (!check_id) {
		cli_error("detect-fixes needs a check id (see 'revline history')");
		return 2;
	}
	repo_open(&repo, NULL);
	if (config_open(&config, repo) < 0 || llm_config_load(&llm, config) < 0 ||
	    sched_options_load(&sched, config) < 0 ||
	    store_default_path(&path, config) < 0 || store_open(&store, path.ptr) < 0) {
		cli_error("%s", error_message());
		rc = 2;
		goto done;
	}
	if (detect_fixes_run(&fd, store, check_id, &llm, &sched, once) < 0) {
		cli_error("%s", error_message());
		rc = error_status() == RL_ENOTFOUND ? 2 : 3;
		goto done;
	}
	if (json) {
		json_t *doc = detect_fixes_json(fd);

		json_object_set_new(doc, "check_id", json_integer(check_id));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		detect_fixes_print(stdout, fd);
	}
done:
	fixdetect_free(fd);
	store_close(store);
	llm_config_release(&llm);
	config_free(config);
	repo_free(repo);
	buf_release(&path);
	return rc;
}
