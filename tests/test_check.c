/*
 * The check's phases (check.h) against the fake LLM server over real HTTP,
 * a real git repository and the real SQLite store: a rule's findings
 * arrive the moment its answer does, a failed call fails its rule only,
 * the plan of parts, rules scoped by globs, the reduce step, the evidence
 * check against the real file, and the deadline.
 */
#include "testlib.h"
#include "testlib/store.h"
#include "fakellm/fakellm.h"

#include "check.h"
#include "clock.h"
#include "llm.h"
#include "repo.h"
#include "sched.h"
#include "status.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

struct fixture {
	struct fakellm fake;
	char *repo_dir, *rules_dir, *db_path;
	struct repo *repo;
	struct target target;
	struct diff *diff;
	struct llm_config llm;
	struct store *store;
	struct check_options opts;
	const char *rule_ids[8];
	struct check *check;
	/* When each rule settled (ms since start), -1 before; the order of events. */
	long settled_at[8];
	char order[8][32];
	size_t norder;
	int64_t start_ms;
	bool advisories;        /* look them up from the fake server (OSV's /v1/querybatch, /v1/vulns/ID) */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	test_env_private();
	fx->repo_dir = test_repo_new("check");
	fx->rules_dir = test_tmpdir("checkrules");
	fx->db_path = test_store_location(fx->rules_dir, "revline.db");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	check_free(fx->check);
	diff_free(fx->diff);
	target_release(&fx->target);
	repo_free(fx->repo);
	store_close(fx->store);
	llm_config_release(&fx->llm);
	fakellm_stop(&fx->fake);
	test_rmtree(fx->repo_dir);
	test_rmtree(fx->rules_dir);
	free(fx->repo_dir);
	free(fx->rules_dir);
	free(fx->db_path);
	free(fx);
	return 0;
}

/* A rule file in the --rules directory; front is extra front matter ("" for none). */
static void rule_write(struct fixture *fx, const char *id, const char *front)
{
	char name[64], text[1024];

	snprintf(name, sizeof(name), "%s.md", id);
	snprintf(text, sizeof(text), "---\nid: %s\nseverity: major\n%s---\n# The %s rule\n\n"
		 "Check the change for %s problems.\n", id, front, id, id);
	test_write_str(fx->rules_dir, name, text);
}

/*
 * The base commit: app.py with a shell call, and a README; the working
 * tree then adds shell=True. The diff is HEAD..working tree.
 */
static void repo_default(struct fixture *fx)
{
	test_write_str(fx->repo_dir, "app.py",
		       "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n");
	test_write_str(fx->repo_dir, "README.md", "# App\n");
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "app.py",
		       "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n");
	test_write_str(fx->repo_dir, "README.md", "# App\n\nRuns commands.\n");
}

/* A finding in the answer's shape; code is what the model says it examined. */
static char *finding_json(const char *file, int line, const char *severity, const char *title, const char *code)
{
	char *out;

	if (asprintf(&out, "{\"file\": \"%s\", \"line\": %d, \"severity\": \"%s\", \"title\": \"%s\", "
		     "\"issue\": \"i\", \"suggestion\": \"s\", \"verification\": {\"code_examined\": \"%s\", "
		     "\"line_range_examined\": [1, 5], \"verification_method\": \"read run()\", "
		     "\"checked_for_handling_elsewhere\": true}}", file, line, severity, title, code) < 0)
		fail_msg("out of memory");
	return out;
}

/* Start the server, open everything and start the check of the rules named (NULL-terminated). */
static void check_begin(struct fixture *fx, const char *script, const char *const *rules)
{
	struct target_spec spec = { 0 };
	char base[96];
	size_t n = 0;

	fakellm_start(&fx->fake, script);
	snprintf(base, sizeof(base), "%s/v1", fx->fake.url);
	setenv("REVLINE_BASE_URL", base, 1);
	assert_int_equal(llm_config_load(&fx->llm, NULL), 0);
	assert_int_equal(store_open(&fx->store, fx->db_path), 0);
	assert_int_equal(repo_open(&fx->repo, fx->repo_dir), 0);
	assert_int_equal(repo_resolve(&fx->target, fx->repo, &spec), 0);
	assert_int_equal(repo_diff(&fx->diff, fx->repo, &fx->target), 0);

	if (!fx->opts.sched.concurrency)
		sched_options_init(&fx->opts.sched);
	assert_int_equal(asker_options_load(&fx->opts.ask, NULL), 0);
	fx->opts.rule_dirs = (const char *const *)&fx->rules_dir;
	fx->opts.nrule_dirs = 1;
	while (rules[n] && n < 8) {
		fx->rule_ids[n] = rules[n];
		n++;
	}
	fx->opts.rule_ids = fx->rule_ids;
	fx->opts.nrule_ids = n;
	fx->opts.no_builtin = true;
	fx->opts.no_advisories = !fx->advisories;
	if (fx->advisories)
		snprintf(fx->opts.osv_url, sizeof(fx->opts.osv_url), "%s", fx->fake.url);
	fx->opts.llm = &fx->llm;
	fx->opts.store = fx->store;
	assert_int_equal(check_new(&fx->check, fx->repo, &fx->target, fx->diff, &fx->opts), 0);
	for (n = 0; n < 8; n++)
		fx->settled_at[n] = -1;
	fx->start_ms = clock_ms();
	assert_int_equal(check_start(fx->check), 0);
}

