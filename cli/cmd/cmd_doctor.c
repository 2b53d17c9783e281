/* revline doctor: what is configured, and whether it works. */
#include "commands.h"
#include "tags.h"
#include "models.h"
#include "config.h"
#include "datadir.h"
#include "ask.h"
#include "check.h"
#include "sched.h"
#include "llm.h"
#include "rules.h"
#include "status.h"
#include "store.h"
#include "store_location.h"
#include "term.h"
#include "trust.h"

#include "lint.h"
#include "theme.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A program's version: the first line of `PROG --version` with a digit in it, up to a " (" of details. */
static void version_of(char *out, size_t size, const char *command)
{
	char cmd[300], line[256];
	FILE *fp;

	*out = '\0';
	snprintf(cmd, sizeof(cmd), "%.*s --version 2>/dev/null", (int)strcspn(command, " \t"), command);
	if (!(fp = popen(cmd, "r")))
		return;
	while (!*out && fgets(line, sizeof(line), fp))
		if (strpbrk(line, "0123456789"))
			snprintf(out, size, "%.*s", (int)strcspn(line, "\n"), line);
	pclose(fp);
	if (strstr(out, " (") && strpbrk(out, "0123456789") < strstr(out, " ("))
		*strstr(out, " (") = '\0';
}

/* The linters `revline signals --run` runs: installed or not, and the user's command. */
static void linters_section(struct config *config)
{
	char version[256];
	size_t i;

	printf("linters:    (revline signals --run; gcc, clang and SARIF output: --import)\n");
	for (i = 0; i < LINTER_COUNT; i++) {
		bool user;
		char *command = linter_command(config, (enum linter)i, &user);

		if (!command)
			continue;
		if (user)
			term_printf(stdout, "  %-11s git config revline.lint.%s: %s\n", linter_name((enum linter)i),
				    linter_name((enum linter)i), command);
		else if (!linter_installed(command))
			printf("  %-11s not installed\n", linter_name((enum linter)i));
		else {
			version_of(version, sizeof(version), command);
			term_printf(stdout, "  %-11s %s\n", linter_name((enum linter)i), *version ? version : "installed");
		}
		free(command);
	}
}

/*
 * What leaves the machine for the provider besides the diff (revline.context)
 * and whether universal-ctags is there to find the repository's
 * definitions. Its absence fails nothing: the review goes on with less.
 */
static void context_section(struct config *config)
{
	struct check_options o = { 0 };
	struct tags_program ctags = { 0 };
	char version[256] = "";

	if (check_options_load(&o, config) < 0) {
		term_printf(stdout, "context:    error: %s\n", error_message());
		return;
	}
	if (o.context == CONTEXT_NONE) {
		printf("context:    none (revline.context): the model is sent the diff alone\n");
		return;
	}
	printf("context:    %s (revline.context): with the diff, up to %ld tokens a request of the repository's own "
	       "code (callers of what changed, the function around it, definitions it uses)%s\n",
	       check_context_mode_name(o.context), o.context_tokens,
	       o.context == CONTEXT_TOOLS ? "; models that take tools may also read tracked files "
					    "(read_file, search, references)" : "");
	if (tags_program_find(&ctags, o.ctags[0] ? o.ctags : NULL) < 0) {
		term_printf(stdout, "  ctags:    %s: definitions are not found, only references\n", error_message());
		return;
	}
	version_of(version, sizeof(version), ctags.path);
	version[strcspn(version, ",")] = '\0';
	term_printf(stdout, "  ctags:    %s (%s)\n", *version ? version : "installed", ctags.path);
	tags_program_release(&ctags);
}

/* One step's model, and the setting that chose it. */
static void model_line(const char *step, const char *model, const char *base, const char *key,
		       const char *note)
{
	if (strcmp(model, base))
		term_printf(stdout, "  %-9s %s (%s%s)\n", step, model, key, note);
	else
		term_printf(stdout, "  %-9s %s (the model; %s sets another%s)\n", step, model, key, note);
}

