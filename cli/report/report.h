#ifndef REVLINE_REPORT_H
#define REVLINE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"

/*
 * The outputs of `revline check`. Text streams: a rule's line and its
 * findings are written the moment it settles; the other formats are
 * written once, at the end, from the same check.
 */
struct fixdetect;
struct store;

struct report_options {
	bool show_unverified;   /* list unverified findings too */
	bool show_suppressed;   /* list findings marked false positive before */
	bool color;             /* ANSI colours in text (a terminal, and no NO_COLOR) */
	const struct fixdetect *fixes;  /* fix detection, when it was waited for */
	const char *again;              /* prompt: how to review again (NULL: run `revline check`) */
	const char *setup_hint;         /* prompt: what to set when no LLM is configured (NULL: the reason says it) */
	/* Where a finding's proposed fix is looked up (rdjsonl's suggestions); NULL: nowhere. */
	struct store *store;
	const char *workdir;
};

/* A rule that just settled, with its findings (text). */
void report_text_rule(FILE *out, const struct check *check, size_t rule,
		      const struct report_options *options);
/* The reduced report and the closing summary (text). */
void report_text_end(FILE *out, const struct check *check, const struct report_options *options);
/* Its line saying what git had in progress (a merge, a rebase, ...) and the unmerged paths. */
void report_text_state(FILE *out, const struct diff *diff);

int report_json(FILE *out, const struct check *check, const struct repo *repo,
		const struct target *target, const struct report_options *options);
/* The same document, and one finding of it (for the MCP server). */
struct json_t *report_json_doc(const struct check *check, const struct repo *repo,
			       const struct target *target, const struct report_options *options);
struct json_t *report_json_finding(const struct finding *finding);
int report_sarif(FILE *out, const struct check *check, const struct repo *repo,
		 const struct report_options *options);
int report_markdown(FILE *out, const struct check *check, const struct repo *repo,
		    const struct target *target, const struct report_options *options);
/*
 * reviewdog's Diagnostic JSON lines (rdjsonl), a finding a line; with a
 * suggestion where the finding has a fix proposed that still fits the file
 * (fix_suggestion_find).
 */
int report_rdjsonl(FILE *out, const struct check *check, const struct report_options *options);
/*
 * For each finding, a self-contained instruction for a coding agent, after
 * what did not run when the review is not whole. The two parts apart (the
 * MCP server puts its own line between them): the first says whether it
 * said anything.
 */
int report_prompt(FILE *out, const struct check *check, const struct report_options *options);
bool report_prompt_incomplete(FILE *out, const struct check *check, const struct report_options *options);
int report_prompt_findings(FILE *out, const struct check *check, const struct report_options *options);
/* file:line:col: severity: message [rule], for vim's quickfix and emacs's compilation mode. */
int report_quickfix(FILE *out, const struct check *check, const struct report_options *options);


/* A linter's signal, with the latest fix asked for it (report_signal.c). */
struct signal;
struct store;
struct json_t *report_signal_json(const struct signal *signal, struct store *store);

/* The dependency analysis (report_deps.c): a text section, a markdown section, JSON (null when none). */
#include <jansson.h>
void report_text_deps(FILE *out, const struct check *check);
void report_markdown_deps(FILE *out, const struct check *check);
json_t *report_json_deps(const struct check *check);
/* The report's "in_progress" and "unmerged" fields, from the diff it reviewed. */
void report_json_state(json_t *doc, const struct diff *diff);
/* What the check showed its model of the repository (report_context.c): a JSON object, a text line. */
json_t *report_json_context(const struct check *check);
void report_text_context(FILE *out, const struct check *check);
/* A rule's "context" (what it was shown) and "reads" (the tools' calls its model made) set on its JSON object. */
struct rule_result;
void report_json_rule_context(json_t *rule, const struct rule_result *result);
/* The timeout the check chose: {"base_s", "chosen_s", "reason"}. */
json_t *report_json_timeout(const struct check *check);

/* The findings a report shows: unverified and suppressed ones only when asked. */
bool report_shows(const struct finding *finding, const struct report_options *options);

#endif
