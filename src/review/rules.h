#ifndef REVLINE_RULES_H
#define REVLINE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "severity.h"

struct glob_list;

/*
 * Rules: markdown files with YAML front matter, in either seed format,
 * read unchanged:
 *
 *   threadline: id, version, patterns, context_files
 *   rule:       id, name, severity, category, applies-to, model
 *
 * plus context-files (alias of context_files), `pattern`, a PCRE2
 * expression checked locally on added lines, with no LLM, and `check`, a
 * local check of revline's own, in C, where a pattern cannot say it. The
 * body is the standard itself: what to look for, good and bad examples.
 */

enum rule_kind {
	RULE_LLM,               /* reviewed by the LLM */
	RULE_LOCAL,             /* a PCRE2 pattern on added lines, or a check of revline's own */
};

/*
 * The local checks a rule can name (`check: NAME`): X(ID, name, what it
 * reads, said as a finding's verification method). A check reads the added
 * lines and, for those that say so (rule_reads_texts), the commit messages;
 * the rule's pattern, when it has one, is the check's to use.
 *
 * hidden-text (hidden_text.c): bidirectional controls, zero-width
 * characters, identifiers mixing Latin with Cyrillic or Greek letters, and
 * the lines the rule's pattern matches (text addressed to AI reviewers).
 */
#define RULE_CHECK_LIST(X) \
	X(RULE_CHECK_NONE, "", "") \
	X(RULE_CHECK_HIDDEN_TEXT, "hidden-text", "local check: the characters and identifiers of the " \
	  "added lines and commit messages, and the rule's pattern, read by revline")

#define RULE_CHECK_NAMES "hidden-text"

enum rule_check {
#define RULE_CHECK_ENUM(id, name, method) id,
	RULE_CHECK_LIST(RULE_CHECK_ENUM)
#undef RULE_CHECK_ENUM
	RULE_CHECK_COUNT
};

/* The check named so, or RULE_CHECK_NONE. */
enum rule_check rule_check_find(const char *name);
const char *rule_check_name(enum rule_check check);

/*
 * Whether a loaded rule runs, and why (rules_policy). Only built-in rules
 * are ever off: the policy only narrows what revline brings of its own.
 */
enum rule_why {
	RULE_ON,                /* not a built-in rule */
	RULE_ON_NAMED,          /* named by --rule, whatever the policy */
	RULE_ON_NO_OWN,         /* built-in; the repository has no rules of its own */
	RULE_ON_LOCAL,          /* a built-in local pattern rule (auto or local) */
	RULE_ON_ALL,            /* built-in; revline.builtinRules=all */
	RULE_OFF_OWN,           /* a built-in LLM rule; the repository has rules of its own */
	RULE_OFF_LOCAL,         /* a built-in LLM rule; revline.builtinRules=local */
	RULE_OFF_NONE,          /* built-in; revline.builtinRules=none */
	RULE_OFF_FLAG,          /* built-in; --no-builtin */
};

/* How much of the repository a rule's requests show (front matter context:). */
enum rule_context {
	RULE_CONTEXT_NORMAL,    /* the check's (revline.context) */
	RULE_CONTEXT_NONE,      /* the diff alone */
	RULE_CONTEXT_DEEP,      /* more: what the part's share left out, and the tools even in pack mode */
};

struct rule {
	char *id;
	char *name;             /* the id when the file has none */
	char *version;          /* NULL when absent */
	enum severity severity; /* major when absent */
	char *category;         /* NULL when absent */
	char **patterns;        /* which files it applies to; every file when none */
	size_t npatterns;
	struct glob_list *globs; /* the patterns compiled (rule_parse); NULL in a rule built by hand */
	char **context_files;   /* repository paths sent with the rule */
	size_t ncontext;
	char *model;            /* a per-rule model, or NULL */
	char *reasoning_effort; /* a per-rule reasoning_effort (models.h), or NULL */
	char *pattern;          /* the local check's expression, or NULL */
	void *regex;            /* compiled pattern (pcre2_code *) */
	enum rule_check check;  /* a check of revline's own, or RULE_CHECK_NONE */
	enum rule_kind kind;
	enum rule_context context;
	char *body;             /* the markdown after the front matter */
	char *content;          /* the whole file, as read */
	char *path;             /* where it was read from, as shown to users */
	const char *source;     /* "--rules", "repository", "user" or "built-in" */
	enum rule_why why;      /* whether it runs under the built-in policy, and why */
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
	size_t problems_alloc;
	bool own;               /* the repository (or --rules) gave at least one rule */
	size_t off;             /* how many rules the policy turned off (kept or not) */
};