/* Which model each step asks: the rules (map), the reduce step, fixes and fix detection. */
static void models_split(const struct llm_config *llm)
{
	model_line("map:", llm->map_model, llm->model, "revline.mapModel", "; a rule's own model wins");
	model_line("reduce:", llm->reduce_model, llm->model, "revline.reduceModel", "");
	term_printf(stdout, "  %-9s %s (revline.model; fixes and fix detection)\n", "fix:", llm->model);
}

/* How a model is asked, from its row of the model table. */
static void model_asking(const struct llm_config *llm, const struct asker_options *ask, const char *model)
{
	static const char *const structured[] = { "the prompt alone", "json_object", "json_schema" };
	const struct model_info *info;

	models_lookup(&info, llm->models, provider_name(llm->provider), model);
	term_printf(stdout, "  %-9s %s%s, %s, %s%s (%s:%d)\n", "asking:", ask->no_stream ? "whole" : "streamed",
		    llm->json_mode ? "" : "; revline.jsonMode false",
		    structured[llm->json_mode ? info->structured : MODEL_STRUCTURED_NONE],
		    info->temperature ? "temperature" : "no temperature",
		    info->reasoning_effort ? ", reasoning_effort" : "", info->path, info->line);
}

/* What servers refused, as the request cycle learnt it (it leaves those out). */
static void refusals_lines(const struct llm_config *llm, struct config *config)
{
	const char *models[] = { llm->map_model, llm->reduce_model, llm->model };
	struct buf path = BUF_INIT, names = BUF_INIT;
	struct store *store = NULL;
	size_t i;

	/* Only a database that is there: the store section says the rest. */
	if (store_default_path(&path, config) < 0 ||
	    (store_location_kind(path.ptr) == STORE_LOCATION_FILE && access(path.ptr, F_OK) != 0) ||
	    store_open(&store, path.ptr) < 0) {
		error_clear();
		buf_release(&path);
		return;
	}
	for (i = 0; i < 3; i++) {
		if ((i && !strcmp(models[i], models[0])) || (i == 2 && !strcmp(models[2], models[1])))
			continue;
		buf_clear(&names);
		if (store_refusals_get(&names, store, llm->base_url, models[i]) == 0 && names.len)
			term_printf(stdout, "  %-9s %s refused %s (left out since; revline.db's llm_refusals)\n",
				    "refused:", models[i], names.ptr);
	}
	store_close(store);
	buf_release(&names);
	buf_release(&path);
}

static int provider_section(struct config *config)
{
	struct llm_config llm;
	struct asker_options ask;
	struct buf msg = BUF_INIT;
	int ok = 0;

	if (llm_config_load(&llm, config) < 0 || asker_options_load(&ask, config) < 0) {
		term_printf(stdout, "provider:   error: %s\n", error_message());
		return 1;
	}
	if (llm.provider == PROVIDER_NONE) {
		printf("provider:   none (%s)\n", llm_setup_hint);
		llm_config_release(&llm);
		return 0;
	}
	term_printf(stdout, "provider:   %s, model %s\n", provider_name(llm.provider), llm.model);
	models_split(&llm);
	model_asking(&llm, &ask, llm.map_model);
	refusals_lines(&llm, config);
	term_printf(stdout, "base URL:   %s\n", llm.base_url);
	printf("API key:    %s\n", llm.api_key ? llm.key_source : "none (fine for a local server)");
	if (llm_ping(&msg, &llm, 10) == 0) {
		term_printf(stdout, "answers:    yes, %s\n", msg.ptr);
	} else {
		term_printf(stdout, "answers:    NO: %s\n", msg.ptr ? msg.ptr : error_message());
		ok = 1;
	}
	buf_release(&msg);
	llm_config_release(&llm);
	return ok;
}

/* Whom a team's store says wrote what this clone writes. */
static void author_line(struct config *config)
{
	char *email = NULL;

	if (config_get(&email, config, "user.email") == 0 && *email)
		term_printf(stdout, "author:     %s (git's user.email, recorded with checks and feedback)\n", email);
	else
		printf("author:     not set (git config user.email): checks and feedback are recorded without one\n");
	error_clear();
	free(email);
}

