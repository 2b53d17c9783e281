/* revline check: the review, headless, streaming as rules settle. */
#include "commands.h"
#include "config.h"
#include "fixdetect.h"
#include "interrupt.h"
#include "models.h"
#include "report.h"
#include "usage.h"
#include "status.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum check_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_MARKDOWN, FORMAT_RDJSONL, FORMAT_QUICKFIX, FORMAT_PROMPT };

struct check_args {
	struct target_spec spec;
	struct check_options opts;
	int format;              /* enum check_format */
	const char *output;
	int fail_on;            /* a severity, or -1 for never */
	struct string_list rule_dirs, rule_ids;
	bool show_unverified;
	bool show_suppressed;
	bool wait_fixes;        /* --wait-fix-detection */
	bool no_fixes;          /* --no-fix-detection */
	bool allow_partial;     /* --allow-partial */
	bool yes;               /* --yes: whatever the estimate */
	int concurrency, retries;       /* from the flags; 0 and -1 when not given */
	double timeout;                 /* 0 when not given */
	double deadline;                /* 0 when not given */
	char *store_error;              /* why the database would not open */
};

const struct command_help check_help = {
	"check",
	"revline check [TARGET] [--format FORMAT] [--output FILE] [--fail-on SEVERITY] ...",
	"review the diff against the rules, headless",
	"Reviews the target's diff against every rule that applies, one LLM call per\n"
	"rule (local pattern rules run offline), many at once. When the repository\n"
	"has rules of its own, the built-in LLM rules do not run (revline.builtinRules;\n"
	"'revline rules' says which run). Text output streams a line per rule as it\n"
	"settles, with its findings, then the merged report.\n"
	"Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 for\n"
	"usage or configuration errors, 3 when the check failed as a whole (no rule\n"
	"could run, or the report could not be written), 4 when its results could\n"
	"not be stored (full, read-only, damaged or locked database: they are\n"
	"printed all the same, and stderr says what to do), 5 when its --deadline\n"
	"passed before every rule settled, 6 when the review is incomplete: a rule\n"
	"errored, timed out or was skipped, or a rule file is broken\n"
	"(--allow-partial or revline.allowPartial accepts an incomplete review: 3\n"
	"for rules that could not run, 5 and 6 are then 0), 130 when Ctrl-C\n"
	"(SIGINT) and 143 when SIGTERM cancelled it (129: SIGHUP). Which wins: a\n"
	"signal's status; then 1, whatever else failed; then 3, 5, 6; then 4.\n",
};

static bool fail_on_arg(int *out, const char *value)
{
	enum severity s;

	if (!value)
		return true;
	if (!strcmp(value, "none")) {
		*out = -1;
		return true;
	}
	if (!severity_parse(&s, value)) {
		cli_error("--fail-on takes critical, major, minor, nitpick or none, not '%s'", value);
		return false;
	}
	*out = (int)s;
	return true;
}

static int parse_args(struct check_args *a, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", "sarif", "markdown", "rdjsonl", "quickfix", "prompt", NULL };
	const char *fail_on = NULL;
	const struct option options[] = {
		OPT_TARGET(&a->spec),
		OPT_CHOICE(0, "format", &a->format, "FORMAT", formats, "text (streams), json, sarif, markdown, rdjsonl (reviewdog), quickfix or prompt (for an agent)"),
		OPT_STRING(0, "output", &a->output, "FILE", "write the report to FILE (replaced when complete)"),
		OPT_STRING(0, "fail-on", &fail_on, "SEVERITY",
			   "exit 1 when a finding is this severe or more (default major; none)"),
		OPT_BOOL(0, "show-unverified", &a->show_unverified, "also show findings whose evidence was not found"),
		OPT_STRING_LIST(0, "rule", &a->rule_ids, "ID", "run only this rule (repeatable)"),
		OPT_BOOL(0, "no-cache", &a->opts.no_cache, "ask the LLM again even when the answer is cached"),
		OPT_INTEGER(0, "concurrency", &a->concurrency, "N", 1, 64, "requests at once (default 5)"),
		OPT_SECONDS(0, "timeout", &a->timeout, "S",
			    "seconds a streamed answer may stall (no byte); grows with the request (default 120)"),
		OPT_INTEGER(0, "retries", &a->retries, "N", 0, 10, "further attempts after a failed request (default 2)"),
		OPT_SECONDS(0, "deadline", &a->deadline, "S",
			    "end the check after S seconds: what is still running times out, what arrived is kept"),
		OPT_BOOL(0, "allow-partial", &a->allow_partial,
			 "an incomplete review (a rule that did not run) does not exit 6"),
		OPT_BOOL('y', "yes", &a->yes, "run even when the estimate is over revline.confirmTokens"),
		OPT_BOOL(0, "show-suppressed", &a->show_suppressed, "also show findings marked false positive before"),
		OPT_BOOL_ONE_OF(1, 0, "wait-fix-detection", &a->wait_fixes,
				"run fix detection before exiting and report it"),
		OPT_BOOL_ONE_OF(1, 0, "no-fix-detection", &a->no_fixes,
				"do not look for fixes of the previous check's violations"),
		OPT_RULE_DIRS(&a->rule_dirs, &a->opts.no_builtin),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &check_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!cli_targets(&a->spec, n, argv, &check_help))
		return 2;
	return fail_on_arg(&a->fail_on, fail_on) ? 0 : 2;
}

