/*
 * rules: find rule files in their directories, keep one rule per id (an
 * earlier directory wins), record the problems found, and decide which
 * built-in rules run. Parsing one file is rules_frontmatter.c; the local
 * pattern check is rules_pattern.c.
 */
#include "rules.h"
#include "rules_internal.h"
#include "array.h"
#include "config.h"
#include "datadir.h"
#include "glob.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A rule is a page of text; anything bigger is a mistake (or a binary). */
#define RULE_FILE_MAX (1024 * 1024)
/* Rule directories are shallow; the bound only stops a pathological tree. */
#define RULE_DEPTH_MAX 16

/* -------------------------------------------------------------------------
 * Problems
 */

int problem_vadd(struct rule_set *set, const char *path, int line, bool fatal,
		 const char *fmt, va_list ap)
{
	struct buf msg = BUF_INIT;
	char *copy = NULL;

	if (buf_vprintf(&msg, fmt, ap) < 0 || !(copy = strdup(path)) ||
	    ARRAY_GROW(set->problems, set->problems_alloc, set->nproblems + 1) < 0) {
		free(copy);
		buf_release(&msg);
		return error_nomem();
	}
	set->problems[set->nproblems++] = (struct rule_problem){ copy, line, buf_detach(&msg), fatal };
	return 0;
}

int problem_add(struct rule_set *set, const char *path, int line, bool fatal, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = problem_vadd(set, path, line, fatal, fmt, ap);
	va_end(ap);
	return error;
}

/* -------------------------------------------------------------------------
 * Loading the directories
 */

struct loader {
	struct rule_set *set;
	const char *source;
	size_t dir_start;       /* the rules read from the current directory start here */
	size_t alloc;           /* room in set->rules (the set is the loader's while it loads) */
	int depth;
};

static int rule_append(struct loader *ld, struct rule *rule)
{
	struct rule_set *set = ld->set;
	int error;

	if ((error = ARRAY_GROW(set->rules, ld->alloc, set->count + 1)) < 0)
		return error;
	set->rules[set->count++] = *rule;
	memset(rule, 0, sizeof(*rule));
	return 0;
}

/*
 * Keep a parsed rule unless its id is taken. Across the tiers (--rules,
 * repository, user, built-in) that is the override users ask for, so it
 * is silent; within a tier it is likely an accident, so it is noted; within
 * one directory the second file is an error.
 */
static int loader_keep(struct loader *ld, struct rule *rule, int id_line)
{
	struct rule_set *set = ld->set;
	size_t i;
	int error = 0;

	for (i = 0; i < set->count && strcmp(set->rules[i].id, rule->id); i++)
		;
	if (i == set->count) {
		rule->source = ld->source;
		return rule_append(ld, rule);
	}
	if (i >= ld->dir_start)
		error = problem_add(set, rule->path, id_line, true, "id '%s' is already used by %s: "
				    "give this rule another id", rule->id, set->rules[i].path);
	else if (set->rules[i].source == ld->source)
		error = problem_add(set, rule->path, id_line, false, "id '%s' is also used by %s, "
				    "which wins (it is searched first), so this file is left out: "
				    "give one of them another id", rule->id, set->rules[i].path);
	rule_release(rule);
	return error;
}

/* Read a rule file: 0, 1 when a problem was recorded instead, or RL_ENOMEM. */
static int read_rule_file(struct loader *ld, struct buf *text, const char *file, const char *shown)
{
	int error = buf_read_regular(text, file, "", RULE_FILE_MAX);

	if (!error || error == RL_ENOMEM)
		return error;
	if (error == RL_EPARSE)
		error = problem_add(ld->set, shown, 0, true, "%s; keep the standard to a page, and "
				    "put long material in context_files", error_message());
	else
		error = problem_add(ld->set, shown, 0, true, "%s", error_message());
	return error < 0 ? error : 1;
}

static int load_file(struct loader *ld, const char *file, const char *shown)
{
	struct buf text = BUF_INIT;
	struct rule rule;
	int id_line, error;

	if ((error = read_rule_file(ld, &text, file, shown)) != 0)
		goto done;
	error = rule_parse_at(&rule, shown, text.ptr, text.len, ld->set, &id_line);
	if (error == RL_ENOMEM)
		goto done;
	error = error < 0 ? 0 : loader_keep(ld, &rule, id_line);
done:
	buf_release(&text);
	return error < 0 ? error : 0;
}

