/* revline bench: review quality measured on the repository's own fixes, reversed. */
#include "commands.h"
#include "bench_config.h"
#include "bench_run.h"
#include "caseset.h"
#include "clock.h"
#include "config.h"
#include "glob.h"
#include "interrupt.h"
#include "report_bench.h"
#include "status.h"
#include "store_bench.h"
#include "workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum bench_format { FORMAT_TEXT, FORMAT_JSON };

struct bench_args {
	bool list, resume, yes, no_cache;
	int format;
	const char *since;
	struct string_list paths, exclude, include, compare, rule_dirs, rule_ids;
	int max, seed, tolerance, concurrency, jobs;
	bool no_builtin;
};

/* One configuration: its settings, its run, its results. */
struct bench_side {
	struct bench_config cfg;
	const char *label;
	struct llm_config llm;
	struct check_options opts;
	struct buf key;
	struct bench_report_run report;
	struct score_case *results;
	size_t nresults;
};

const struct command_help bench_help = {
	"bench",
	"revline bench [--list] [--since DATE] [--paths GLOB] [--max N] [--seed N] [--compare CONFIG] ...",
	"measure review quality on the repository's own fixes",
	"Builds a benchmark from the repository's history: each commit that fixed\n"
	"a bug (fix, bug, regression, Fixes #N, a revert; small, touching code, not\n"
	"a merge or a bot's) is a case. The change reviewed is the fix reversed: the\n"
	"fixed tree as the base, the tree before it as the new side, the bug as if\n"
	"it were being introduced, over the fix's code files. A case is caught when\n"
	"a verified finding lies within --tolerance lines (3) of the lines the fix\n"
	"touched; verified findings elsewhere are noise; unverified ones are counted\n"
	"apart. Prints per rule, per severity and overall the catch rate, noise per\n"
	"case, precision, tokens, cost and time. The cases are mined once and kept\n"
	"in the store (mined again when --since, --paths, --max or --seed is given);\n"
	"--list shows them, --exclude drops one. --compare CONFIG (model=M,context=\n"
	"tools|pack|none,effort=E,provider=openai|anthropic,url=URL) runs the\n"
	"configured settings and CONFIG over the same cases (twice: the two CONFIGs)\n"
	"and prints them side by side, paired: a sign test and bootstrap intervals.\n"
	"--jobs N reviews N cases at once. The working tree, the index and the\n"
	"branches are never touched. Ctrl-C stops; --resume goes on where it\n"
	"stopped. Exit status: 0, 2 for usage, configuration or a refused estimate\n"
	"(revline.confirmTokens: --yes), 3 when it failed, 130/143 when a signal\n"
	"stopped it.\n",
};