/* The index of a rule's result. */
static size_t rule_index(struct fixture *fx, const char *id)
{
	size_t i;

	for (i = 0; i < check_nresults(fx->check); i++)
		if (!strcmp(check_result(fx->check, i)->rule->id, id))
			return i;
	fail_msg("no result for rule %s", id);
	return 0;
}

/* One SQL query's first column of its first row, as text ("" for NULL, "(none)" without a row). */
static char *sql_text(struct fixture *fx, const char *fmt, ...)
{
	char *sql, *out;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&sql, fmt, ap) < 0)
		fail_msg("out of memory");
	va_end(ap);
	out = test_store_query(fx->db_path, sql);
	free(sql);
	return out;
}

static void assert_sql(struct fixture *fx, const char *want, const char *fmt, const char *arg)
{
	char *got = sql_text(fx, fmt, arg);

	if (strcmp(got, want))
		fail_msg("%s [%s]: got '%s', want '%s'", fmt, arg, got, want);
	free(got);
}

/* The stored status of a rule's result in this check. */
static char *stored_result(struct fixture *fx, const char *rule)
{
	return sql_text(fx, "SELECT r.status FROM check_results r JOIN check_threadlines t "
			"ON t.id = r.check_threadline_id WHERE t.check_id = %lld AND t.threadline_id = '%s'",
			(long long)check_id(fx->check), rule);
}

/*
 * Drive the check with check_wait until done (or limit_ms), recording when
 * each rule settled; on_settled runs at each CHECK_RULE_SETTLED.
 */
static void drive(struct fixture *fx, long limit_ms,
		  void (*on_settled)(struct fixture *fx, size_t rule))
{
	struct check_event ev;

	while (!check_done(fx->check)) {
		if (clock_ms() - fx->start_ms > limit_ms)
			fail_msg("the check did not end within %ld ms", limit_ms);
		assert_true(check_wait(fx->check, 50) >= 0);
		while (check_next_event(fx->check, &ev)) {
			if (ev.kind != CHECK_RULE_SETTLED)
				continue;
			assert_true(ev.rule < 8);
			fx->settled_at[ev.rule] = (long)(clock_ms() - fx->start_ms);
			snprintf(fx->order[fx->norder++], sizeof(fx->order[0]), "%s",
				 check_result(fx->check, ev.rule)->rule->id);
			if (on_settled)
				on_settled(fx, ev.rule);
		}
	}
	while (check_next_event(fx->check, &ev))
		;
}

/* The requests the server saw whose body holds text. */
static size_t requests_with(struct fakellm *fake, const char *text)
{
	json_t *all = fakellm_requests(fake);
	size_t i, n = 0;

	for (i = 0; i < json_array_size(all); i++) {
		char *body = json_dumps(json_object_get(json_array_get(all, i), "body"), 0);

		n += body && strstr(body, text) != NULL;
		free(body);
	}
	json_decref(all);
	return n;
}

/* --- streaming: a rule's findings arrive with its answer ------------------- */

static void on_settled_streaming(struct fixture *fx, size_t rule)
{
	const struct rule_result *r = check_result(fx->check, rule);
	size_t slow = rule_index(fx, "slow");
	char *status;

	if (strcmp(r->rule->id, "fast"))
		return;
	/* The slow rule is still waiting for its answer... */
	assert_false(rule_status_settled(check_result(fx->check, slow)->status));
	assert_false(check_done(fx->check));
	/* ...and the fast one's finding is already there, verified, and stored before the event. */
	assert_int_equal(r->status, RULE_ATTENTION);
	assert_int_equal(r->nfindings, 1);
	assert_string_equal(r->findings[0].title, "Shell injection");
	assert_true(r->findings[0].verified);
	status = stored_result(fx, "fast");
	assert_string_equal(status, "attention");
	free(status);
	status = stored_result(fx, "slow");
	assert_string_equal(status, "(none)");
	free(status);
}