static bool is_rule_name(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcasecmp(name + n - 3, ".md") && strcasecmp(name, "README.md");
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory that may hold rules, sorted; hidden ones left out. */
static int list_dir(struct strings *out, DIR *dir)
{
	struct dirent *entry;
	int error;

	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		if ((error = strings_add(out, entry->d_name)) < 0) {
			strings_free(out);
			return error;
		}
	}
	if (out->count)
		qsort(out->items, out->count, sizeof(*out->items), compare_names);
	return 0;
}

static int load_tree(struct loader *ld, struct buf *file, struct buf *shown);

/* One entry of a directory: a rule file, or a directory to go into. */
static int load_entry(struct loader *ld, struct buf *file, struct buf *shown, const char *name)
{
	size_t flen = file->len, slen = shown->len;
	struct stat st;
	bool link;
	int error;

	if ((error = buf_printf(file, "/%s", name)) < 0 ||
	    (error = buf_printf(shown, "/%s", name)) < 0)
		goto done;
	if (lstat(file->ptr, &st) < 0)
		goto done;
	/*
	 * Symbolic links to files are followed; to directories not, so no loop.
	 * Anything else named like a rule (a FIFO, a socket, a link to a device)
	 * is refused by the reader, which says so, without being opened.
	 */
	if ((link = S_ISLNK(st.st_mode)) && stat(file->ptr, &st) < 0)
		goto done;  /* a dangling link: nothing there */
	if (S_ISDIR(st.st_mode) && !link)
		error = load_tree(ld, file, shown);
	else if (is_rule_name(name) && !S_ISDIR(st.st_mode))
		error = load_file(ld, file->ptr, shown->ptr);
done:
	file->len = flen;
	file->ptr[flen] = '\0';
	shown->len = slen;
	shown->ptr[slen] = '\0';
	return error;
}

static int load_tree(struct loader *ld, struct buf *file, struct buf *shown)
{
	struct strings names = STRINGS_INIT;
	size_t i;
	DIR *dir;
	int error = 0;

	if (ld->depth >= RULE_DEPTH_MAX)
		return problem_add(ld->set, shown->ptr, 0, false, "directories nested deeper than "
				   "%d are not read", RULE_DEPTH_MAX);
	if (!(dir = opendir(file->ptr)))
		return problem_add(ld->set, shown->ptr, 0, true, "cannot read the directory: %s",
				   strerror(errno));
	error = list_dir(&names, dir);
	closedir(dir);
	ld->depth++;
	for (i = 0; i < names.count && !error; i++)
		error = load_entry(ld, file, shown, names.items[i]);
	ld->depth--;
	strings_free(&names);
	return error;
}

/*
 * One place to look: a directory read recursively (or, for --rules, a
 * single file). A missing directory is fine unless the user named it.
 */
static int load_root(struct loader *ld, const char *source, const char *path,
		     const char *shown_path, bool named)
{
	struct buf file = BUF_INIT, shown = BUF_INIT;
	struct stat st;
	int error = 0;

	ld->source = source;
	ld->dir_start = ld->set->count;
	ld->depth = 0;
	if (stat(path, &st) < 0) {
		/* ENOTDIR: .revline is the settings file, so .revline/rules cannot be there. */
		if (named || (errno != ENOENT && errno != ENOTDIR))
			error = problem_add(ld->set, shown_path, 0, true, "%s%s", named ? "--rules: " : "",
					    errno == ENOENT ? "no such directory" : strerror(errno));
		return error;
	}
	if (named && S_ISREG(st.st_mode))
		return load_file(ld, path, shown_path);
	if (!S_ISDIR(st.st_mode))
		return named ? problem_add(ld->set, shown_path, 0, true, "--rules: not a directory") : 0;
	if ((error = buf_puts(&file, path)) < 0 || (error = buf_puts(&shown, shown_path)) < 0)
		goto done;
	/* "dir/" and "dir" name the same place; children are joined with '/'. */
	while (file.len > 1 && file.ptr[file.len - 1] == '/')
		file.ptr[--file.len] = '\0';
	while (shown.len > 1 && shown.ptr[shown.len - 1] == '/')
		shown.ptr[--shown.len] = '\0';
	error = load_tree(ld, &file, &shown);
done:
	buf_release(&file);
	buf_release(&shown);
	return error;
}

