/* What a check looks at: its rules, revline.ignore, and which files of the change each rule sees. */
#include "check_state.h"
#include "glob.h"
#include "repo_attr.h"
#include "scope.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --rule ID: keep only the named rules; every name must exist. */
static int rules_select(struct check *c)
{
	struct rule *kept;
	size_t i, k, n = 0;

	if (!c->opts.nrule_ids)
		return 0;
	for (i = 0; i < c->opts.nrule_ids; i++)
		if (!rules_find(&c->rules, c->opts.rule_ids[i]))
			return error_set(RL_EUSAGE, "no rule with id '%s' (see 'revline rules')",
					 c->opts.rule_ids[i]);
	if (!(kept = calloc(c->opts.nrule_ids, sizeof(*kept))))
		return error_nomem();
	for (i = 0; i < c->rules.count; i++) {
		for (k = 0; k < c->opts.nrule_ids && strcmp(c->rules.rules[i].id, c->opts.rule_ids[k]); k++)
			;
		if (k < c->opts.nrule_ids)
			kept[n++] = c->rules.rules[i];
		else
			rule_release(&c->rules.rules[i]);
	}
	free(c->rules.rules);
	c->rules.rules = kept;
	c->rules.count = n;
	return 0;
}

/*
 * The files of the diff a rule looks at: matching, not binary, not lock
 * files, not left out (generated and vendored files only of LLM rules: a
 * local pattern rule costs nothing).
 */
static bool rule_wants(const struct check *c, const struct rule *rule, const struct diff_file *f)
{
	size_t i = (size_t)(f - c->diff->files);

	if (f->flags & DIFF_FILE_BINARY || deps_is_lock_file(f->path) ||
	    (c->skip && c->skip[i] && (rule->kind != RULE_LOCAL || c->skip_local[i])))
		return false;
	return rule_applies(rule, f->path) || (f->old_path != f->path && rule_applies(rule, f->old_path));
}

/*
 * Every rule against every file, once, when the files are scoped: the plan,
 * each part's rule files, the local rules and the results ask it again and
 * again (wants[rule * nfiles + file]).
 */
static int wants_compute(struct check *c)
{
	size_t r, i, n = c->diff->nfiles;

	if (!(c->wants = calloc(c->rules.count * n + 1, 1)) ||
	    !(c->nwanted = calloc(c->rules.count + 1, sizeof(*c->nwanted))))
		return error_nomem();
	for (r = 0; r < c->rules.count; r++)
		for (i = 0; i < n; i++)
			if ((c->wants[r * n + i] = rule_wants(c, &c->rules.rules[r], &c->diff->files[i])))
				c->nwanted[r]++;
	return 0;
}

/* A rule of the check is one of c->rules, a file one of c->diff's. */
bool check_rule_wants(const struct check *c, const struct rule *rule, const struct diff_file *f)
{
	if (!c->wants)
		return rule_wants(c, rule, f);
	return c->wants[(size_t)(rule - c->rules.rules) * c->diff->nfiles + (size_t)(f - c->diff->files)];
}

size_t check_rule_files(const struct check *c, const struct rule *rule)
{
	size_t i, n = 0;

	if (c->nwanted)
		return c->nwanted[rule - c->rules.rules];
	for (i = 0; i < c->diff->nfiles; i++)
		n += rule_wants(c, rule, &c->diff->files[i]);
	return n;
}

/* revline.ignore: the patterns of the file it names, read from the working tree. */
static int ignore_load(struct check *c)
{
	struct buf text = BUF_INIT;
	int error;

	if (!c->opts.ignore_file[0])
		return 0;
	if ((error = repo_read_workdir(&text, c->repo, c->opts.ignore_file, 0)) < 0)
		error = error_set(RL_ECONFIG, "revline.ignore names %s, which cannot be read: %s",
				  c->opts.ignore_file, error_message());
	else if ((error = scope_ignore_parse(&c->ignore, text.ptr ? text.ptr : "", text.len)) < 0 &&
		 error != RL_ENOMEM)
		error = error_set(RL_ECONFIG, "%s (revline.ignore): %s", c->opts.ignore_file, error_message());
	buf_release(&text);
	return error;
}

/*
 * Why no LLM rule is asked about a file: revline.ignore, .gitattributes
 * (asked only when an attributes file along the change's paths speaks of
 * linguist), its content; NULL when none.
 */