static int store_section(struct config *config)
{
	struct buf path = BUF_INIT, shown = BUF_INIT;
	struct store *store = NULL;
	int bad = 0;

	/* A connection string is shown without its password. */
	if (store_default_path(&path, config) < 0 || store_location_display(&shown, path.ptr) < 0) {
		term_printf(stdout, "database:   error: %s\n", error_message());
		buf_release(&path);
		return 1;
	}
	if (store_open(&store, path.ptr) < 0) {
		term_printf(stdout, "database:   %s: %s\n", shown.ptr, error_message());
		bad = 1;
	} else {
		term_printf(stdout, "database:   %s (schema %d)\n", shown.ptr, store_version(store));
		author_line(config);
	}
	store_close(store);
	buf_release(&shown);
	buf_release(&path);
	return bad;
}

/* What a check would run under revline.builtinRules: the counts, then the policy in words. */
static void rules_runs(const struct rule_set *set, const struct rules_options *ro)
{
	size_t i, own = 0, user = 0, on[2] = { 0 }, off[2] = { 0 };

	for (i = 0; i < set->count; i++) {
		const struct rule *r = &set->rules[i];
		bool local = r->kind == RULE_LOCAL;

		if (!strcmp(r->source, "user"))
			user++;
		else if (strcmp(r->source, "built-in"))
			own++;
		else if (rule_why_on(r->why))
			on[local]++;
		else
			off[local]++;
	}
	printf("  runs:     %zu of the repository's, ", own);
	if (user)
		printf("%zu of yours, ", user);
	printf("%zu built-in local, %zu built-in LLM", on[1], on[0]);
	if (off[0])
		printf("; off: %zu built-in LLM", off[0]);
	if (off[1])
		printf("%s%zu built-in local", off[0] ? ", " : "; off: ", off[1]);
	printf("\n  policy:   %s\n", rules_policy_text(ro, set->own));
}

static int rules_section(struct repo *repo, struct config *config)
{
	struct rules_options ro = { .workdir = repo ? repo->workdir : NULL, .keep_off = true };
	struct rule_set set = { 0 };
	size_t i, local = 0, fatal = 0;

	if (rules_builtin_load(&ro.builtin, config) < 0 || rules_load(&set, &ro) < 0) {
		term_printf(stdout, "rules:      error: %s\n", error_message());
		return 1;
	}
	for (i = 0; i < set.count; i++)
		local += set.rules[i].kind == RULE_LOCAL;
	for (i = 0; i < set.nproblems; i++)
		fatal += set.problems[i].fatal;
	printf("rules:      %zu (%zu LLM, %zu local pattern); %zu problem%s, %zu skipped "
	       "(revline rules --lint)\n", set.count, set.count - local, local, set.nproblems,
	       set.nproblems == 1 ? "" : "s", fatal);
	for (i = 0; i < set.nproblems; i++) {
		fputs("  ", stdout);
		rule_problem_print(stdout, &set.problems[i]);
	}
	rules_runs(&set, &ro);
	rules_release(&set);
	return fatal ? 1 : 0;
}