static void test_rule_settles_as_its_answer_comes(void **state)
{
	struct fixture *fx = *state;
	char *genuine = finding_json("app.py", 5, "critical", "Shell injection",
				     "return subprocess.call(cmd, shell=True)");
	char *script;
	const char *rules[] = { "fast", "slow", NULL };

	repo_default(fx);
	rule_write(fx, "fast", "");
	rule_write(fx, "slow", "");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": \"Rule fast:\", \"latency_ms\": 100, \"answer\": {\"status\": \"attention\", "
			     "\"reasoning\": \"r\", \"findings\": [%s]}},"
			     "{\"match\": \"Rule slow:\", \"latency_ms\": 3000, \"answer\": {\"status\": \"compliant\", "
			     "\"reasoning\": \"fine\", \"findings\": []}}]}", genuine) > 0);
	fx->opts.no_reduce = true;
	check_begin(fx, script, rules);
	drive(fx, 20000, on_settled_streaming);

	assert_string_equal(fx->order[0], "fast");
	assert_string_equal(fx->order[1], "slow");
	/* The fast rule's event came well before the slow answer could have. */
	assert_true(fx->settled_at[rule_index(fx, "fast")] < 2500);
	assert_true(fx->settled_at[rule_index(fx, "slow")] >= 2900);
	assert_string_equal(check_status(fx->check), "complete");
	assert_true(check_stored(fx->check));
	free(genuine);
	free(script);
}

/*
 * The check holds its own reference to the diff: the front end that made it
 * lets it go at once (the TUI reads the diff again while a check runs), and
 * the check still prints it, plans it and checks the evidence against it.
 */
static void test_check_holds_its_diff(void **state)
{
	struct fixture *fx = *state;
	char *genuine = finding_json("app.py", 5, "critical", "Shell injection",
				     "return subprocess.call(cmd, shell=True)");
	char *script;
	const char *rules[] = { "fast", NULL };
	const struct rule_result *res;

	repo_default(fx);
	rule_write(fx, "fast", "");
	assert_true(asprintf(&script, "{\"rules\": [{\"match\": \"Rule fast:\", \"latency_ms\": 200, \"answer\": "
			     "{\"status\": \"attention\", \"reasoning\": \"r\", \"findings\": [%s]}}]}", genuine) > 0);
	fx->opts.no_reduce = true;
	check_begin(fx, script, rules);
	assert_ptr_equal(check_diff(fx->check), fx->diff);
	/* The caller's, the check's and its dependency phase's. */
	assert_int_equal(fx->diff->refs, 3);
	diff_free(fx->diff);
	fx->diff = NULL;
	assert_int_equal(check_diff(fx->check)->refs, 2);
	drive(fx, 20000, NULL);
	res = check_result(fx->check, rule_index(fx, "fast"));
	assert_int_equal(res->nfindings, 1);
	assert_true(res->findings[0].verified);
	assert_string_equal(check_status(fx->check), "complete");
	free(genuine);
	free(script);
}

/* --- a failed call fails its task only --------------------------------------- */

static void test_failed_call_fails_its_rule_only(void **state)
{
	struct fixture *fx = *state;
	char *genuine = finding_json("app.py", 5, "critical", "Shell injection",
				     "return subprocess.call(cmd, shell=True)");
	char *script, *text;
	const char *rules[] = { "good", "boom", "calm", NULL };
	const struct rule_result *boom;
	char id[32];

	repo_default(fx);
	rule_write(fx, "good", "");
	rule_write(fx, "boom", "");
	rule_write(fx, "calm", "");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": \"Rule boom:\", \"status\": 500, \"error\": \"the model fell over\"},"
			     "{\"match\": \"Rule good:\", \"answer\": {\"status\": \"attention\", "
			     "\"reasoning\": \"r\", \"findings\": [%s]}},"
			     "{\"match\": \"Rule calm:\", \"answer\": {\"status\": \"compliant\", \"reasoning\": \"ok\"}}"
			     "]}", genuine) > 0);
	fx->opts.no_reduce = true;
	sched_options_init(&fx->opts.sched);
	fx->opts.sched.retries = 1;
	fx->opts.sched.backoff = 0.05;
	check_begin(fx, script, rules);
	drive(fx, 20000, NULL);

	boom = check_result(fx->check, rule_index(fx, "boom"));
	assert_int_equal(boom->status, RULE_ERROR);
	assert_non_null(boom->error);
	assert_non_null(strstr(boom->error, "the model fell over"));
	assert_int_equal(boom->attempts, 2);      /* the first try and one retry */
	assert_int_equal(requests_with(&fx->fake, "Rule boom:"), 2);
	assert_int_equal(check_result(fx->check, rule_index(fx, "good"))->status, RULE_ATTENTION);
	assert_int_equal(check_result(fx->check, rule_index(fx, "calm"))->status, RULE_COMPLIANT);
	assert_string_equal(check_status(fx->check), "partial");

	/* The store has every rule's result, the failure's reason, and the good rule's finding. */
	text = stored_result(fx, "boom");
	assert_string_equal(text, "error");
	free(text);
	text = stored_result(fx, "good");
	assert_string_equal(text, "attention");
	free(text);
	text = stored_result(fx, "calm");
	assert_string_equal(text, "compliant");
	free(text);
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "partial", "SELECT status FROM checks WHERE id = %s", id);
	assert_sql(fx, "Shell injection", "SELECT title FROM findings WHERE check_id = %s AND rule_id = 'good'", id);
	assert_sql(fx, "0", "SELECT count(*) FROM findings WHERE check_id = %s AND rule_id = 'boom'", id);
	text = sql_text(fx, "SELECT r.error FROM check_results r JOIN check_threadlines t ON t.id = "
			"r.check_threadline_id WHERE t.check_id = %s AND t.threadline_id = 'boom'", id);
	assert_non_null(strstr(text, "the model fell over"));
	free(text);
	free(genuine);
	free(script);
}

