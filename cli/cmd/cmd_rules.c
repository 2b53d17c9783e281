/* revline rules: list the rules a check would use, or lint the rule files. */
#include "commands.h"
#include "config.h"
#include "standards.h"
#include "rules.h"
#include "status.h"
#include "term.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The repository, or NULL outside one (then only the user's and the
 * built-in rules are read, which is still useful).
 */
static struct repo *repo_find(void)
{
	struct repo *repo = NULL;

	if (repo_open(&repo, NULL) < 0 && error_status() != RL_ENOTREPO)
		cli_error("%s; reading only the user's and the built-in rules", error_message());
	error_clear();
	return repo;
}

/*
 * After the table, past an empty line: the project's standards a check
 * gives every reviewer (revline.projectStandards), which files, or why none.
 */
static void standards_say(struct repo *repo)
{
	struct config *config = NULL;
	struct standards st;
	bool on = true;
	size_t i;

	if (!repo || !repo->workdir)
		return;
	if (config_open(&config, repo) < 0 || standards_enabled(&on, config) < 0 || !on) {
		term_printf(stdout, "\nProject standards: %s\n",
			    on ? error_message() : "off (revline.projectStandards is false)");
		goto done;
	}
	if (standards_read(&st, repo) < 0) {
		term_printf(stdout, "\nProject standards: %s\n", error_message());
		goto done;
	}
	if (!st.files.count)
		printf("\nProject standards: none (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/*.mdc, "
		       ".github/copilot-instructions.md)\n");
	for (i = 0; i < st.files.count; i++)
		term_printf(stdout, "%s%s", i ? ", " : "\nProject standards, given to every reviewer as context: ",
			    st.files.items[i]);
	if (st.files.count)
		putchar('\n');
	for (i = 0; i < st.problems.count; i++)
		term_printf(stdout, "  %s\n", st.problems.items[i]);
	standards_release(&st);
done:
	error_clear();
	config_free(config);
}

/* revline.builtinRules, as a check would read it; false (said) when it is bad. */
static bool policy_load(struct rules_options *options, struct repo *repo)
{
	struct config *config = NULL;
	bool ok = config_open(&config, repo) == 0 &&
		  rules_builtin_load(&options->builtin, config) == 0;

	if (!ok)
		cli_error("%s", error_message());
	config_free(config);
	return ok;
}

/* A rule file's path and what is wrong in it (which may quote the file): through term_*. */
void rule_problem_print(FILE *fp, const struct rule_problem *p)
{
	term_puts(fp, p->path);
	if (p->line > 0)
		fprintf(fp, ":%d", p->line);
	fputs(": ", fp);
	term_puts(fp, p->message);
	fputc('\n', fp);
}

static int problem_compare(const void *a, const void *b)
{
	const struct rule_problem *x = *(const struct rule_problem *const *)a;
	const struct rule_problem *y = *(const struct rule_problem *const *)b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y;  /* the order they were found in */
}

/* The problems sorted by path, then line; NULL when there are none. */
static const struct rule_problem **problems_sorted(const struct rule_set *set)
{
	const struct rule_problem **sorted;
	size_t i;

	if (!set->nproblems || !(sorted = calloc(set->nproblems, sizeof(*sorted))))
		return NULL;
	for (i = 0; i < set->nproblems; i++)
		sorted[i] = &set->problems[i];
	qsort(sorted, set->nproblems, sizeof(*sorted), problem_compare);
	return sorted;
}

static json_t *json_list(char *const *items, size_t count)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < count; i++)
		json_array_append_new(array, utf8_json(items[i]));
	return array;
}

static json_t *rule_json(const struct rule *rule)
{
	json_t *obj = json_object();

	if (!obj)
		return NULL;
	json_object_set_new(obj, "id", utf8_json(rule->id));
	json_object_set_new(obj, "name", utf8_json(rule->name));
	json_object_set_new(obj, "path", utf8_json(rule->path));
	json_object_set_new(obj, "source", utf8_json(rule->source));
	json_object_set_new(obj, "kind", json_string(rule->kind == RULE_LOCAL ? "local" : "llm"));
	json_object_set_new(obj, "severity", json_string(severity_name(rule->severity)));
	json_object_set_new(obj, "category", utf8_json(rule->category));
	json_object_set_new(obj, "model", utf8_json(rule->model));
	json_object_set_new(obj, "pattern", utf8_json(rule->pattern));
	json_object_set_new(obj, "check", rule->check == RULE_CHECK_NONE ? json_null() :
			    json_string(rule_check_name(rule->check)));
	json_object_set_new(obj, "patterns", json_list(rule->patterns, rule->npatterns));
	json_object_set_new(obj, "context_files", json_list(rule->context_files, rule->ncontext));
	json_object_set_new(obj, "version", utf8_json(rule->version));
	json_object_set_new(obj, "active", json_boolean(rule_why_on(rule->why)));
	json_object_set_new(obj, "why", json_string(rule_why_text(rule->why)));
	return obj;
}