static int file_scope(char **out, struct check *c, size_t i, bool linguist)
{
	const struct diff_file *f = &c->diff->files[i];
	const char *why = NULL, *attr = NULL;
	char detail[128];
	int error;

	*out = NULL;
	if (f->flags & DIFF_FILE_BINARY || deps_is_lock_file(f->path))
		return 0;
	if (glob_list_matches(c->ignore, f->path) || glob_list_matches(c->ignore, f->old_path)) {
		why = "ignored (revline.ignore)";
		c->skip_local[i] = true;
	}
	else if (linguist && (error = repo_linguist(&attr, c->repo, f->path)) < 0)
		return error;
	else if (attr)
		why = !strcmp(attr, "linguist-vendored") ? "vendored (linguist-vendored in .gitattributes)" :
			"generated (linguist-generated in .gitattributes)";
	else if ((error = diff_file_load(c->diff, i)) < 0)
		return error;
	else
		why = scope_generated(detail, sizeof(detail), f);
	if (why && !(*out = strdup(why)))
		return error_nomem();
	return 0;
}

/* Whether an attributes file along the change's paths may mark one linguist-generated or -vendored. */
static int linguist_possible(bool *out, struct check *c)
{
	static const char *const words[] = { "linguist-", NULL };
	const char **paths = malloc((2 * c->diff->nfiles + 1) * sizeof(*paths));
	bool silent;
	size_t i;
	int error;

	*out = true;
	if (!paths)
		return error_nomem();
	for (i = 0; i < c->diff->nfiles; i++) {
		paths[2 * i] = c->diff->files[i].path;
		paths[2 * i + 1] = c->diff->files[i].old_path;
	}
	if ((error = repo_attr_silent(&silent, c->repo->git, paths, 2 * c->diff->nfiles, words)) == 0)
		*out = !silent;
	free(paths);
	return error;
}

/* Which files of the change the rules see; the others are named in the notes. */
static int files_scope(struct check *c)
{
	bool linguist;
	size_t i;
	int error;

	if ((error = ignore_load(c)) < 0 || (error = linguist_possible(&linguist, c)) < 0)
		return error;
	if (!(c->skip = calloc(c->diff->nfiles + 1, sizeof(*c->skip))) ||
	    !(c->skip_local = calloc(c->diff->nfiles + 1, sizeof(*c->skip_local))))
		return error_nomem();
	for (i = 0; i < c->diff->nfiles; i++) {
		char *note;

		if ((error = file_scope(&c->skip[i], c, i, linguist)) < 0)
			return error;
		if (!c->skip[i])
			continue;
		if (asprintf(&note, "%s: %s, %s", c->diff->files[i].path, c->skip[i],
			     c->skip_local[i] ? "not reviewed" : "not sent to the LLM") < 0)
			note = NULL;
		if ((error = strings_take(&c->notes, note)) < 0)
			return error;
	}
	if (repo_untracked_count(&c->untracked, c->repo, c->target) < 0)
		c->untracked = 0;
	return wants_compute(c);
}

/* The project's standards, read once; what was left out or cut is said with the other notes. */
static int standards_load(struct check *c)
{
	struct buf files = BUF_INIT;
	size_t i;
	int error;

	if (c->opts.no_standards || !c->repo->workdir)
		return 0;
	if ((error = standards_read(&c->standards, c->repo)) < 0)
		return error;
	for (i = 0; !error && i < c->standards.problems.count; i++)
		error = strings_add(&c->notes, c->standards.problems.items[i]);
	for (i = 0; !error && i < c->standards.files.count; i++)
		error = buf_printf(&files, "%s%s", i ? ", " : "", c->standards.files.items[i]);
	if (!error && files.len)
		c->standards_files = buf_detach(&files);
	buf_release(&files);
	c->nscope_notes = c->notes.count;
	return error;
}

int check_prepare(struct check *c)
{
	struct rules_options ro = { c->opts.rule_dirs, c->opts.nrule_dirs, c->repo->workdir, false,
				    c->opts.builtin_rules, c->opts.no_builtin, c->opts.rule_ids,
				    c->opts.nrule_ids, false };
	struct buf intent = BUF_INIT;
	size_t i;
	int error;

	if (c->prepared)
		return 0;
	/* What failed once (half done) fails again the same way: check_estimate, then check_start. */
	if (c->prepare_error)
		return error_set(c->prepare_error, "%s", c->prepare_message);
	if ((error = rules_load(&c->rules, &ro)) < 0 || (error = rules_select(c)) < 0 ||
	    (error = files_scope(c)) < 0 ||
	    (!(c->states = calloc(c->rules.count + 1, sizeof(*c->states))) && (error = error_nomem()) < 0)) {
		c->prepare_error = error;
		snprintf(c->prepare_message, sizeof(c->prepare_message), "%s", error_message());
		return error;
	}
	for (i = 0; i < c->rules.count; i++) {
		c->states[i].result.rule = &c->rules.rules[i];
		c->states[i].result.status = RULE_QUEUED;
	}
	c->nstates = c->unsettled = c->rules.count;
	c->nscope_notes = c->notes.count;
	repo_intent(&intent, c->repo, c->target, 20);
	c->intent = buf_detach(&intent);
	if ((error = standards_load(c)) < 0)
		return error;
	c->prepared = true;
	return 0;
}
