#ifndef REVLINE_RESULT_H
#define REVLINE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "finding.h"
#include "rules.h"

/*
 * What a check produces: a result per rule as it settles, then the report
 * of the reduce step. X(ID, name as stored and printed).
 */
#define RULE_STATUS_LIST(X) \
	X(RULE_QUEUED,       "queued") \
	X(RULE_RUNNING,      "running") \
	X(RULE_COMPLIANT,    "compliant") \
	X(RULE_ATTENTION,    "attention") \
	X(RULE_NOT_RELEVANT, "not_relevant") \
	X(RULE_ERROR,        "error") \
	X(RULE_TIMEOUT,      "timeout") \
	X(RULE_SKIPPED,      "skipped")

enum rule_status {
#define RULE_STATUS_ENUM(id, name) id,
	RULE_STATUS_LIST(RULE_STATUS_ENUM)
#undef RULE_STATUS_ENUM
};

const char *rule_status_name(enum rule_status status);
/* Whether the rule has settled (not queued or running). */
bool rule_status_settled(enum rule_status status);

/* A read-only tool's call a rule's model made: what it read (tools.h's ask_tool_call, kept). */
struct rule_read {
	int turn;
	char *tool;
	char *arguments;        /* as the model gave them, cut */
	size_t result_bytes;
	char *error;            /* the error the model got, or NULL */
	char *shown;            /* where it was shown what: "app/auth.py:40-88, web/api.py:4-8", or NULL */
};

struct rule_result {
	const struct rule *rule;
	int64_t id;                     /* its check_threadlines row; 0 until stored */
	enum rule_status status;
	bool cached;                    /* every chunk came from the cache */
	int attempts;                   /* requests made, retries included */
	long duration_ms;
	char *error;                    /* why it failed, timed out or was skipped; of a verdict, why it is unverified */
	char *reasoning;
	char **file_references;
	size_t nrefs;
	struct finding *findings;
	size_t nfindings;
	size_t findings_dropped;        /* over what an answer may hold (answer.h), counted */
	/*
	 * What the rule's requests billed (of a cached answer: what it billed
	 * when it was asked; it costs nothing now). tokens_in is every input
	 * token, those read from the provider's prompt cache (tokens_cached)
	 * and written to it (tokens_cache_write, Anthropic's
	 * cache_creation_input_tokens) included. cost_usd is estimated from
	 * share/models.tsv (models_cost), negative when not known.
	 */
	long tokens_in, tokens_out;
	long tokens_streamed;           /* of its answers streaming now (progress), not stored */
	long tokens_cached, tokens_cache_write;
	double cost_usd;
	long timeout_ms;                /* the longest a request of the rule may take (0: none made) */
	int chunks;                     /* tasks the rule was split into */
	int chunks_done;
	/*
	 * What the rule was shown of the repository besides the diff: "pack",
	 * "pack, tools" (tools offered), "pack, tools refused", "none"; NULL
	 * before it was asked. reads: the tools' calls its model made.
	 */
	char *context;
	struct rule_read *reads;
	size_t nreads, reads_alloc;
};

void rule_result_release(struct rule_result *result);

/* The reduce step's report (map-reduce seed): merged, ordered findings. */
struct report {
	char *summary;
	char *overall_severity;         /* clean, minor-issues, needs-work, critical */
	char **must_fix;
	size_t nmust_fix;
	struct finding *findings;
	size_t nfindings;
	size_t findings_alloc;
	bool synthesized;               /* by the reduce call; false: the fallback */
	char *fallback_reason;          /* why the fallback was used, or NULL */
};

void report_release(struct report *report);

/* The check's requests, and what they billed (as in struct rule_result; answers from the cache bill nothing). */
struct check_stats {
	long requests;
	long cache_hits;
	long tokens_in;
	long tokens_out;
	long tokens_cached, tokens_cache_write;
	double cost_usd;                /* estimated; negative when not known */
};

#endif