static int parse_args(struct bench_args *a, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	const struct option options[] = {
		OPT_BOOL(0, "list", &a->list, "list the cases (mining them when there are none yet)"),
		OPT_STRING(0, "since", &a->since, "DATE", "mine fixes committed since DATE (2025-01-31, \"6 months ago\")"),
		OPT_STRING_LIST(0, "paths", &a->paths, "GLOB", "mine fixes of code files matching GLOB (repeatable)"),
		OPT_INTEGER(0, "max", &a->max, "N", 1, 10000, "at most N cases (default 50)"),
		OPT_INTEGER(0, "seed", &a->seed, "N", 0, 2147483647, "which N when more fixes are found (default 0)"),
		OPT_STRING_LIST(0, "exclude", &a->exclude, "COMMIT", "leave this case out, now and later (repeatable)"),
		OPT_STRING_LIST(0, "include", &a->include, "COMMIT", "take an excluded case back (repeatable)"),
		OPT_STRING_LIST(0, "compare", &a->compare, "CONFIG",
				"also run with CONFIG (model=M,context=C,effort=E,provider=P,url=U); twice: the two, side by side"),
		OPT_BOOL(0, "resume", &a->resume, "go on with the last run of this configuration that was stopped"),
		OPT_INTEGER(0, "tolerance", &a->tolerance, "N", 0, 50, "lines around the fix's that still catch it (default 3)"),
		OPT_CHOICE(0, "format", &a->format, "FORMAT", formats, "text or json"),
		OPT_STRING_LIST(0, "rule", &a->rule_ids, "ID", "run only this rule (repeatable)"),
		OPT_BOOL(0, "no-cache", &a->no_cache, "ask the LLM again even when the answer is cached"),
		OPT_INTEGER(0, "concurrency", &a->concurrency, "N", 1, 64, "requests at once, over the cases (default 5)"),
		OPT_INTEGER(0, "jobs", &a->jobs, "N", 1, 16, "cases reviewed at once (default 1)"),
		OPT_BOOL('y', "yes", &a->yes, "run even when the estimate is over revline.confirmTokens"),
		OPT_RULE_DIRS(&a->rule_dirs, &a->no_builtin),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &bench_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!parse_options_at_most(n, argv, 0, &bench_help))
		return 2;
	if (a->compare.count > 2) {
		cli_error("--compare is given at most twice (the configured settings and one CONFIG, or two CONFIGs)");
		return 2;
	}
	if (a->tolerance < 0)
		a->tolerance = SCORE_TOLERANCE;
	if (a->list && (a->compare.count || a->resume)) {
		cli_error("--list only lists the cases: it runs nothing (no --compare or --resume with it)");
		return 2;
	}
	return 0;
}

static bool mining_asked(const struct bench_args *a)
{
	return a->since || a->paths.count || a->max || a->seed;
}

static int mined_with_text(struct buf *out, const struct bench_args *a)
{
	size_t i;

	if (buf_printf(out, "--max %d --seed %d", a->max ? a->max : MINE_MAX_DEFAULT, a->seed) < 0 ||
	    (a->since && buf_printf(out, " --since '%s'", a->since) < 0))
		return error_nomem();
	for (i = 0; i < a->paths.count; i++)
		if (buf_printf(out, " --paths '%s'", a->paths.items[i]) < 0)
			return error_nomem();
	return 0;
}

/* Mine the cases and make them the repository's set. */
static int cases_mine(struct bench_cases *cases, struct mine_stats *stats, struct workspace *ws, int64_t repo_id,
		      const struct bench_args *a, char **mined_with)
{
	struct mine_options o = { 0, a->paths.items, a->paths.count, (size_t)a->max, (uint64_t)a->seed };
	struct buf with = BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < a->paths.count; i++)
		if (glob_check(a->paths.items[i]) < 0) {
			char why[256];

			snprintf(why, sizeof(why), "%s", error_message());
			return error_set(RL_EUSAGE, "--paths '%s': %s", a->paths.items[i], why);
		}
	if ((a->since && (error = mine_since_parse(&o.since, a->since, clock_wall_ms() / 1000)) < 0) ||
	    (error = mined_with_text(&with, a)) < 0 || (error = mine_cases(cases, stats, ws->repo, &o)) < 0 ||
	    (error = caseset_save(ws->store, repo_id, cases, with.ptr)) < 0) {
		buf_release(&with);
		return error;
	}
	*mined_with = buf_detach(&with);
	return 0;
}

/* --exclude and --include, by the commits' first digits. */
static int cases_mark(struct workspace *ws, int64_t repo_id, const struct bench_args *a)
{
	char commit[41];
	size_t i;
	int error;

	for (i = 0; i < a->exclude.count + a->include.count; i++) {
		bool ex = i < a->exclude.count;
		const char *c = ex ? a->exclude.items[i] : a->include.items[i - a->exclude.count];

		if ((error = store_bench_exclude(ws->store, commit, repo_id, c, ex)) < 0)
			return error;
		fprintf(stderr, "revline: case %.12s %s\n", commit, ex ? "excluded" : "included again");
	}
	return 0;
}