/* --- the plan of parts --------------------------------------------------------- */

/* Lines of a file: "NAME_k = k\n" for k in [0, n). */
static char *numbered_lines(const char *name, int n, int shift)
{
	struct buf b = BUF_INIT;
	int k;

	for (k = 0; k < n; k++)
		buf_printf(&b, "%s_%04d = %d  # padding padding padding padding padding\n", name, k, k + shift);
	return buf_detach(&b);
}

static void test_plan_of_parts(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "big", NULL };
	char *a0 = numbered_lines("alpha", 60, 0), *b0 = numbered_lines("beta", 60, 0);
	char *a1 = numbered_lines("alpha", 60, 1), *b1 = numbered_lines("beta", 60, 1);
	char *huge0 = numbered_lines("gamma", 20, 0), *huge1 = numbered_lines("gamma", 600, 7);
	const struct rule_result *r;
	json_t *all;
	size_t i, with_alpha = 0, with_beta = 0, with_gamma = 0, both = 0;
	bool cut_note = false;

	test_write_str(fx->repo_dir, "alpha.py", a0);
	test_write_str(fx->repo_dir, "beta.py", b0);
	test_write_str(fx->repo_dir, "gamma.py", huge0);
	test_commit(fx->repo_dir, "base");
	/* Every line changes: each file's diff is ~7 kB, more than half of a 1,000-token request. */
	test_write_str(fx->repo_dir, "alpha.py", a1);
	test_write_str(fx->repo_dir, "beta.py", b1);
	/* One hunk of 620 lines: alone over the budget, it is cut to its first lines. */
	test_write_str(fx->repo_dir, "gamma.py", huge1);
	rule_write(fx, "big", "");
	fx->opts.token_budget = 1000;
	fx->opts.no_reduce = true;
	check_begin(fx, "{\"rules\": [{\"match\": \"Rule big:\", \"answer\": {\"status\": \"compliant\", "
		    "\"reasoning\": \"ok\"}}]}", rules);
	drive(fx, 30000, NULL);

	r = check_result(fx->check, 0);
	assert_int_equal(r->status, RULE_COMPLIANT);
	assert_true(r->chunks >= 3);
	all = fakellm_requests(&fx->fake);
	if (json_array_size(all) != (size_t)r->chunks)
		fail_msg("%zu requests for %d chunks (%ld made, %ld cached)", json_array_size(all), r->chunks,
			 check_stats(fx->check)->requests, check_stats(fx->check)->cache_hits);
	for (i = 0; i < json_array_size(all); i++) {
		char *body = json_dumps(json_object_get(json_array_get(all, i), "body"), 0);
		char part[32];

		snprintf(part, sizeof(part), "of %d of the change", r->chunks);
		/* Every request says which part of how many it is. */
		assert_non_null(strstr(body, part));
		with_alpha += strstr(body, "alpha_0000") != NULL;
		with_beta += strstr(body, "beta_0000") != NULL;
		with_gamma += strstr(body, "gamma_0000") != NULL;
		both += strstr(body, "alpha_0000") && strstr(body, "beta_0000");
		/* The cut hunk's last lines are never sent. */
		assert_null(strstr(body, "gamma_0599"));
		free(body);
	}
	json_decref(all);
	/* Each file in exactly one part, no two big files together. */
	assert_int_equal(with_alpha, 1);
	assert_int_equal(with_beta, 1);
	assert_int_equal(with_gamma, 1);
	assert_int_equal(both, 0);
	for (i = 0; i < check_nnotes(fx->check); i++)
		cut_note |= strstr(check_note(fx->check, i), "gamma.py: hunk at line 1 cut to fit the budget") != NULL;
	assert_true(cut_note);
	free(a0);
	free(b0);
	free(a1);
	free(b1);
	free(huge0);
	free(huge1);
}