/*
 * How a --rules path is shown: relative to the working tree's root when
 * it is inside it (as the repository's own rules are), else absolute.
 */
static int shown_path(struct buf *out, const char *path, const char *workdir)
{
	char *real = realpath(path, NULL), *root = workdir ? realpath(workdir, NULL) : NULL;
	size_t n = root ? strlen(root) : 0;
	int error;

	buf_clear(out);
	if (real && root && !strncmp(real, root, n) && real[n] == '/' && real[n + 1])
		error = buf_puts(out, real + n + 1);
	else
		error = buf_puts(out, real ? real : path);
	free(real);
	free(root);
	return error;
}

/* A data directory shown as a full path, without resolving its links. */
static int absolute_path(struct buf *out, const char *path)
{
	char cwd[PATH_MAX];
	struct buf tmp = BUF_INIT;
	int error;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return 0;
	if ((error = buf_printf(&tmp, "%s/%s", cwd, path)) == 0) {
		buf_release(out);
		*out = tmp;
	}
	return error;
}

static const char *const repository_dirs[] = { "threadlines", ".revline/rules", ".github/cr-rules" };

/* -------------------------------------------------------------------------
 * Which built-in rules run
 */

static const char *const builtin_names[] = { "auto", "all", "local", "none" };

const char *rules_builtin_name(enum rules_builtin builtin)
{
	return builtin_names[builtin];
}

int rules_builtin_load(enum rules_builtin *out, struct config *config)
{
	char *value = NULL;
	size_t i;
	int error;

	*out = RULES_BUILTIN_AUTO;
	if ((error = config_get(&value, config, "revline.builtinRules")) == RL_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	for (i = 0; i < 4 && strcasecmp(value, builtin_names[i]); i++)
		;
	if (i < 4)
		*out = (enum rules_builtin)i;
	else
		error = error_set(RL_ECONFIG, "revline.builtinRules is '%.40s': it takes "
				  RULES_BUILTIN_VALUES " (git config revline.builtinRules, or .revline)",
				  value);
	free(value);
	return error;
}

static bool is_builtin(const struct rule *rule)
{
	return rule->source && !strcmp(rule->source, "built-in");
}

static bool is_named(const struct rule *rule, const struct rules_options *options)
{
	size_t i;

	for (i = 0; i < options->nnamed; i++)
		if (!strcmp(options->named[i], rule->id))
			return true;
	return false;
}

enum rule_why rules_policy(const struct rule *rule, const struct rules_options *options, bool own)
{
	if (!is_builtin(rule))
		return RULE_ON;
	if (is_named(rule, options))
		return RULE_ON_NAMED;
	if (options->no_builtin)
		return RULE_OFF_FLAG;
	switch (options->builtin) {
	case RULES_BUILTIN_ALL:
		return RULE_ON_ALL;
	case RULES_BUILTIN_NONE:
		return RULE_OFF_NONE;
	case RULES_BUILTIN_LOCAL:
		return rule->kind == RULE_LOCAL ? RULE_ON_LOCAL : RULE_OFF_LOCAL;
	case RULES_BUILTIN_AUTO:
		break;
	}
	if (!own)
		return RULE_ON_NO_OWN;
	return rule->kind == RULE_LOCAL ? RULE_ON_LOCAL : RULE_OFF_OWN;
}

bool rule_why_on(enum rule_why why)
{
	return why < RULE_OFF_OWN;
}

const char *rule_why_text(enum rule_why why)
{
	switch (why) {
	case RULE_ON: return "on";
	case RULE_ON_NAMED: return "on: named by --rule";
	case RULE_ON_NO_OWN: return "built-in, on: the repository has no rules of its own";
	case RULE_ON_LOCAL: return "built-in local pattern rule, on (it needs no LLM)";
	case RULE_ON_ALL: return "built-in, on: revline.builtinRules=all";
	case RULE_OFF_OWN:
		return "built-in LLM rule, off: the repository has rules of its own "
		       "(revline.builtinRules=all to run it)";
	case RULE_OFF_LOCAL: return "built-in LLM rule, off: revline.builtinRules=local";
	case RULE_OFF_NONE: return "built-in rule, off: revline.builtinRules=none";
	case RULE_OFF_FLAG: return "built-in rule, off: --no-builtin";
	}
	return "";
}

const char *rules_policy_text(const struct rules_options *options, bool own)
{
	if (options->no_builtin)
		return "--no-builtin: no built-in rule runs";
	switch (options->builtin) {
	case RULES_BUILTIN_ALL: return "revline.builtinRules=all: every built-in rule runs";
	case RULES_BUILTIN_LOCAL:
		return "revline.builtinRules=local: only the built-in local pattern rules run";
	case RULES_BUILTIN_NONE: return "revline.builtinRules=none: no built-in rule runs";
	case RULES_BUILTIN_AUTO: break;
	}
	return own ? "the repository has rules of its own, so the built-in LLM rules are off "
		     "(revline.builtinRules=all runs them)" :
		     "the repository has no rules of its own, so every built-in rule runs";
}

/* Whether the repository gave a rule: from its folders, or --rules. */
static bool rules_own(const struct rule_set *set)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (!strcmp(set->rules[i].source, "repository") || !strcmp(set->rules[i].source, "--rules"))
			return true;
	return false;
}