static json_t *problem_json(const struct rule_problem *p)
{
	return json_pack("{s:o, s:i, s:o, s:b}", "path", utf8_json(p->path), "line", p->line,
			 "message", utf8_json(p->message), "fatal", p->fatal);
}

static int print_json(json_t *value)
{
	int error = value ? json_dumpf(value, stdout, JSON_INDENT(2)) : -1;

	json_decref(value);
	if (error == 0)
		putchar('\n');
	return error;
}

static int list_json(const struct rule_set *set)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < set->count; i++)
		json_array_append_new(array, rule_json(&set->rules[i]));
	return print_json(array);
}

static void patterns_text(struct buf *out, const struct rule *rule)
{
	size_t i;

	buf_clear(out);
	if (!rule->npatterns)
		buf_puts(out, "(every file)");
	for (i = 0; i < rule->npatterns; i++)
		buf_printf(out, "%s%s", i ? " " : "", rule->patterns[i]);
}

static int widest(int width, const char *s)
{
	int n = term_width(s);

	return n > width ? n : width;
}

/* Why each rule that does not run is off, after the table: "ID: why". */
static void off_text(const struct rule_set *set)
{
	size_t i;

	if (set->off)
		putchar('\n');
	for (i = 0; i < set->count; i++) {
		if (rule_why_on(set->rules[i].why))
			continue;
		term_puts(stdout, set->rules[i].id);
		printf(": %s\n", rule_why_text(set->rules[i].why));
	}
}

/*
 * An aligned table; the patterns come last as they are the longest. Every
 * column but the kind and whether it is active comes from a rule file or
 * its path: shown through term_*, counted as shown.
 */
static int list_text(const struct rule_set *set)
{
	int w[7] = { 2, 5, 8, 5, 6, 6, 4 };
	struct buf patterns = BUF_INIT;
	size_t i;

	if (!set->count) {
		printf("no rules (add one with 'revline init')\n");
		return 0;
	}
	for (i = 0; i < set->count; i++) {
		const struct rule *r = &set->rules[i];

		w[0] = widest(w[0], r->id);
		w[2] = widest(w[2], severity_name(r->severity));
		w[3] = widest(w[3], r->model ? r->model : "-");
		w[4] = widest(w[4], r->source);
		w[6] = widest(w[6], r->path);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  PATTERNS\n", w[0], "ID", w[1], "KIND",
	       w[2], "SEVERITY", w[3], "MODEL", w[4], "SOURCE", w[5], "ACTIVE", w[6], "PATH");
	for (i = 0; i < set->count; i++) {
		const struct rule *r = &set->rules[i];
		const char *cols[7] = { r->id, r->kind == RULE_LOCAL ? "local" : "llm", severity_name(r->severity),
					r->model ? r->model : "-", r->source, rule_why_on(r->why) ? "yes" : "no",
					r->path };
		size_t k;

		patterns_text(&patterns, r);
		for (k = 0; k < 7; k++) {
			term_pad(stdout, cols[k], w[k]);
			fputs("  ", stdout);
		}
		term_puts(stdout, patterns.ptr ? patterns.ptr : "");
		putchar('\n');
	}
	off_text(set);
	buf_release(&patterns);
	return 0;
}