/* A rule asked in two parts, one of which fails: the rule fails, saying which part; the other part's findings are kept. */
static void test_failed_part_keeps_the_other(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "big", "calm", NULL };
	char *a0 = numbered_lines("alpha", 60, 0), *b0 = numbered_lines("beta", 60, 0);
	char *a1 = numbered_lines("alpha", 60, 1), *b1 = numbered_lines("beta", 60, 1);
	const struct rule_result *r;
	char *script, id[32];

	test_write_str(fx->repo_dir, "alpha.py", a0);
	test_write_str(fx->repo_dir, "beta.py", b0);
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "alpha.py", a1);
	test_write_str(fx->repo_dir, "beta.py", b1);
	rule_write(fx, "big", "");
	rule_write(fx, "calm", "patterns: [\"alpha.py\"]\n");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": [\"Rule big:\", \"beta_0000\"], \"status\": 400, \"error\": \"part refused\"},"
			     "{\"match\": [\"Rule big:\", \"alpha_0000\"], \"answer\": {\"status\": \"attention\", "
			     "\"findings\": [%s]}},"
			     "{\"match\": \"Rule calm:\", \"answer\": {\"status\": \"compliant\", \"reasoning\": \"ok\"}}]}",
			     "{\"file\": \"alpha.py\", \"line\": 1, \"severity\": \"minor\", \"title\": \"Padding\", "
			     "\"issue\": \"i\", \"suggestion\": \"s\", \"verification\": {\"code_examined\": "
			     "\"alpha_0000 = 1  # padding padding padding padding padding\", \"line_range_examined\": [1, 1], "
			     "\"verification_method\": \"read\", \"checked_for_handling_elsewhere\": true}}") > 0);
	fx->opts.token_budget = 1000;
	fx->opts.no_reduce = true;
	check_begin(fx, script, rules);
	drive(fx, 30000, NULL);

	r = check_result(fx->check, rule_index(fx, "big"));
	assert_int_equal(r->chunks, 2);
	assert_int_equal(r->status, RULE_ERROR);
	assert_non_null(strstr(r->error, "part 2 of 2: "));
	assert_non_null(strstr(r->error, "part refused"));
	assert_null(strstr(r->error, "part 1 of 2"));
	/* The part that answered is kept, verified, and stored. */
	assert_int_equal(r->nfindings, 1);
	assert_string_equal(r->findings[0].title, "Padding");
	assert_true(r->findings[0].verified);
	assert_int_equal(check_result(fx->check, rule_index(fx, "calm"))->status, RULE_COMPLIANT);
	assert_string_equal(check_status(fx->check), "partial");
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "Padding", "SELECT title FROM findings WHERE check_id = %s AND rule_id = 'big'", id);
	free(script);
	free(a0);
	free(b0);
	free(a1);
	free(b1);
}

/* --- a rule scoped by globs ------------------------------------------------------ */

static void test_globs_scope_a_rule(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "pyonly", "docsonly", "sqlonly", NULL };
	json_t *all;
	char *body;

	repo_default(fx);
	rule_write(fx, "pyonly", "patterns: [\"**/*.py\"]\n");
	rule_write(fx, "docsonly", "patterns: [\"**/*.md\"]\n");
	rule_write(fx, "sqlonly", "patterns: [\"**/*.sql\"]\n");
	fx->opts.no_reduce = true;
	check_begin(fx, "{\"default\": {\"answer\": {\"status\": \"compliant\", \"reasoning\": \"ok\"}}}", rules);
	drive(fx, 20000, NULL);

	/* No changed file matches *.sql: settled without a request. */
	assert_int_equal(check_result(fx->check, rule_index(fx, "sqlonly"))->status, RULE_NOT_RELEVANT);
	assert_int_equal(requests_with(&fx->fake, "Rule sqlonly:"), 0);
	assert_int_equal(check_result(fx->check, rule_index(fx, "pyonly"))->status, RULE_COMPLIANT);
	assert_int_equal(check_result(fx->check, rule_index(fx, "docsonly"))->status, RULE_COMPLIANT);
	assert_int_equal(requests_with(&fx->fake, "Rule pyonly:"), 1);
	assert_int_equal(requests_with(&fx->fake, "Rule docsonly:"), 1);

	/* Both rules see the same part (it is shared), each told which files are its own. */
	all = fakellm_requests(&fx->fake);
	for (size_t i = 0; i < json_array_size(all); i++) {
		body = json_dumps(json_object_get(json_array_get(all, i), "body"), 0);
		if (strstr(body, "Rule pyonly:"))
			assert_non_null(strstr(body, "The rule applies to these files of the change only: app.py."));
		if (strstr(body, "Rule docsonly:"))
			assert_non_null(strstr(body, "The rule applies to these files of the change only: README.md."));
		free(body);
	}
	json_decref(all);
	assert_string_equal(check_status(fx->check), "complete");
}

/* --- the reduce step ------------------------------------------------------------------ */

