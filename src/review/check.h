#ifndef REVLINE_CHECK_H
#define REVLINE_CHECK_H

#include "poll_group.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "ask.h"
#include "llm.h"
#include "repo.h"
#include "result.h"
#include "rules.h"
#include "sched.h"
#include "store.h"

/*
 * One review from start to end (DESIGN §4): rules matched to the diff,
 * a task per rule (or per chunk of an over-large rule diff), answers from
 * the cache or through the scheduler, each parsed, its findings checked
 * against the files and stored the moment it arrives; then the reduce
 * step and the report. It never blocks: it joins the front end's poll
 * group (options->group, poll_group.h), which the front end waits on;
 * the front end reads its events, the same for the CLI and the TUI.
 */

/* How much of the repository the model is shown (revline.context): X(ID, name). */
#define CONTEXT_LIST(X) \
	X(CONTEXT_TOOLS, "tools") \
	X(CONTEXT_PACK,  "pack") \
	X(CONTEXT_NONE,  "none")

enum context_mode {
#define CONTEXT_ENUM(id, name) id,
	CONTEXT_LIST(CONTEXT_ENUM)
#undef CONTEXT_ENUM
};

const char *check_context_mode_name(enum context_mode mode);

/* What the check showed its model of the repository, for the reports (check_context.c). */
struct pack;
struct index_stats;
struct check_context_view {
	enum context_mode mode;
	bool built;                     /* the pack was made (or will not be) before the rules started */
	const char *note;               /* why there is no pack, when it failed; NULL */
	int64_t index_ms, pack_ms;      /* building both sides' indexes; finding and rendering the pack */
	const struct index_stats *index;        /* of the new side, NULL without one */
	const struct pack *pack;        /* NULL without one */
	size_t left;                    /* items of the pack the parts' budgets left out */
};

struct check_options {
	const char *const *rule_dirs;   /* --rules DIR, searched first */
	size_t nrule_dirs;
	const char *const *rule_ids;    /* --rule ID: only these (whatever the built-in policy) */
	size_t nrule_ids;
	enum rules_builtin builtin_rules;       /* revline.builtinRules (rules.h) */
	bool no_builtin;                /* --no-builtin: no built-in rule */
	bool no_cache;                  /* ask again even when the cache has the answer */
	bool no_reduce;                 /* the programmatic reduce only */
	bool show_unverified;           /* unverified findings go into the report too */
	bool show_suppressed;           /* and findings marked false positive before */
	long token_budget;              /* a task's prompt, in tokens (0: 24000) */
	long confirm_tokens;            /* revline.confirmTokens: a front end asks before more (0: no limit) */
	char ignore_file[512];          /* revline.ignore: a file of gitignore patterns ("" for none) */
	const char *environment;        /* "local" by default */
	struct llm_config *llm;         /* the provider (none is fine) */
	struct sched_options sched;
	struct asker_options ask;       /* streaming, warming the prompt cache */
	struct store *store;            /* where results go (NULL: nowhere) */
	struct poll_group *group;       /* the front end's poll group (NULL: the check makes its own) */
	const char *store_error;        /* why there is no store (it would not open), for the report */
	bool allow_partial;             /* revline.allowPartial: an incomplete review is accepted (for the front end) */
	bool no_advisories;             /* revline.advisories false: no OSV lookups */
	bool no_standards;              /* revline.projectStandards false: AGENTS.md and the like not read */
	char osv_url[512];              /* revline.osvUrl or REVLINE_OSV_URL; "" for OSV's own */
	enum context_mode context;      /* revline.context: tools (the default), pack or none */
	long context_tokens;            /* revline.contextTokens: the pack's share of a request */
	char ctags[512];                /* revline.ctags: "" for ctags on PATH */
};

/*
 * The settings that shape a check: revline.tokenBudget, revline.reduce,
 * revline.confirmTokens, revline.ignore, revline.builtinRules,
 * revline.allowPartial, revline.advisories and revline.osvUrl
 * (REVLINE_OSV_URL), revline.context (REVLINE_CONTEXT), revline.contextTokens
 * and revline.ctags when set, and
 * the scheduler's (options->sched gets sched_options_load).
 * RL_ECONFIG names a bad setting.
 */