/* Mark every rule; leave out the ones turned off unless they are to be listed. */
static void policy_apply(struct rule_set *set, const struct rules_options *options)
{
	size_t i, n = 0;

	set->own = rules_own(set);
	set->off = 0;
	for (i = 0; i < set->count; i++) {
		struct rule *rule = &set->rules[i];

		rule->why = rules_policy(rule, options, set->own);
		if (!rule_why_on(rule->why))
			set->off++;
		if (!rule_why_on(rule->why) && !options->keep_off)
			rule_release(rule);
		else
			set->rules[n++] = *rule;
	}
	set->count = n;
}

int rules_load(struct rule_set *out, const struct rules_options *options)
{
	struct loader ld = { out, NULL, 0, 0, 0 };
	struct buf path = BUF_INIT, shown = BUF_INIT;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < options->nextra && !error; i++) {
		if (!(error = shown_path(&shown, options->extra_dirs[i], options->workdir)))
			error = load_root(&ld, "--rules", options->extra_dirs[i], shown.ptr, true);
	}
	for (i = 0; options->workdir && *options->workdir && i < 3 && !error; i++) {
		const char *wd = options->workdir;
		size_t n = strlen(wd);

		buf_clear(&path);
		if (!(error = buf_printf(&path, "%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/",
					 repository_dirs[i])))
			error = load_root(&ld, "repository", path.ptr, repository_dirs[i], false);
	}
	if (!error && !options->no_user && datadir_user(&path, "rules") == 0)
		error = load_root(&ld, "user", path.ptr, path.ptr, false);
	if (!error && datadir_find(&path, "rules") == 0 && !(error = absolute_path(&path, path.ptr)))
		error = load_root(&ld, "built-in", path.ptr, path.ptr, false);
	if (!error) {
		policy_apply(out, options);
		error_clear();  /* a missing user or built-in directory is not a failure */
	}
	buf_release(&path);
	buf_release(&shown);
	return error;
}

void rules_release(struct rule_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->count; i++)
		rule_release(&set->rules[i]);
	free(set->rules);
	for (i = 0; i < set->nproblems; i++) {
		free(set->problems[i].path);
		free(set->problems[i].message);
	}
	free(set->problems);
	memset(set, 0, sizeof(*set));
}

/* -------------------------------------------------------------------------
 * Using the rules
 */

bool rule_applies(const struct rule *rule, const char *path)
{
	if (!rule->npatterns)
		return true;
	if (rule->globs)
		return glob_list_matches(rule->globs, path);
	/* A rule built by hand, not parsed: its patterns compiled for this once. */
	return glob_match_list((const char *const *)rule->patterns, rule->npatterns, path);
}

