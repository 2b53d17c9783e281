#ifndef REVLINE_RULES_H
#define REVLINE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "severity.h"

/*
 * Rules: markdown files with YAML front matter, in either seed format,
 * read unchanged:
 *
 *   threadline: id, version, patterns, context_files
 *   rule:       id, name, severity, category, applies-to, model
 *
 * plus context-files (alias of context_files) and `pattern`, a PCRE2
 * expression checked locally on added lines, with no LLM. The body is the
 * standard itself: what to look for, good and bad examples.
 */

enum rule_kind {
	RULE_LLM,               /* reviewed by the LLM */
	RULE_LOCAL,             /* a PCRE2 pattern on added lines */
};

struct rule {
	char *id;
	char *name;             /* the id when the file has none */
	char *version;          /* NULL when absent */
	enum severity severity; /* major when absent */
	char *category;         /* NULL when absent */
	char **patterns;        /* which files it applies to; every file when none */
	size_t npatterns;
	char **context_files;   /* repository paths sent with the rule */
	size_t ncontext;
	char *model;            /* a per-rule model, or NULL */
	char *reasoning_effort; /* a per-rule reasoning_effort (models.h), or NULL */
	char *pattern;          /* the local check's expression, or NULL */
	void *regex;            /* compiled pattern (pcre2_code *) */
	enum rule_kind kind;
	char *body;             /* the markdown after the front matter */
	char *content;          /* the whole file, as read */
	char *path;             /* where it was read from, as shown to users */
	const char *source;     /* "--rules", "repository", "user" or "built-in" */
};

/* A problem found in a rule file: "path:line: message". */
struct rule_problem {
	char *path;
	int line;               /* 1-based; 0 when it concerns the whole file */
	char *message;
	bool fatal;             /* the rule cannot be used (it is skipped) */
};

struct rule_set {
	struct rule *rules;
	size_t count;
	struct rule_problem *problems;
	size_t nproblems;
};

/* Where rules are looked for, in order; an earlier directory wins by id. */
struct rules_options {
	const char *const *extra_dirs;  /* --rules DIR, searched first */
	size_t nextra;
	const char *workdir;            /* the repository's working tree, or NULL */
	bool no_user;                   /* leave out $XDG_CONFIG_HOME/revline/rules */
	bool no_builtin;                /* leave out revline's own rules */
};

/*
 * Load every rule: --rules directories, then threadlines/, .revline/rules/
 * and .github/cr-rules/ in the repository, then the user's
 * $XDG_CONFIG_HOME/revline/rules/, then the built-in rules/. A rule with an
 * id already loaded from an earlier directory is left out (that is how a
 * repository overrides a built-in rule). A bad rule file is recorded as a
 * problem and skipped; it never stops the others. Returns 0 unless memory
 * ran out.
 */
int rules_load(struct rule_set *out, const struct rules_options *options);
void rules_release(struct rule_set *set);

/*
 * Parse one rule file's text. Problems (fatal or not) are appended to set;
 * returns 0 when the rule is usable (then *out is filled), RL_EPARSE when
 * not.
 */
int rule_parse(struct rule *out, const char *path, const char *text, size_t len,
	       struct rule_set *problems);
void rule_release(struct rule *rule);

/* Whether a rule applies to a repository path (its patterns, or every file). */
bool rule_applies(const struct rule *rule, const char *path);

/* The rule with this id, or NULL. */
const struct rule *rules_find(const struct rule_set *set, const char *id);

/*
 * The local check: the added lines of a file's diff that match the rule's
 * pattern. Calls found(line, text, len, ctx) for each match (line is the
 * new line number); returns the number of matches or a negative status.
 */
struct diff_file;
int rule_match_local(const struct rule *rule, const struct diff_file *file,
		     void (*found)(int line, const char *text, size_t len, void *ctx), void *ctx);

/* The starter rule `revline init` writes (threadlines/example.md). */
extern const char rules_example[];

#endif