/* The set: mined now (asked for, or none stored), else as stored; marks applied. */
static int cases_get(struct bench_cases *cases, struct mine_stats *stats, bool *mined, char **mined_with,
		     struct workspace *ws, int64_t repo_id, const struct bench_args *a)
{
	int error;

	*mined = false;
	if (!mining_asked(a)) {
		if ((error = caseset_load(cases, mined_with, ws->store, repo_id)) < 0)
			return error;
		if (cases->count && !a->exclude.count && !a->include.count)
			return 0;
	}
	if (!cases->count) {
		bench_cases_release(cases);
		free(*mined_with);
		*mined_with = NULL;
		if ((error = cases_mine(cases, stats, ws, repo_id, a, mined_with)) < 0)
			return error;
		*mined = true;
	}
	if (!a->exclude.count && !a->include.count)
		return 0;
	if ((error = cases_mark(ws, repo_id, a)) < 0)
		return error;
	bench_cases_release(cases);
	free(*mined_with);
	return caseset_load(cases, mined_with, ws->store, repo_id);
}

/* A side's settings: as `check` takes them, then its CONFIG. */
static int side_load(struct bench_side *s, struct workspace *ws, const struct bench_args *a, const char *spec)
{
	int error;

	s->label = spec ? spec : "the configured settings";
	if ((spec && (error = bench_config_parse(&s->cfg, spec)) < 0) ||
	    (error = llm_config_load(&s->llm, ws->config)) < 0 ||
	    (error = check_options_load(&s->opts, ws->config)) < 0)
		return error;
	if (spec && (error = bench_config_apply(&s->cfg, &s->llm, &s->opts, ws->config)) < 0)
		return error;
	if (a->concurrency)
		s->opts.sched.concurrency = a->concurrency;
	s->opts.no_cache = a->no_cache;
	s->opts.no_builtin = a->no_builtin;
	s->opts.rule_dirs = a->rule_dirs.items;
	s->opts.nrule_dirs = a->rule_dirs.count;
	s->opts.rule_ids = a->rule_ids.items;
	s->opts.nrule_ids = a->rule_ids.count;
	s->opts.llm = &s->llm;
	s->opts.store = ws->store;
	s->opts.allow_partial = true;
	if (s->llm.provider == PROVIDER_NONE)
		return error_set(RL_ECONFIG, "bench asks a model and none is configured: %s", llm_setup_hint);
	if ((error = bench_config_key(&s->key, spec ? &s->cfg : NULL, &s->llm, &s->opts)) < 0)
		return error;
	return buf_printf(&s->key, " tolerance=%d", a->tolerance) < 0 ? error_nomem() : 0;
}

static void side_release(struct bench_side *s)
{
	bench_run_results_free(s->results, s->nresults);
	score_summary_release(&s->report.summary);
	buf_release(&s->key);
	llm_config_release(&s->llm);
}

/* The cases a side still has to run: all, or on --resume those its stopped run has no outcome for. */
static int side_todo(const struct bench_case ***todo, size_t *ntodo, struct bench_side *s,
		     const struct bench_cases *cases, struct workspace *ws, int64_t repo_id, bool resume)
{
	size_t i, j;
	int error;

	*ntodo = 0;
	if (!(*todo = calloc(cases->count ? cases->count : 1, sizeof(**todo))))
		return error_nomem();
	if (resume) {
		if ((error = store_bench_run_unfinished(ws->store, &s->report.run_id, repo_id, s->key.ptr)) < 0)
			return error;
		if (!s->report.run_id)
			return error_set(RL_EUSAGE, "no stopped run of %s to resume (%s): run revline bench without "
					 "--resume", s->label, s->key.ptr);
		if ((error = bench_run_results(&s->results, &s->nresults, ws->store, s->report.run_id)) < 0)
			return error;
	}
	for (i = 0; i < cases->count; i++) {
		bool done = false;

		for (j = 0; j < s->nresults && !done; j++)
			done = s->results[j].case_id == cases->items[i].id;
		if (!cases->items[i].excluded && !done)
			(*todo)[(*ntodo)++] = &cases->items[i];
	}
	return 0;
}