const struct rule *rules_find(const struct rule_set *set, const char *id)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (!strcmp(set->rules[i].id, id))
			return &set->rules[i];
	return NULL;
}

/*
 * The starter rule `revline init` writes: a real standard, every field
 * explained, so that a team can copy it to write its own.
 */
const char rules_example[] =
	"---\n"
	"# A rule (\"threadline\"): one standard your team agrees on. On every change\n"
	"# to the files it applies to, the LLM reviews the diff against the text\n"
	"# below the front matter. Edit this one, or copy it to write more:\n"
	"# `revline rules` lists the rules and `revline rules --lint` checks them.\n"
	"\n"
	"# A short, unique name: letters, digits, '-', '_' and '.'. A rule with the\n"
	"# id of a built-in rule (see `revline rules`) replaces that rule.\n"
	"id: error-messages\n"
	"\n"
	"# Your own version of the standard; raise it when you change the rule.\n"
	"version: 1.0.0\n"
	"\n"
	"# How much a finding matters: critical, major (the default), minor, nitpick.\n"
	"severity: minor\n"
	"\n"
	"# A free word to group findings in reports.\n"
	"category: maintainability\n"
	"\n"
	"# The files it applies to, gitignore-style; '!' leaves files out and the\n"
	"# last match wins. Without patterns a rule applies to every file.\n"
	"patterns:\n"
	"  - \"**/*.{c,h,cc,cpp,go,rs,py,js,ts,java,kt,rb,php,cs,swift}\"\n"
	"  - \"!**/{test,tests,testdata}/**\"\n"
	"\n"
	"# Files of the repository sent with the rule as background (paths from the\n"
	"# repository's root), such as the module that defines your error types.\n"
	"context_files: []\n"
	"\n"
	"# A model for this rule alone, instead of the configured one:\n"
	"# model: gpt-5-mini\n"
	"\n"
	"# A PCRE2 expression here would make this a local rule, checked on added\n"
	"# lines without the LLM (see the built-in conflict-markers rule):\n"
	"# pattern: '^(<{7}|={7}|>{7})( |$)'\n"
	"---\n"
	"\n"
	"# Error messages say what failed, with what, and what to do\n"
	"\n"
	"An error message is read by someone who cannot see the code: a user at a\n"
	"terminal, or an engineer reading logs at night. It must let them act\n"
	"without opening the source.\n"
	"\n"
	"## What to look for\n"
	"\n"
	"- A new or changed error message that does not name the operation that\n"
	"  failed (\"error\", \"failed\", \"invalid input\", \"something went wrong\").\n"
	"- A message that leaves out the value that was wrong: the path that was not\n"
	"  found, the key that was missing, the limit that was exceeded.\n"
	"- A message that drops the underlying cause: the system error, the\n"
	"  exception being wrapped, the status code of the response.\n"
	"- A user-facing message that gives no next step when one exists (\"set\n"
	"  DATABASE_URL\", \"run `make migrate`\", \"the file must be UTF-8\").\n"
	"- The same message text used for two different failures, so that a report\n"
	"  cannot tell which one happened.\n"
	"\n"
	"## Good\n"
	"\n"
	"```python\n"
	"raise ConfigError(\n"
	"    f\"cannot read {path}: {err.strerror}; \"\n"
	"    \"set APP_CONFIG to the configuration file or create it with `app init`\"\n"
	") from err\n"
	"```\n"
	"\n"
	"```go\n"
	"return fmt.Errorf(\"load user %d from %s: %w\", id, table, err)\n"
	"```\n"
	"\n"
	"## Bad\n"
	"\n"
	"```python\n"
	"raise ConfigError(\"Invalid configuration\")\n"
	"```\n"
	"\n"
	"```go\n"
	"return errors.New(\"failed\")\n"
	"```\n"
	"\n"
	"## Do not flag\n"
	"\n"
	"- Messages in tests, and assertion messages that only a developer reads.\n"
	"- Errors passed up unchanged where the caller adds the context.\n"
	"- Messages that must not carry the value for security reasons (a password,\n"
	"  a token): saying which field was wrong is enough there.\n"
	"- Wording and style alone, when the message already says what failed and why.\n";
