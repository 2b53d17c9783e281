#ifndef REVLINE_CHECK_STATE_H
#define REVLINE_CHECK_STATE_H

/*
 * Inside a check (check.h): its state, shared by the files of its phases:
 * check.c (life cycle), check_scope.c (rules and files), check_plan.c
 * (parts and requests), check_collect.c (answers, results, reduce, end).
 */

#include "check.h"
#include "standards.h"
#include "answer.h"
#include "array.h"
#include "ask.h"
#include "depreview.h"
#include "pack.h"
#include "repo_tools.h"
#include "poll_group.h"
#include "queue.h"
#include "timeout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One request: a part of the change asked about one rule, or the reduce call. */
struct chunk {
	struct check *check;
	size_t rule;
	int part, parts;
	char *system, *shared, *tail;
	bool settled;
	bool cached;
	enum rule_status status;
	struct map_answer answer;
	char *error;
	int attempts;
	struct repo_tools *tools;       /* the read-only tools its model is offered, or NULL */
	long tokens_in, tokens_cached, tokens_cache_write, tokens_out;
	double cost_usd;        /* estimated; negative when the table has no price */
	long streamed;          /* events of the streamed answer so far */
	size_t weight;
	uint64_t ask;           /* its question's id (ask_attempt), 0 before it is asked */
};

struct rule_state {
	struct rule_result result;
	struct chunk **chunks;
	size_t nchunks, chunks_alloc, settled;
	size_t findings_alloc, refs_alloc;      /* the room of result.findings and result.file_references */
	int64_t started_ms;
	char *context, *examples;       /* the rule's context files and past reviews, for its prompts */
};

/*
 * The change cut into parts that fit a request, once for the whole check:
 * every rule asked about a part gets the same bytes first (the part, its
 * files, the dependencies), so that prompt caches can reuse them.
 */
struct part {
	char *diff;             /* fenced */
	char *files;            /* "a.c, b.c" (at most 20 named) */
	char *cut;              /* what of it was cut to fit the budget, for the prompt; NULL when nothing */
	size_t *file;           /* the diff's files in it */
	size_t nfiles;
	char *context;          /* its share of the context pack, NULL when none */
	struct pack_use pack_use;
};

/* The context phase (check_context.c): both sides' indexes, then the pack. */
struct check_context {
	struct index *now, *before;
	struct pack pack;
	char *tools_state;      /* what the tools read, identified (the result cache's key); NULL: no tools */
	bool built;             /* the pack is made, or will not be */
	char *note;             /* why there is none, when it failed */
	int64_t started_ms, index_ms, pack_ms;
};

struct check {
	struct repo *repo;
	const struct target *target;
	struct diff *diff;
	struct check_options opts;
	struct rule_set rules;
	struct rule_state *states;
	size_t nstates, unsettled;
	struct asker *asker;
	struct poll_group *group;       /* the front end's, or own_group */
	struct poll_group *own_group;
	struct poll_member member;      /* takes the request cycle's events */
	struct part *parts;
	size_t nparts;
	bool planned;
	bool prepared;          /* rules loaded, files scoped */
	int prepare_error;      /* preparing failed: the status and its message */
	char prepare_message[512];
	char **skip;            /* per file of the diff: why no LLM rule sees it (NULL: reviewed) */
	bool *skip_local;       /* and the local pattern rules neither (revline.ignore) */
	struct glob_list *ignore;       /* revline.ignore's patterns, or NULL */
	unsigned char *wants;   /* which files each rule looks at (check_rule_wants), once scoped */
	size_t *nwanted;        /* per rule, how many */
	struct strings notes;   /* what the check left out or cut, said in every report */
	size_t nscope_notes;    /* the first ones, about files; the others are cuts of the plan */
	size_t untracked;       /* untracked files the target leaves out */
	struct depreview *deps;         /* the dependency phase; the rules start when it and the context are done */
	struct check_context context;
	bool rules_started;
	struct timeout_choice timeout;
	struct report report;
	struct chunk reduce;    /* the reduce call, when there is one */
	bool reducing;
	struct finding *reduce_input;
	size_t nreduce_input;
	struct check_stats stats;
	int64_t id;
	int64_t started_ms;     /* monotonic */
	long duration_ms;
	struct queue events;     /* of struct check_event */
	bool done, cancelled;
	const char *status;
	char *intent;
	struct standards standards;     /* the project's own standards (revline.projectStandards) */
	char *standards_files;          /* their paths, ", "-joined, or NULL */
	char *store_error;
};

/* check.c */

/* An event for the front end (check_next_event). */
int check_event_push(struct check *c, enum check_event_kind kind, size_t rule);
/* A store failure, kept and said once; the check stores nothing more but its end. */
void check_store_failed(struct check *c);
/* Whether to read from and write to the store: there is one and it has not failed. */
bool check_storing(const struct check *c);
/* Ask the LLM one request of the check (a part of a rule, or the reduce call). */
int check_chunk_submit(struct check *c, struct chunk *k, const char *model);

/* check_scope.c */

/* Whether the rule looks at the file of the diff. */
bool check_rule_wants(const struct check *c, const struct rule *rule, const struct diff_file *f);
/* How many files of the diff the rule looks at. */
size_t check_rule_files(const struct check *c, const struct rule *rule);

/* check_plan.c */

void check_parts_free(struct check *c);
/* The requests of an LLM rule, planned (the parts of the change first, once). */
int check_plan_rule(struct check *c, size_t index);

/* check_context.c */

/* revline.context, revline.contextTokens, revline.ctags. */
int check_context_load(struct check_options *options, struct config *config);
/* Start the indexes (when the context is on and an LLM rule will be asked). */
int check_context_begin(struct check *c);
/* Whether the rules may start: the indexes are done and the pack made (now). */
int check_context_ready(struct check *c, bool *ready);
void check_context_cancel(struct check *c);
void check_context_release(struct check *c);
/* The bytes of a request the pack may take (0 without one). */
size_t check_context_budget(const struct check *c);
/* A part's share of the pack (part->context, part->pack_use). */
int check_context_part(struct check *c, struct part *part);
/* What part index carried, kept in the store. */
void check_context_store(struct check *c, size_t index);
/* For a rule that asks for more (context: deep): the part's items its share left out; *out NULL when none. */
int check_context_more(char **out, struct check *c, const struct rule_state *s, const struct part *part);
/*
 * The read-only tools a map request offers its model (revline.context tools,
 * or a rule's context: deep), made for the chunk (k->tools) into *out; 0
 * with *offered false when it offers none.
 */
int check_context_tools(struct ask_tools *out, bool *offered, struct check *c, struct chunk *k);
/* What the chunk's model read with them, kept with its rule's result (lost only when memory runs out); the tools freed. */
void check_context_reads(struct check *c, struct chunk *k, const struct ask_event *ev);

/* check_collect.c */

/* A rule settled without asking: its status and why. */
int check_settle_as(struct check *c, size_t index, enum rule_status status, const char *why);
/* A local pattern rule runs at once, offline. */
int check_run_local(struct check *c, size_t index);
void check_chunk_fail(struct check *c, struct chunk *k, enum rule_status status, const char *why);
/* After every state change: when the last rule settles, reduce. */
void check_advance(struct check *c);
/* One event of the request cycle (ask.h) for the request it is of. */
void check_handle_event(struct check *c, const struct ask_event *ev);

#endif