/* revline.confirmTokens over every case still to run, of every side. */
static int confirm(struct bench_side *sides, size_t nsides, const struct bench_case ***todo, const size_t *ntodo,
		   struct workspace *ws, const struct bench_args *a)
{
	struct buf why = BUF_INIT;
	long total = 0, tokens;
	size_t i, j;
	int rc = 0;

	if (a->yes || sides[0].opts.confirm_tokens <= 0)
		return 0;
	for (i = 0; i < nsides; i++)
		for (j = 0; j < ntodo[i]; j++)
			if (bench_estimate(&tokens, ws->repo, todo[i][j], &sides[i].opts) == 0)
				total += tokens;
	if ((rc = tokens_budget(&why, total, &sides[0].llm, sides[0].opts.confirm_tokens, "this benchmark")) > 0)
		cli_error("%s; run it with --yes, or raise revline.confirmTokens (--max fewer cases costs less)", why.ptr);
	else if (rc < 0)
		cli_error("%s", error_message());
	buf_release(&why);
	return rc ? 2 : 0;
}

/* The run's progress on stderr, when it is a terminal. */
static void progress(const struct bench_run *run, size_t done, size_t of, bool clear)
{
	long longest;
	size_t running = bench_run_running(run, &longest);

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	if (clear)
		;
	else if (running > 1)
		fprintf(stderr, "revline bench: %zu/%zu cases, %zu running, the longest %.1fs", done, of, running,
			(double)longest / 1000.0);
	else
		fprintf(stderr, "revline bench: %zu/%zu cases%s%.1fs", done, of, running ? ", this one " : " ",
			(double)longest / 1000.0);
	fflush(stderr);
}

static void event_show(struct bench_run *run, const struct bench_event *ev, const struct bench_case *const *todo,
		       size_t ntodo, const struct bench_args *a)
{
	if (ev->kind == BENCH_STORE_FAILED)
		cli_error("a case's outcome could not be stored: %s; the run goes on (--resume will not know it)",
			  bench_run_store_error(run));
	if (ev->kind == BENCH_CASE_DONE && a->format == FORMAT_TEXT)
		report_bench_case_text(stdout, todo[ev->index], bench_run_result(run, ev->index), ev->index + 1,
				       ntodo);
	fflush(stdout);
}

/* The cases run (--jobs at once) until done or a signal; 0, or 128 + the signal. */
static int side_drive(struct bench_run *run, const struct bench_case *const *todo, size_t ntodo,
		      const struct bench_args *a)
{
	struct bench_event ev;
	bool cancelled = false;
	size_t done = 0;

	for (;;) {
		while (bench_run_next_event(run, &ev)) {
			progress(run, done, ntodo, true);
			done += ev.kind == BENCH_CASE_DONE;
			event_show(run, &ev, todo, ntodo, a);
		}
		if (bench_run_done(run))
			break;
		if (interrupt_signal() && !cancelled) {
			cancelled = true;
			progress(run, done, ntodo, true);
			fprintf(stderr, "revline: %s: stopping; the %zu case%s done are kept, revline bench --resume "
				"goes on (exit status %d)\n", interrupt_name(), done, done == 1 ? "" : "s",
				128 + interrupt_signal());
			bench_run_cancel(run);
			continue;
		}
		progress(run, done, ntodo, false);
		bench_run_wait(run, 200);
	}
	progress(run, done, ntodo, true);
	return interrupt_signal() ? 128 + interrupt_signal() : 0;
}