/* The progress line, on stderr, only when it is a terminal. */
static void progress(const struct check *c, bool clear)
{
	size_t i, settled = 0, running = 0, n = check_nresults(c);
	long streamed = 0;

	if (!isatty(STDERR_FILENO))
		return;
	if (clear) {
		fputs("\r\033[K", stderr);
		return;
	}
	for (i = 0; i < n; i++) {
		enum rule_status s = check_result(c, i)->status;

		settled += rule_status_settled(s);
		running += s == RULE_RUNNING;
		streamed += s == RULE_RUNNING ? check_rule_streamed(c, i) : 0;
	}
	fprintf(stderr, "\r\033[Krevline: %zu/%zu rules, %zu running", settled, n, running);
	if (streamed)
		fprintf(stderr, " (%ld tokens received)", streamed);
	fprintf(stderr, ", %.1fs", (double)check_duration_ms(c) / 1000.0);
	fflush(stderr);
}

/* Said the moment it happens; the exit status (4) says it again at the end. */
static void store_warn(const char *why)
{
	cli_error("the results are not stored: %s; the review goes on and is only printed", why);
}

static void drive(struct check *c, FILE *out, const struct check_args *a, const struct report_options *ro)
{
	struct check_event ev;
	bool cancelled = false;

	for (;;) {
		while (check_next_event(c, &ev)) {
			if (ev.kind == CHECK_DEPENDENCIES && a->format == FORMAT_TEXT) {
				progress(c, true);
				report_text_deps(out, c);
			}
			if (ev.kind == CHECK_RULE_SETTLED && a->format == FORMAT_TEXT) {
				progress(c, true);
				report_text_rule(out, c, ev.rule, ro);
			}
			if (ev.kind == CHECK_STORE_FAILED) {
				progress(c, true);
				store_warn(check_store_error(c));
			}
		}
		if (check_done(c))
			break;
		if (interrupt_signal() && !cancelled) {
			cancelled = true;
			progress(c, true);
			fprintf(stderr, "revline: %s: cancelling; results that arrived are kept (exit status %d)\n",
				interrupt_name(), 128 + interrupt_signal());
			check_cancel(c);
			continue;
		}
		progress(c, false);
		check_wait(c, 200);
	}
	progress(c, true);
}

/* What is wrong in the rule files, before the review: a broken rule is skipped, and the check is partial. */
static void rules_problems(const struct rule_set *rules)
{
	size_t i;

	for (i = 0; i < rules->nproblems; i++)
		rule_problem_print(stderr, &rules->problems[i]);
}

/* Whether a finding shown reaches --fail-on. */
static bool fails_on(const struct check *c, const struct check_args *a, const struct report_options *ro)
{
	const struct report *rep = check_report(c);
	size_t i;

	for (i = 0; a->fail_on >= 0 && i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], ro) && (int)rep->findings[i].severity >= a->fail_on)
			return true;
	return false;
}

/*
 * The exit status, most pressing first: the signal that cancelled the
 * check; a finding at --fail-on, whatever else failed (a hook refuses on
 * it even when some rules did not run); a review that is not whole,
 * unless --allow-partial accepts it; results not stored.
 */
static int fail_status(const struct check *c, const struct check_args *a, const struct report_options *ro)
{
	bool whole = a->opts.allow_partial;

	if (interrupt_signal())
		return 128 + interrupt_signal();
	if (fails_on(c, a, ro))
		return 1;
	if (!whole && !strcmp(check_status(c), "failed"))
		return 3;
	if (!whole && check_deadline_passed(c))
		return 5;
	if (!whole && !strcmp(check_status(c), "partial"))
		return 6;
	return check_stored(c) ? 0 : 4;
}