struct config;
int check_options_load(struct check_options *options, struct config *config);

enum check_event_kind {
	CHECK_DEPENDENCIES,     /* the dependency analysis is ready (only when it found something) */
	CHECK_RULE_STARTED,     /* a rule's first request began */
	CHECK_RULE_PROGRESS,    /* more of a rule's streamed answer came (check_rule_streamed) */
	CHECK_RULE_SETTLED,     /* a rule has its result (any status) */
	CHECK_REDUCE_STARTED,   /* every rule settled; the reduce call began */
	CHECK_STORE_FAILED,     /* storing failed, once: check_store_error says why; the check goes on unstored */
	CHECK_DONE,             /* the report is ready and stored */
};

struct check_event {
	enum check_event_kind kind;
	size_t rule;            /* index of the rule's result, for rule events */
};

struct check;

/* repo and target must outlive the check; it holds a reference to the diff (diff_dup). */
int check_new(struct check **out, struct repo *repo, const struct target *target,
	      struct diff *diff, const struct check_options *options);
void check_free(struct check *check);

/*
 * Load the rules and decide which files of the change they see: paths
 * matched by revline.ignore are left out of every rule; files
 * .gitattributes marks linguist-generated or linguist-vendored, and
 * generated or minified files (scope.h), of the LLM rules; each is named
 * in a note. check_start does it when it was not done.
 * RL_ECONFIG when revline.ignore cannot be read or holds a bad pattern.
 */
int check_prepare(struct check *check);

/*
 * The tokens the check's map requests would send (the sum of their
 * prompts, the cache not counted), before it starts (prepares it).
 */
int check_estimate(long *tokens, struct check *check);

/*
 * What the check left out or cut, one sentence each ("gen.py: generated
 * (linguist-generated in .gitattributes), not reviewed", "big.sql: hunk at
 * line 1 cut to fit the budget (200,000 lines, the first 2,300 sent)").
 */
size_t check_nnotes(const struct check *check);
const char *check_note(const struct check *check, size_t index);
/* Untracked files the target leaves out (no --untracked). */
size_t check_untracked(const struct check *check);

/*
 * Load the rules, store the check, analyse its dependency changes and look
 * up their advisories (at most 15 s, fail-open; local pattern rules run at
 * once, the LLM rules start when that is done), choose the requests' timeout from the change (timeout.h),
 * settle what needs no request (rules
 * matching no changed file, local pattern rules, cached answers, LLM rules
 * without a provider) and queue the rest. RL_EUSAGE for an unknown --rule.
 */
int check_start(struct check *check);

bool check_next_event(struct check *check, struct check_event *out);
/* Whether check_wait would not wait: events to take, the check done, or no request under way yet. */
bool check_ready(const struct check *check);
/* Wait up to max_ms on the check's poll group and step it (for the CLI). */
int check_wait(struct check *check, int max_ms);
/* Stop: running rules fail as cancelled; what arrived is kept and stored. */
void check_cancel(struct check *check);
bool check_done(const struct check *check);
/*
 * Once the check is done (or cancelled): run again the rules that failed
 * or timed out. Their new results replace the old ones, in the store too,
 * and the reduce step makes the report again. RL_EUSAGE when the check is
 * still running or no rule failed.
 */
int check_retry(struct check *check);

/* What it has so far. */
size_t check_nresults(const struct check *check);
const struct rule_result *check_result(const struct check *check, size_t index);
/* The events of a rule's streamed answers received so far (about a token each). */
long check_rule_streamed(const struct check *check, size_t index);
/* How long a running rule has been running, in ms (0 before it starts). */
long check_rule_elapsed_ms(const struct check *check, size_t index);
/*
 * Whether a running rule is retrying: the attempt its request is at (the
 * furthest of its chunks'), of how many (the retries and one), and how
 * long that attempt has gone (ms; -1 while it waits to go again).
 */