static void test_reduce_fallback_merges_duplicates(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "one", "two", NULL };
	char *f1 = finding_json("app.py", 5, "major", "Shell injection in run()",
				"return subprocess.call(cmd, shell=True)");
	char *f2 = finding_json("app.py", 5, "critical", "Shell injection in run()",
				"return subprocess.call(cmd, shell=True)");
	const struct report *rep;
	char *script;

	repo_default(fx);
	rule_write(fx, "one", "");
	rule_write(fx, "two", "");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": \"Rule one:\", \"answer\": {\"status\": \"attention\", \"findings\": [%s]}},"
			     "{\"match\": \"Rule two:\", \"answer\": {\"status\": \"attention\", \"findings\": [%s]}}]}",
			     f1, f2) > 0);
	fx->opts.no_reduce = true;
	check_begin(fx, script, rules);
	drive(fx, 20000, NULL);

	/* Two rules' findings of the same line and title are one in the report, at the higher severity. */
	rep = check_report(fx->check);
	assert_false(rep->synthesized);
	assert_int_equal(rep->nfindings, 1);
	assert_int_equal(rep->findings[0].severity, SEV_CRITICAL);
	assert_int_equal(rep->findings[0].nfrom, 2);
	assert_string_equal(rep->overall_severity, "critical");
	/* No reduce request was made: only the two rules'. */
	assert_int_equal(requests_with(&fx->fake, "synthesizing"), 0);
	assert_int_equal(requests_with(&fx->fake, "Rule one:"), 1);
	free(f1);
	free(f2);
	free(script);
}

static void test_reduce_call_makes_the_report(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "one", "two", NULL };
	char *f1 = finding_json("app.py", 5, "major", "Shell injection", "return subprocess.call(cmd, shell=True)");
	char *f2 = finding_json("app.py", 4, "minor", "No check of cmd", "def run(cmd):");
	const struct report *rep;
	char *script, id[32];

	repo_default(fx);
	rule_write(fx, "one", "");
	rule_write(fx, "two", "");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": \"Rule one:\", \"answer\": {\"status\": \"attention\", \"findings\": [%s]}},"
			     "{\"match\": \"Rule two:\", \"answer\": {\"status\": \"attention\", \"findings\": [%s]}},"
			     "{\"match\": [\"synthesizing\", \"f1 [one] line 5\", \"f2 [two] line 4\"], \"answer\": "
			     "{\"summary\": \"One shell injection.\", \"overallSeverity\": \"critical\", "
			     "\"mustFix\": [\"Shell injection in run()\"], \"findings\": [{\"id\": \"m1\", "
			     "\"severity\": \"critical\", \"file\": \"app.py\", \"line\": 5, \"title\": "
			     "\"Shell injection in run()\", \"issue\": \"shell=True\", \"suggestion\": \"a list\", "
			     "\"fromRules\": [\"one\", \"two\"], \"sources\": [\"f1\", \"f2\"]}]}}]}", f1, f2) > 0);
	check_begin(fx, script, rules);
	drive(fx, 20000, NULL);

	rep = check_report(fx->check);
	if (!rep->synthesized)
		fail_msg("not synthesized: %s", rep->fallback_reason ? rep->fallback_reason : "(no reason)");
	assert_string_equal(rep->summary, "One shell injection.");
	assert_int_equal(rep->nfindings, 1);
	assert_string_equal(rep->findings[0].title, "Shell injection in run()");
	assert_int_equal(rep->nmust_fix, 1);
	assert_int_equal(requests_with(&fx->fake, "synthesizing"), 1);
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "One shell injection.", "SELECT summary FROM checks WHERE id = %s", id);
	free(f1);
	free(f2);
	free(script);
}

/* --- the evidence, against the real file ------------------------------------------------ */

static void test_evidence_checked_against_the_file(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "ev", NULL };
	/* The genuine code at a wrong line; code that is nowhere in the file. */
	char *genuine = finding_json("app.py", 2, "critical", "Shell injection",
				     "return subprocess.call(cmd, shell=True)");
	char *invented = finding_json("app.py", 4, "major", "Invented", "os.system(user_input)");
	const struct rule_result *r;
	const struct finding *g = NULL, *inv = NULL;
	char *script, id[32];
	size_t i;

	repo_default(fx);
	rule_write(fx, "ev", "");
	assert_true(asprintf(&script, "{\"rules\": [{\"match\": \"Rule ev:\", \"answer\": {\"status\": "
			     "\"attention\", \"findings\": [%s, %s]}}]}", genuine, invented) > 0);
	fx->opts.no_reduce = true;
	check_begin(fx, script, rules);
	drive(fx, 20000, NULL);

	r = check_result(fx->check, 0);
	assert_int_equal(r->nfindings, 2);
	for (i = 0; i < r->nfindings; i++) {
		if (!strcmp(r->findings[i].title, "Shell injection"))
			g = &r->findings[i];
		if (!strcmp(r->findings[i].title, "Invented"))
			inv = &r->findings[i];
	}
	assert_non_null(g);
	assert_non_null(inv);
	assert_true(g->verified);
	assert_int_equal(g->line, 5);     /* corrected to where the code is */
	assert_false(inv->verified);
	assert_non_null(strstr(inv->verify_note, "not in app.py"));
	assert_int_equal(check_unverified(fx->check), 1);
	/* The report leaves the unverified one out; the store keeps both, marked. */
	assert_int_equal(check_report(fx->check)->nfindings, 1);
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "1|5", "SELECT verified || '|' || line FROM findings WHERE check_id = %s "
		   "AND title = 'Shell injection' AND check_threadline_id IS NOT NULL", id);
	assert_sql(fx, "0", "SELECT verified FROM findings WHERE check_id = %s AND title = 'Invented'", id);
	free(genuine);
	free(invented);
	free(script);
}