int tokens_budget(struct buf *why, long tokens, const struct llm_config *llm, long limit, const char *what)
{
	const struct model_info *info;
	char count[32], most[32], cost[32], price_text[256];
	double price;

	if (limit <= 0 || llm->provider == PROVIDER_NONE || tokens <= limit)
		return 0;
	models_lookup(&info, llm->models, provider_name(llm->provider), llm->map_model);
	usage_count_text(count, sizeof(count), tokens);
	usage_count_text(most, sizeof(most), limit);
	price = models_cost(info, tokens, 0, 0, 0);
	usage_cost_text(cost, sizeof(cost), price);
	if (price < 0)
		snprintf(price_text, sizeof(price_text), "%s's price is not known", llm->map_model);
	else
		snprintf(price_text, sizeof(price_text), "%s of input at %s's price", cost, llm->map_model);
	return buf_printf(why, "%s would send about %s tokens (%s), over revline.confirmTokens (%s): "
			  "nothing was sent", what, count, price_text, most) < 0 ? error_nomem() : 1;
}

int check_budget(struct buf *why, struct check *c, const struct llm_config *llm, long limit)
{
	long tokens;

	if (limit <= 0 || llm->provider == PROVIDER_NONE)
		return 0;
	if (check_estimate(&tokens, c) < 0)
		return error_status();
	return tokens_budget(why, tokens, llm, limit, "this check");
}

/*
 * revline.confirmTokens: a check whose map requests would send more is
 * refused with the estimate, its cost at the map model's price, and how to
 * go on. 0 to go on, 2 when refused, 3 when it cannot be estimated.
 */
static int confirm(struct check *c, const struct check_args *a, const struct llm_config *llm)
{
	struct buf why = BUF_INIT;
	int rc;

	if (a->yes)
		return 0;
	rc = check_budget(&why, c, llm, a->opts.confirm_tokens);
	if (rc < 0)
		cli_error("%s", error_message());
	else if (rc > 0)
		cli_error("%s; run it with --yes, or raise revline.confirmTokens", why.ptr);
	buf_release(&why);
	return rc < 0 ? (error_status() == RL_ECONFIG ? 2 : 3) : rc > 0 ? 2 : 0;
}

static int write_format(FILE *out, struct check *c, struct repo *repo, struct target *t,
			const struct check_args *a, const struct report_options *ro)
{
	switch (a->format) {
	case FORMAT_TEXT: report_text_end(out, c, ro); return ferror(out) ? -1 : 0;
	case FORMAT_JSON: return report_json(out, c, repo, t, ro);
	case FORMAT_SARIF: return report_sarif(out, c, repo, ro);
	case FORMAT_MARKDOWN: return report_markdown(out, c, repo, t, ro);
	case FORMAT_RDJSONL: return report_rdjsonl(out, c, ro);
	case FORMAT_QUICKFIX: return report_quickfix(out, c, ro);
	case FORMAT_PROMPT: return report_prompt(out, c, ro);
	}
	return -1;
}