static int side_run(struct bench_side *s, const struct bench_case *const *todo, size_t ntodo, struct workspace *ws,
		    int64_t repo_id, const struct bench_args *a)
{
	struct bench_run_options o = { &s->opts, a->tolerance, ws->store, 0, a->jobs };
	struct store_bench_run rec = { 0, s->key.ptr, provider_name(s->llm.provider), s->llm.map_model, "running",
				       (int)ntodo, a->tolerance, 0, 0 };
	struct bench_run *run = NULL;
	int rc;

	if (!s->report.run_id && store_bench_run_begin(ws->store, &s->report.run_id, repo_id, &rec) < 0)
		return -1;
	o.run_id = s->report.run_id;
	if (a->format == FORMAT_TEXT)
		printf("Run %lld, %s: %zu case%s to review\n", (long long)s->report.run_id, s->key.ptr, ntodo,
		       ntodo == 1 ? "" : "s");
	if (bench_run_new(&run, ws->repo, todo, ntodo, &o) < 0)
		return -1;
	interrupt_catch(true);
	rc = side_drive(run, todo, ntodo, a);
	interrupt_catch(false);
	bench_run_free(run);
	if (store_bench_run_end(ws->store, s->report.run_id, rc ? "cancelled" : "done") < 0)
		return -1;
	return rc;
}

/* The side's outcomes read back (those of a resumed run's first part too), summed. */
static int side_score(struct bench_side *s, struct workspace *ws)
{
	size_t i;
	int error;

	bench_run_results_free(s->results, s->nresults);
	s->results = NULL;
	s->nresults = 0;
	if ((error = bench_run_results(&s->results, &s->nresults, ws->store, s->report.run_id)) < 0)
		return error;
	for (i = 0; i < s->nresults; i++)
		if ((error = score_summary_add(&s->report.summary, &s->results[i])) < 0)
			return error;
	s->report.label = s->label;
	s->report.config = s->key.ptr;
	s->report.results = s->results;
	s->report.nresults = s->nresults;
	return 0;
}

/* The cases both sides reviewed, paired. */
static void sides_compare(struct compare *out, const struct bench_side *a, const struct bench_side *b)
{
	struct compare_pair *pairs = calloc(a->nresults ? a->nresults : 1, sizeof(*pairs));
	size_t i, j, n = 0;

	for (i = 0; pairs && i < a->nresults; i++)
		for (j = 0; j < b->nresults; j++) {
			const struct score_case *x = &a->results[i], *y = &b->results[j];

			if (x->case_id != y->case_id || x->outcome == SCORE_ERROR || y->outcome == SCORE_ERROR)
				continue;
			pairs[n++] = (struct compare_pair){ x->outcome == SCORE_CAUGHT, y->outcome == SCORE_CAUGHT,
							    x->noise, y->noise };
		}
	compare_pairs(out, pairs, n, 1);
	free(pairs);
}

static int output(struct bench_side *sides, size_t nsides, const struct bench_cases *cases,
		  const struct bench_args *a)
{
	struct bench_report_run runs[2];
	struct compare cmp;
	int tolerance = a->tolerance;
	size_t i;

	memset(&cmp, 0, sizeof(cmp));
	for (i = 0; i < nsides; i++)
		runs[i] = sides[i].report;
	if (nsides == 2)
		sides_compare(&cmp, &sides[0], &sides[1]);
	if (a->format == FORMAT_JSON)
		return report_bench_json(stdout, cases, runs, nsides, &cmp, tolerance);
	for (i = 0; i < nsides; i++)
		report_bench_run_text(stdout, &runs[i], tolerance);
	if (nsides == 2)
		report_bench_compare_text(stdout, &runs[0], &runs[1], &cmp);
	return fflush(stdout) ? 3 : 0;
}

struct bench_state {
	struct workspace ws;
	int64_t repo_id;
	struct bench_cases cases;
	struct mine_stats mined;
	char *mined_with;
	struct bench_side sides[2];
	size_t nsides;
	const struct bench_case **todo[2];
	size_t ntodo[2];
};