/* A linter's command set for a linter revline does not have (revline.lint.pylint): one line each. */
static int lint_names_check(struct config *config)
{
	struct strings keys = STRINGS_INIT;
	struct buf where = BUF_INIT, known = BUF_INIT;
	size_t i, k, prefix = strlen("revline.lint.");
	int bad = 0;

	if (config_keys_under(&keys, config, "revline.lint.") < 0) {
		term_printf(stdout, "settings:   error: %s\n", error_message());
		return 1;
	}
	for (k = 0; k < LINTER_COUNT; k++)
		buf_printf(&known, "%s%s", k ? ", " : "", linter_name((enum linter)k));
	for (i = 0; i < keys.count; i++) {
		const char *name = keys.items[i] + prefix;
		struct text_guess guess;

		if (linter_of_name(name) >= 0)
			continue;
		text_guess_init(&guess, name, strlen(name));
		for (k = 0; k < LINTER_COUNT; k++)
			text_guess_try(&guess, linter_name((enum linter)k), k);
		config_where(&where, config, keys.items[i]);
		term_printf(stdout, "settings:   error: %s: no linter of that name%s%s%s; revline runs %s "
			    "(set in %s)\n", keys.items[i], text_guess_result(&guess) ? " (did you mean revline.lint." : "",
			    text_guess_result(&guess) ? text_guess_result(&guess) : "",
			    text_guess_result(&guess) ? "?)" : "", known.ptr, where.len ? where.ptr : "git config");
		bad = 1;
	}
	error_clear();
	buf_release(&known);
	buf_release(&where);
	strings_free(&keys);
	return bad;
}

/*
 * Every setting, read by the code the commands read it with (the first bad
 * one of each reader), then every key set that no reader reads.
 */
static int settings_section(struct config *config)
{
	const struct strings *unknown = config_unknown(config);
	struct sched_options sched;
	struct asker_options ask;
	struct check_options check = { 0 };
	size_t i;
	int bad = 0;

	if (sched_options_load(&sched, config) < 0 && ++bad)
		term_printf(stdout, "settings:   error: %s\n", error_message());
	if (asker_options_load(&ask, config) < 0 && ++bad)
		term_printf(stdout, "settings:   error: %s\n", error_message());
	/* It reads the two above again: only what they did not say. */
	if (!bad && check_options_load(&check, config) < 0 && ++bad)
		term_printf(stdout, "settings:   error: %s\n", error_message());
	for (i = 0; i < unknown->count; i++, bad = 1)
		term_printf(stdout, "settings:   error: %s\n", unknown->items[i]);
	bad |= lint_names_check(config);
	if (!bad)
		printf("settings:   ok (git config --get-regexp '^revline\\.' lists them)\n");
	return bad ? 1 : 0;
}

/* The themes there are, for a name that is none of them. */
static void themes_list(struct buf *out)
{
	struct strings names = STRINGS_INIT;
	size_t i;

	if (datadir_names(&names, "themes") < 0 || !names.count)
		buf_puts(out, "none found (revline's themes directory is missing: set REVLINE_DATADIR)");
	for (i = 0; i < names.count; i++)
		buf_printf(out, "%s%s", i ? ", " : "", names.items[i]);
	error_clear();
	strings_free(&names);
}

/*
 * The terminal UI's theme as the settings give it (--theme and NO_COLOR
 * aside), loaded as the UI loads it: a name that is no theme, a file that
 * cannot be read or a bad line is broken.
 */
static int theme_section(struct config *config)
{
	struct buf errors = BUF_INIT, where = BUF_INIT, file = BUF_INIT, list = BUF_INIT;
	const char *env = getenv("REVLINE_THEME"), *p, *nl;
	struct theme theme;
	char *name = NULL;
	int bad, rc;

	if (config_get(&name, config, "revline.theme") < 0) {
		printf("theme:      default-dark\n");
		error_clear();
		return 0;
	}
	if (env && *env)
		buf_puts(&where, "REVLINE_THEME");
	else if (config_where(&file, config, "revline.theme") == 0)
		buf_printf(&where, "revline.theme, set in %s", file.ptr);
	else
		buf_puts(&where, "revline.theme");
	error_clear();
	if ((bad = theme_load(&theme, name, &errors)) < 0 && !strchr(name, '/')) {
		themes_list(&list);
		term_printf(stdout, "theme:      %s (%s): no theme of that name; the themes: %s\n", name, where.ptr,
			    list.ptr);
	} else if (bad < 0) {
		term_printf(stdout, "theme:      %s (%s): %s", name, where.ptr, errors.ptr ? errors.ptr : "cannot be read\n");
	} else if (bad > 0) {
		term_printf(stdout, "theme:      %s (%s): %d bad line%s, each style keeps its default\n", name,
			    where.ptr, bad, bad == 1 ? "" : "s");
		for (p = errors.ptr ? errors.ptr : ""; *p; p = nl + 1) {
			nl = p + strcspn(p, "\n");
			term_printf(stdout, "  %.*s\n", (int)(nl - p), p);
			if (!*nl)
				break;
		}
	} else {
		term_printf(stdout, "theme:      %s (%s)\n", name, where.ptr);
	}
	rc = bad ? 1 : 0;
	error_clear();
	buf_release(&list);
	buf_release(&file);
	buf_release(&where);
	buf_release(&errors);
	free(name);
	return rc;
}