/* --output FILE is written beside itself and renamed when complete. */
static FILE *output_open(const char *path, char **tmp)
{
	int fd;

	*tmp = NULL;
	if (!path)
		return stdout;
	if (asprintf(tmp, "%s.XXXXXX", path) < 0)
		return NULL;
	if ((fd = mkstemp(*tmp)) < 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return fdopen(fd, "w");
}

static int output_close(FILE *out, const char *path, char *tmp, bool ok)
{
	int rc = 0;

	if (out == stdout)
		return fflush(stdout) == 0 ? 0 : -1;
	if (fclose(out) != 0 || !ok || rename(tmp, path) != 0) {
		if (ok)
			cli_error("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		rc = -1;
	}
	free(tmp);
	return rc;
}

/* The settings, then the flags, which win. */
static int settings_load(struct check_args *a, struct config *config)
{
	if (check_options_load(&a->opts, config) < 0) {
		cli_error("%s", error_message());
		return -1;
	}
	if (a->concurrency)
		a->opts.sched.concurrency = a->concurrency;
	if (a->timeout > 0)
		a->opts.sched.timeout = a->timeout;
	if (a->deadline > 0)
		a->opts.sched.deadline = a->deadline;
	if (a->retries >= 0)
		a->opts.sched.retries = a->retries;
	if (a->allow_partial)
		a->opts.allow_partial = true;
	return 0;
}

static int setup(struct check_args *a, struct repo *repo, struct config **config,
		 struct llm_config *llm, struct store **store)
{
	struct buf path = BUF_INIT;

	if (config_open(config, repo) < 0 || llm_config_load(llm, *config) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	if (store_default_path(&path, *config) < 0) {
		cli_error("%s", error_message());
		buf_release(&path);
		return 2;
	}
	/* A database that will not open (damaged, locked, read-only, full) does not stop the review. */
	if (store_open(store, path.ptr) < 0 || store_author_load(*store, *config) < 0) {
		if (!(a->store_error = strdup(error_message()))) {
			buf_release(&path);
			return 2;
		}
		store_warn(a->store_error);
	}
	buf_release(&path);
	if (settings_load(a, *config) < 0)
		return 2;
	a->opts.llm = llm;
	a->opts.store = *store;
	a->opts.store_error = a->store_error;
	a->opts.rule_dirs = a->rule_dirs.items;
	a->opts.nrule_dirs = a->rule_dirs.count;
	a->opts.rule_ids = a->rule_ids.items;
	a->opts.nrule_ids = a->rule_ids.count;
	a->opts.show_unverified = a->show_unverified;
	a->opts.show_suppressed = a->show_suppressed;
	return 0;
}

static int run(struct check_args *a, struct repo *repo, struct target *target)
{
	struct report_options ro = { .show_unverified = a->show_unverified, .show_suppressed = a->show_suppressed };
	struct fixdetect *fixes = NULL;
	struct llm_config llm = { 0 };
	struct config *config = NULL;
	struct store *store = NULL;
	struct diff *diff = NULL;
	struct check *c = NULL;
	char *tmp = NULL;
	FILE *out = NULL;
	int rc, error;

	if ((rc = setup(a, repo, &config, &llm, &store)) != 0)
		goto done;
	if (repo_diff(&diff, repo, target) < 0 || check_new(&c, repo, target, diff, &a->opts) < 0) {
		cli_error("%s", error_message());
		rc = 3;
		goto done;
	}
	if ((rc = confirm(c, a, &llm)) != 0)
		goto done;
	if (!(out = output_open(a->output, &tmp))) {
		rc = 2;
		goto done;
	}
	ro.color = out == stdout && isatty(STDOUT_FILENO) && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	if ((error = check_start(c)) < 0) {
		cli_error("%s", error_message());
		output_close(out, a->output, tmp, false);
		rc = error == RL_EUSAGE || error == RL_ECONFIG ? 2 : 3;
		goto done;
	}
	rules_problems(check_rules(c));
	interrupt_catch(true);
	drive(c, out, a, &ro);
	interrupt_catch(false);
	if (check_deadline_passed(c))
		cli_error("the check's deadline of %g s passed: the rules it cut are marked timeout, "
			  "what arrived is kept%s", a->opts.sched.deadline,
			  a->opts.allow_partial ? " (allowed by --allow-partial)" : " (exit status 5)");
	/* Fix detection reads the check back from the store: only a check stored whole, not cancelled. */
	if (interrupt_signal())
		a->no_fixes = true;
	if (a->wait_fixes && check_stored(c) && !a->no_fixes) {
		if (detect_fixes_run(&fixes, store, check_id(c), &llm, &a->opts.sched, true) < 0)
			cli_error("fix detection: %s", error_message());
		ro.fixes = fixes;
	}
	ro.store = store;
	ro.workdir = repo->workdir;
	error = write_format(out, c, repo, target, a, &ro);
	rc = output_close(out, a->output, tmp, error == 0) < 0 ? 3 : fail_status(c, a, &ro);
	/* The answer is out; fix detection goes on without holding it. */
	if (!a->wait_fixes && !a->no_fixes && check_stored(c))
		detect_fixes_spawn(check_id(c));
done:
	fixdetect_free(fixes);
	check_free(c);
	diff_free(diff);
	store_close(store);
	llm_config_release(&llm);
	config_free(config);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct check_args a = { .fail_on = SEV_MAJOR, .retries = -1 };
	struct target target = { 0 };
	struct repo *repo = NULL;
	int rc;

	if ((rc = parse_args(&a, argc, argv)) != 0)
		goto done;
	if ((rc = cli_open(&repo, &target, &a.spec)) != 0)
		goto done;
	rc = run(&a, repo, &target);
done:
	target_release(&target);
	repo_free(repo);
	free(a.rule_dirs.items);
	free(a.rule_ids.items);
	free(a.store_error);
	return rc < 0 ? 0 : rc;
}