static int sides_prepare(struct bench_state *st, const struct bench_args *a)
{
	size_t i;
	int error;

	st->nsides = a->compare.count ? 2 : 1;
	for (i = 0; i < st->nsides; i++) {
		const char *spec = a->compare.count == 2 ? a->compare.items[i] : i ? a->compare.items[0] : NULL;

		if ((error = side_load(&st->sides[i], &st->ws, a, spec)) < 0 ||
		    (error = side_todo(&st->todo[i], &st->ntodo[i], &st->sides[i], &st->cases, &st->ws,
				       st->repo_id, a->resume)) < 0)
			return error;
	}
	if (st->nsides == 2 && !strcmp(st->sides[0].key.ptr, st->sides[1].key.ptr))
		return error_set(RL_EUSAGE, "both configurations come to the same settings (%s): --compare "
				 "needs two that differ", st->sides[0].key.ptr);
	return 0;
}

static int bench_main(struct bench_state *st, const struct bench_args *a)
{
	bool mined;
	size_t i;
	int rc;

	if (store_repo_id(st->ws.store, &st->repo_id, st->ws.workdir, st->ws.repo->name) < 0 ||
	    cases_get(&st->cases, &st->mined, &mined, &st->mined_with, &st->ws, st->repo_id, a) < 0)
		return cli_error("%s", error_message()),
		       error_status() == RL_EUSAGE || error_status() == RL_ENOTFOUND ? 2 : 3;
	if (a->list)
		return a->format == FORMAT_JSON ?
		       report_bench_list_json(stdout, &st->cases, mined ? &st->mined : NULL, st->mined_with) :
		       (report_bench_list_text(stdout, &st->cases, mined ? &st->mined : NULL, st->mined_with), 0);
	if (mined && a->format == FORMAT_TEXT)
		report_bench_list_text(stdout, &st->cases, &st->mined, st->mined_with);
	for (i = 0; i < st->cases.count && st->cases.items[i].excluded; i++)
		;
	if (i == st->cases.count) {
		cli_error("no case to review: %s (revline bench --list says why; --since or --paths may have left "
			  "them out, --include takes an excluded one back)", st->cases.count ?
			  "every case is excluded" : "no fix in this history makes a case");
		return 2;
	}
	if (sides_prepare(st, a) < 0)
		return cli_error("%s", error_message()), error_status() == RL_EUSAGE || error_status() == RL_ECONFIG ? 2 : 3;
	if ((rc = confirm(st->sides, st->nsides, st->todo, st->ntodo, &st->ws, a)) != 0)
		return rc;
	for (i = 0; i < st->nsides; i++) {
		if ((rc = side_run(&st->sides[i], st->todo[i], st->ntodo[i], &st->ws, st->repo_id, a)) < 0)
			return cli_error("%s", error_message()), 3;
		if (rc > 0)
			return rc;
		if (side_score(&st->sides[i], &st->ws) < 0)
			return cli_error("%s", error_message()), 3;
	}
	return output(st->sides, st->nsides, &st->cases, a);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a = { .tolerance = -1 };
	struct bench_state st;
	size_t i;
	int rc;

	memset(&st, 0, sizeof(st));
	if ((rc = parse_args(&a, argc, argv)) != 0)
		goto done;
	if ((rc = workspace_open(&st.ws)) != 0)
		goto done;
	rc = bench_main(&st, &a);
done:
	for (i = 0; i < 2; i++) {
		side_release(&st.sides[i]);
		free(st.todo[i]);
	}
	bench_cases_release(&st.cases);
	free(st.mined_with);
	workspace_close(&st.ws);
	free(a.paths.items);
	free(a.exclude.items);
	free(a.include.items);
	free(a.compare.items);
	free(a.rule_dirs.items);
	free(a.rule_ids.items);
	return rc < 0 ? 0 : rc;
}