/* --- the deadline ------------------------------------------------------------------------- */

static void test_deadline_cuts_and_keeps_what_arrived(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "quick", "stuck", NULL };
	char *genuine = finding_json("app.py", 5, "critical", "Shell injection",
				     "return subprocess.call(cmd, shell=True)");
	const struct rule_result *stuck;
	char *script, *text, id[32];
	long took;

	repo_default(fx);
	rule_write(fx, "quick", "");
	rule_write(fx, "stuck", "");
	assert_true(asprintf(&script, "{\"rules\": ["
			     "{\"match\": \"Rule quick:\", \"answer\": {\"status\": \"attention\", \"findings\": [%s]}},"
			     "{\"match\": \"Rule stuck:\", \"fault\": \"hang\"}]}", genuine) > 0);
	fx->opts.no_reduce = true;
	sched_options_init(&fx->opts.sched);
	fx->opts.sched.deadline = 1.5;
	check_begin(fx, script, rules);
	drive(fx, 15000, NULL);
	took = (long)(clock_ms() - fx->start_ms);

	assert_true(took >= 1400);
	assert_true(took < 6000);
	assert_true(check_deadline_passed(fx->check));
	stuck = check_result(fx->check, rule_index(fx, "stuck"));
	assert_int_equal(stuck->status, RULE_TIMEOUT);
	assert_non_null(stuck->error);
	assert_int_equal(check_result(fx->check, rule_index(fx, "quick"))->status, RULE_ATTENTION);
	assert_string_equal(check_status(fx->check), "partial");
	/* What arrived before the deadline is in the store. */
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "partial", "SELECT status FROM checks WHERE id = %s", id);
	text = stored_result(fx, "quick");
	assert_string_equal(text, "attention");
	free(text);
	text = stored_result(fx, "stuck");
	assert_string_equal(text, "timeout");
	free(text);
	assert_sql(fx, "1", "SELECT count(*) FROM findings WHERE check_id = %s AND rule_id = 'quick' "
		   "AND check_threadline_id IS NOT NULL", id);
	free(genuine);
	free(script);
}

/* --- the dependency phase before the rules ------------------------------------------------ */

static void test_dependencies_before_the_rules(void **state)
{
	struct fixture *fx = *state;
	const char *rules[] = { "deps", NULL };
	struct check_event ev;
	bool deps_seen = false, settled = false;
	char id[32];

	test_write_str(fx->repo_dir, "package.json", "{\"dependencies\": {\"lodash\": \"4.17.20\"}}\n");
	test_write_str(fx->repo_dir, "app.js", "module.exports = 1;\n");
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "package.json", "{\"dependencies\": {\"lodash\": \"4.17.21\"}}\n");
	test_write_str(fx->repo_dir, "app.js", "module.exports = 2;\n");
	rule_write(fx, "deps", "");
	fx->advisories = true;
	fx->opts.no_reduce = true;
	/* The rule's request is answered only when it carries the advisory OSV gave. */
	check_begin(fx, "{\"rules\": ["
		    "{\"match_path\": \"/v1/querybatch\", \"results\": [{\"match\": [\"\\\"lodash\\\"\", "
		    "\"\\\"4.17.20\\\"\"], \"result\": {\"vulns\": [{\"id\": \"GHSA-35jh-r3h4-6jhm\"}]}}]},"
		    "{\"match_path\": \"/v1/vulns/GHSA-35jh-r3h4-6jhm\", \"body\": {\"id\": \"GHSA-35jh-r3h4-6jhm\", "
		    "\"summary\": \"Command Injection in lodash\", \"database_specific\": {\"severity\": \"HIGH\"}}},"
		    "{\"match\": [\"Rule deps:\", \"# Dependencies\", \"GHSA-35jh-r3h4-6jhm\"], \"answer\": "
		    "{\"status\": \"compliant\", \"reasoning\": \"the bump fixes it\"}}]}", rules);
	while (!check_done(fx->check)) {
		assert_true(clock_ms() - fx->start_ms < 20000);
		assert_true(check_wait(fx->check, 50) >= 0);
		while (check_next_event(fx->check, &ev)) {
			if (ev.kind == CHECK_DEPENDENCIES) {
				assert_false(settled);
				deps_seen = true;
			}
			if (ev.kind == CHECK_RULE_SETTLED)
				settled = true;
		}
	}
	assert_true(deps_seen);
	assert_true(settled);
	assert_int_equal(check_result(fx->check, 0)->status, RULE_COMPLIANT);
	assert_non_null(check_deps(fx->check));
	assert_false(check_deps_pending(fx->check));
	snprintf(id, sizeof(id), "%lld", (long long)check_id(fx->check));
	assert_sql(fx, "lodash:patch", "SELECT name || ':' || bump FROM check_packages WHERE check_id = %s", id);
	assert_sql(fx, "GHSA-35jh-r3h4-6jhm", TEST_SQL("SELECT json_extract(advisories, '$[0].id') FROM "
		   "check_packages WHERE check_id = %s", "SELECT advisories::json->0->>'id' FROM check_packages "
		   "WHERE check_id = %s"), id);
}