/* How many files the sorted problems are in; *fatal: how many of them are skipped. */
static size_t distinct_paths(const struct rule_problem **sorted, size_t count, size_t *fatal)
{
	size_t i, n = 0;
	bool skipped = false;

	*fatal = 0;
	for (i = 0; i < count; i++) {
		if (!i || strcmp(sorted[i - 1]->path, sorted[i]->path)) {
			n++;
			skipped = false;
		}
		if (sorted[i]->fatal && !skipped) {
			(*fatal)++;
			skipped = true;
		}
	}
	return n;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void lint_summary(const struct rule_set *set, size_t files, size_t skipped)
{
	if (set->nproblems && skipped)
		printf("%zu problem%s in %zu file%s (%zu skipped until fixed)\n", set->nproblems,
		       plural(set->nproblems), files, plural(files), skipped);
	else if (set->nproblems)
		printf("%zu problem%s in %zu file%s\n", set->nproblems, plural(set->nproblems),
		       files, plural(files));
	else if (set->count == 1)
		printf("the one rule is fine\n");
	else if (set->count)
		printf("all %zu rules are fine\n", set->count);
	else
		printf("no rules found\n");
}

/* --lint: every problem on stdout, then the count; 1 when there is any. */
static int lint(const struct rule_set *set, bool json)
{
	const struct rule_problem **sorted = problems_sorted(set);
	size_t i, skipped, files = distinct_paths(sorted, sorted ? set->nproblems : 0, &skipped);
	int rc = set->nproblems ? 1 : 0;

	if (set->nproblems && !sorted) {
		cli_error("out of memory");
		return 3;
	}
	if (json) {
		json_t *array = json_array();

		for (i = 0; array && i < set->nproblems; i++)
			json_array_append_new(array, problem_json(sorted[i]));
		if (print_json(json_pack("{s:i, s:o}", "rules", (json_int_t)set->count,
					 "problems", array)) < 0)
			rc = 3;
	} else {
		for (i = 0; i < set->nproblems; i++)
			rule_problem_print(stdout, sorted[i]);
		lint_summary(set, files, skipped);
	}
	free(sorted);
	return rc;
}

const struct command_help rules_help = {
	"rules",
	"revline rules [--lint] [--json] [--rules DIR]... [--no-builtin]",
	"list the review rules, or check them with --lint",
	"Lists every rule revline would use: --rules directories, then threadlines/,\n"
	".revline/rules/ and .github/cr-rules/ in the repository, then\n"
	"$XDG_CONFIG_HOME/revline/rules/, then the built-in rules; the first rule\n"
	"with an id wins. Each says whether a check runs it and, when not, why:\n"
	"when the repository has rules of its own, the built-in LLM rules are off\n"
	"unless revline.builtinRules is all. Problems in rule files go to stderr.\n"
	"With --lint, prints every problem and exits 1 when there is any.\n",
};

int cmd_rules(int argc, char **argv)
{
	struct rules_options options = { .keep_off = true };
	struct rule_set set = { 0 };
	struct string_list dirs = { 0 };
	const struct rule_problem **sorted = NULL;
	bool json = false, check = false;
	const struct option table[] = {
		OPT_BOOL(0, "lint", &check, "check the rule files: print every problem, exit 1 if any"),
		OPT_RULE_DIRS(&dirs, &options.no_builtin),
		OPT_JSON(&json),
		OPT_END(),
	};
	struct repo *repo = NULL;
	int n, rc = 0;
	size_t i;

	if ((n = parse_options(argc, argv, table, &rules_help)) < 0 || !parse_options_at_most(n, argv, 0, &rules_help)) {
		rc = n < 0 ? parse_options_exit(n) : 2;
		goto done;
	}
	options.nextra = dirs.count;
	options.extra_dirs = dirs.items;
	repo = repo_find();
	options.workdir = repo ? repo->workdir : NULL;
	if (!policy_load(&options, repo)) {
		rc = 2;
		goto done;
	}
	if (rules_load(&set, &options) < 0) {
		cli_error("%s", error_message());
		rc = 3;
		goto done;
	}
	if (check) {
		rc = lint(&set, json);
		goto done;
	}
	/* Problems do not stop the listing: the rules that loaded are still used. */
	sorted = problems_sorted(&set);
	for (i = 0; sorted && i < set.nproblems; i++)
		rule_problem_print(stderr, sorted[i]);
	if ((json ? list_json(&set) : list_text(&set)) < 0)
		rc = 3;
	else if (!json)
		standards_say(repo);
done:
	if (fflush(stdout) != 0 && rc < 2)
		rc = 3;
	free(sorted);
	rules_release(&set);
	repo_free(repo);
	free(dirs.items);
	return rc;
}