bool check_rule_attempt(const struct check *check, size_t index, int *attempt, int *of, long *elapsed_ms);
const struct rule_set *check_rules(const struct check *check);
/* The diff it reviews (what check_new was given). */
const struct diff *check_diff(const struct check *check);
const struct report *check_report(const struct check *check);
const struct check_stats *check_stats(const struct check *check);
const char *check_status(const struct check *check);   /* complete, partial, failed, cancelled */
int64_t check_id(const struct check *check);
long check_duration_ms(const struct check *check);
/*
 * The first failure to store something (the check went on, storing nothing
 * more but its end, recorded as partial at best), or options.store_error,
 * or NULL.
 */
const char *check_store_error(const struct check *check);
/* Whether the check and all its results are in the store. */
bool check_stored(const struct check *check);
/*
 * Whether the deadline (options.sched.deadline, counted from check_start)
 * cut the check short: the rules it caught are RULE_TIMEOUT, saying so.
 */
bool check_deadline_passed(const struct check *check);
/*
 * The rules that did not run (error, timeout, skipped, and rule files too
 * broken to load, see check_rules' problems), and *total of how many
 * (those files included); 0 when the review is whole.
 */
size_t check_not_run(const struct check *check, size_t *total);
/*
 * "8 of 14 rules did not run: review incomplete" ("review cancelled: 8 of 14
 * rules did not run" for a cancelled check), or "" when every rule ran and
 * the check was not cancelled.
 */
int check_incomplete_text(struct buf *out, const struct check *check);
/*
 * The rules that did not run, grouped by why, a line each ("- a, b (2
 * rules): skipped: no LLM is configured: ...", "- hang: failed: cancelled",
 * "- rules/x.md:3: the rule file could not be loaded: ..."); empty when
 * every rule ran. The reasons are the servers' and files' words: a front
 * end makes them safe for its terminal.
 */
int check_not_run_lines(struct buf *out, const struct check *check);
/*
 * The verdict every report heads with: the report's overall severity, or
 * "clean"; when the review is not whole (a rule did not run, or the check
 * was cancelled), said so with it: "clean in the rules that ran (review
 * incomplete)", "major in the rules that ran (review cancelled)".
 */
int check_overall_text(struct buf *out, const struct check *check);
/* How many findings of settled rules are hidden (unverified) right now. */
size_t check_unverified(const struct check *check);
void check_context_view(struct check_context_view *out, const struct check *check);
/* Whether a part of the change carried the pack's item. */
bool check_context_sent(const struct check *check, size_t item);
/* Whether the rule's requests carried the pack's item (a part it was asked about did; not context: deep's more). */
bool check_context_rule_sent(const struct check *check, size_t rule, size_t item);
/*
 * Whether the pack's item concerns a finding: it shows the finding's file,
 * was found for it (its callers, the function around its hunk, what its
 * changed lines use), or shows a file the finding names in its words.
 */
bool check_context_item_concerns(const struct check *check, size_t item, const struct finding *finding);
/* Whether a file concerns a finding: its own, or one it names ("web/api.py:6" in its issue, ...). */
bool check_context_path_concerns(const char *path, const struct finding *finding);
/*
 * A rule's read said in a few words, from its arguments as the model gave
 * them: "read_file app/auth.py:40-88: 1204 bytes", "search 'verify\(' in
 * *.py: 312 bytes", "references verify: error: no such symbol"; another
 * tool, or arguments cut or not an object, as the tool and its arguments.
 * path, when not NULL, gets the file it read (read_file's; else empty).
 * The model's words: a front end makes them safe for its terminal.
 */
int check_context_read_text(struct buf *out, struct buf *path, const struct rule_read *read);


/* The dependency phase (NULL before the check started); whether it is still looking up advisories. */
struct depreview;
const struct depreview *check_deps(const struct check *check);
bool check_deps_pending(const struct check *check);
/* The timeout the check's requests grow from, and why. */
struct timeout_choice;
const struct timeout_choice *check_timeout_choice(const struct check *check);


#endif