/* A read of a rule's model said short, from its arguments as the model gave them (check_context_read_text). */
static void test_context_read_text(void **state)
{
	const struct {
		struct rule_read read;
		const char *text, *path;
	} cases[] = {
		{ { 1, "read_file", "{\"path\": \"app/auth.py\", \"start\": 40, \"end\": 88}", 1204, NULL, NULL },
		  "read_file app/auth.py:40-88: 1204 bytes", "app/auth.py" },
		{ { 1, "read_file", "{\"path\": \"a.py\"}", 1, NULL, NULL }, "read_file a.py: 1 byte", "a.py" },
		{ { 1, "read_file", "{\"path\": \"a.py\", \"end\": 9}", 0, "no such file", NULL },
		  "read_file a.py:-9: error: no such file", "a.py" },
		{ { 2, "search", "{\"pattern\": \"verify\\\\(\", \"path_glob\": \"*.py\"}", 312, NULL, NULL },
		  "search 'verify\\(' in *.py: 312 bytes", "" },
		{ { 2, "references", "{\"symbol\": \"verify\"}", 90, NULL, NULL }, "references verify: 90 bytes", "" },
		/* Another tool, arguments cut or not an object, a read_file without a path: as given. */
		{ { 3, "list_dir", "{\"path\": \"web\"}", 5, NULL, NULL }, "list_dir {\"path\": \"web\"}: 5 bytes", "" },
		{ { 3, "read_file", "{\"path\": \"web/api", 0, "bad arguments", NULL },
		  "read_file {\"path\": \"web/api: error: bad arguments", "" },
		{ { 3, "read_file", "[1, 2]", 0, NULL, NULL }, "read_file [1, 2]: 0 bytes", "" },
		{ { 3, "read_file", "{\"start\": 4}", 0, NULL, NULL }, "read_file {\"start\": 4}: 0 bytes", "" },
		{ { 3, NULL, NULL, 0, NULL, NULL }, "(no tool) {}: 0 bytes", "" },
	};
	struct buf text = BUF_INIT, path = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_clear(&text);
		assert_int_equal(check_context_read_text(&text, &path, &cases[i].read), 0);
		assert_string_equal(text.ptr, cases[i].text);
		assert_string_equal(path.ptr ? path.ptr : "", cases[i].path);
	}
	buf_release(&text);
	buf_release(&path);
}

/* A file concerns a finding when it is the finding's, or the finding names it as a path of its own. */
static void test_context_path_concerns(void **state)
{
	struct finding f = { 0 };

	(void)state;
	f.file = "app/auth.py";
	f.issue = "login in web/api.py:6 still passes leeway; see `tests/test_auth.py`.";
	f.evidence.where_checked = "lib/x.py, docs/guide.md.";
	assert_true(check_context_path_concerns("app/auth.py", &f));
	assert_true(check_context_path_concerns("web/api.py", &f));
	assert_true(check_context_path_concerns("tests/test_auth.py", &f));
	assert_true(check_context_path_concerns("lib/x.py", &f));
	assert_true(check_context_path_concerns("docs/guide.md", &f));
	/* A part of a longer path is not the path. */
	assert_false(check_context_path_concerns("api.py", &f));
	assert_false(check_context_path_concerns("web/api", &f));
	assert_false(check_context_path_concerns("auth.py", &f));
	assert_false(check_context_path_concerns("docs/guide", &f));
	assert_false(check_context_path_concerns("", &f));
	assert_false(check_context_path_concerns(NULL, &f));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		T(test_rule_settles_as_its_answer_comes),
		T(test_check_holds_its_diff),
		T(test_failed_call_fails_its_rule_only),
		T(test_plan_of_parts),
		T(test_failed_part_keeps_the_other),
		T(test_globs_scope_a_rule),
		T(test_reduce_fallback_merges_duplicates),
		T(test_reduce_call_makes_the_report),
		T(test_evidence_checked_against_the_file),
		T(test_deadline_cuts_and_keeps_what_arrived),
		T(test_dependencies_before_the_rules),
		cmocka_unit_test(test_context_read_text),
		cmocka_unit_test(test_context_path_concerns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