/*
 * Which of revline's own rules run: revline.builtinRules. By default
 * (auto) every one, unless the repository has rules of its own (in its
 * rule folders, or --rules): then only the built-in local pattern rules,
 * which cost nothing, and no built-in LLM rule.
 */
enum rules_builtin {
	RULES_BUILTIN_AUTO,
	RULES_BUILTIN_ALL,
	RULES_BUILTIN_LOCAL,
	RULES_BUILTIN_NONE,
};

#define RULES_BUILTIN_VALUES "auto, all, local or none"

/* Where rules are looked for, in order; an earlier directory wins by id. */
struct rules_options {
	const char *const *extra_dirs;  /* --rules DIR, searched first */
	size_t nextra;
	const char *workdir;            /* the repository's working tree, or NULL */
	bool no_user;                   /* leave out $XDG_CONFIG_HOME/revline/rules */
	enum rules_builtin builtin;     /* revline.builtinRules */
	bool no_builtin;                /* --no-builtin: no built-in rule, whatever builtin says */
	const char *const *named;       /* --rule ID: these run whatever the policy */
	size_t nnamed;
	bool keep_off;                  /* keep the rules turned off, marked (to list them) */
};

/*
 * revline.builtinRules into *out (auto when it is not set); RL_ECONFIG,
 * naming the key and the values it takes, when it is something else.
 */
struct config;
int rules_builtin_load(enum rules_builtin *out, struct config *config);
const char *rules_builtin_name(enum rules_builtin builtin);

/* Whether a loaded rule runs under the options' policy, and why; own: the repository has rules of its own. */
enum rule_why rules_policy(const struct rule *rule, const struct rules_options *options, bool own);
bool rule_why_on(enum rule_why why);
/* In words, for a list: "built-in LLM rule, off: the repository has rules of its own (...)". */
const char *rule_why_text(enum rule_why why);
/* The policy as a whole, in a sentence (for doctor). */
const char *rules_policy_text(const struct rules_options *options, bool own);

/*
 * Load every rule: --rules directories, then threadlines/, .revline/rules/
 * and .github/cr-rules/ in the repository, then the user's
 * $XDG_CONFIG_HOME/revline/rules/, then the built-in rules/. A rule with an
 * id already loaded from an earlier directory is left out (that is how a
 * repository overrides a built-in rule). A bad rule file is recorded as a
 * problem and skipped; it never stops the others. Then the built-in policy
 * (rules_policy) marks every rule; the rules it turns off are left out,
 * unless options->keep_off. Returns 0 unless memory ran out.
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
 * What a local rule found on a line: where, the evidence, and what the
 * rule's check says of it (a pattern rule leaves title, issue, suggestion
 * and method NULL: the rule's name, "An added line matches ...", none, the
 * pattern).
 */
struct rule_match {
	const char *file;       /* the file's path, or the text's name ("commit 1a2b3c4") */
	int line;               /* the new line number, or the text's line */
	const char *code;       /* the evidence: the line (hidden-text: its hidden characters made visible) */
	size_t len;
	enum severity severity;
	const char *title, *issue, *suggestion, *method;
	bool outside;           /* a line of a text, not of the diff: revline read it itself */
};

typedef void (*rule_found_fn)(const struct rule_match *match, void *ctx);

/*
 * The local check of a file: its added lines that match the rule's pattern
 * or its check. Calls found for each (one match per line); returns the
 * number of matches or a negative status.
 */
struct diff_file;
int rule_match_local(const struct rule *rule, const struct diff_file *file, rule_found_fn found, void *ctx);

/* Text the change brings besides its files (a commit message), for the checks that read it. */
struct rule_text {
	const char *name;       /* "commit 1a2b3c4" */
	const char *text;
};

/* Whether the rule's check reads texts besides the diff's files. */
bool rule_reads_texts(const struct rule *rule);
/* The local check of texts, line by line, as rule_match_local (0 for a rule that reads none). */
int rule_match_texts(const struct rule *rule, const struct rule_text *texts, size_t count, rule_found_fn found,
		     void *ctx);

/* The starter rule `revline init` writes (threadlines/example.md). */
extern const char rules_example[];

#endif