/* The model table: how many rows, and every bad row by path:line (it is skipped). */
static void models_section(void)
{
	struct models *m = NULL;
	size_t i;

	if (models_load(&m) < 0) {
		term_printf(stdout, "models:     %s\n", error_message());
		return;
	}
	printf("models:     %zu rows (%zu table%s); %zu problem%s\n", m->count, m->npaths,
	       m->npaths == 1 ? "" : "s", m->nproblems + m->dropped,
	       m->nproblems + m->dropped == 1 ? "" : "s");
	for (i = 0; i < m->nproblems; i++)
		term_printf(stdout, "  %s\n", m->problems[i]);
	models_free(m);
}

/* The repository's .revline: trusted or not, and what of it does not count until it is. */
static void revline_section(const struct config *config)
{
	const struct config_revline *file = config_revline(config);

	if (!file)
		return;
	if (file->unread)
		term_printf(stdout, ".revline:   %s\n", file->unread);
	else if (file->trust == TRUST_TRUSTED)
		term_printf(stdout, ".revline:   %s, trusted (sha256 %.12s)%s%s\n", file->path, file->hash,
			    file->sensitive ? ": " : "", file->sensitive ? file->sensitive : "");
	else if (file->sensitive)
		term_printf(stdout, ".revline:   %s, %s: %s ignored; to let %s count, run: revline trust\n",
			    file->path, file->trust == TRUST_CHANGED ? "changed since you trusted it" :
			    "not trusted", file->sensitive, strchr(file->sensitive, ',') ? "them" : "it");
	else
		term_printf(stdout, ".revline:   %s, not trusted (it sets nothing that needs trust)\n",
			    file->path);
}

const struct command_help doctor_help = {
	"doctor",
	"revline doctor",
	"say what is configured and whether it works",
	"Shows the repository, the LLM provider, its models (map, reduce, fix) and\n"
	"whether it answers, the database, the rules and which of them a check runs,\n"
	"and which linters are installed. Exit 1 when something is broken.\n",
};

int cmd_doctor(int argc, char **argv)
{
	const struct option options[] = { OPT_END() };
	struct config *config = NULL;
	struct repo *repo = NULL;
	struct buf dir = BUF_INIT;
	int n, bad = 0;

	if ((n = parse_options(argc, argv, options, &doctor_help)) < 0)
		return parse_options_exit(n);
	if (!parse_options_at_most(n, argv, 0, &doctor_help))
		return 2;
	printf("revline %s\n", REVLINE_VERSION);
	if (repo_open(&repo, NULL) == 0)
		term_printf(stdout, "repository: %s (%s)\n", repo->workdir ? repo->workdir : repo->gitdir,
			    repo->branch);
	else
		term_printf(stdout, "repository: none here (%s)\n", error_message());
	if (config_open(&config, repo) < 0) {
		term_printf(stdout, "config:     error: %s\n", error_message());
		bad = 1;
	}
	revline_section(config);
	if (config)
		bad |= settings_section(config);
	bad |= provider_section(config);
	if (config)
		context_section(config);
	bad |= store_section(config);
	bad |= rules_section(repo, config);
	term_printf(stdout, "data:       %s\n", datadir_find(&dir, "themes") == 0 ? dir.ptr : error_message());
	bad |= theme_section(config);
	models_section();
	linters_section(config);
	buf_release(&dir);
	config_free(config);
	repo_free(repo);
	return bad ? 1 : 0;
}
