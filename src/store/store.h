#ifndef REVLINE_STORE_H
#define REVLINE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "result.h"
#include "rules.h"

/*
 * The store: one database, on a backend (store_backend.h): SQLite (one
 * file, WAL, foreign keys, a busy timeout) or a PostgreSQL server (a
 * location libpq reads, store_location.h), migrated by a schema version. Every write is its own transaction,
 * made the moment the data arrives, so a crash mid-check keeps everything
 * received so far. Tables follow the violation-fix seed: repos, checks,
 * check_diffs, check_threadlines (the rules of a check), check_results,
 * findings, llm_cache. API keys are never stored.
 */

struct store;
struct config;
struct usage;

/*
 * Where the database is: REVLINE_DB, git config revline.db, else
 * $XDG_DATA_HOME/revline/revline.db (~/.local/share/...).
 */
int store_default_path(struct buf *out, struct config *config);

/*
 * Open (creating the file, its directory and the schema as needed; on
 * PostgreSQL connecting and making the schema as needed). A failure's
 * message names the location without its password.
 */
int store_open(struct store **out, const char *path);

/*
 * Who writes to the store from now on: git's user.email (GIT_AUTHOR_EMAIL
 * first; never a .revline's, config.h), which a team's store records on
 * checks, feedback and fixes beside the machine's name. Not set, they
 * record no author.
 */
int store_author_load(struct store *store, struct config *config);
void store_close(struct store *store);
/*
 * The bytes SQLite holds in this process now: its page caches (each
 * connection's bounded by its cache_size), statements and schemas; what
 * a long session's memory is measured without (the soak test).
 */
int64_t store_memory(void);
/* The location as messages show it: a PostgreSQL location without its password. */
const char *store_path(const struct store *store);
/* The schema version (SQLite: PRAGMA user_version) after migrations. */
int store_version(struct store *store);

struct check_record {
	const char *repo_path;          /* the working tree (or git dir when bare) */
	const char *repo_name;
	const char *remote;             /* the repository's identity (remote_url.h), NULL when none */
	const char *branch;
	const char *environment;        /* "local" (the column exists for CI) */
	const char *base_label, *base_oid;
	const char *head_label, *head_oid;
	const char *target;             /* the target's description */
	const char *diff;               /* the whole diff text */
	size_t diff_len;
	size_t files;
	uint64_t additions, deletions;
	int64_t created_ms;             /* when the check started (unix ms); 0: now */
};

/*
 * A new check, status "running", with its diff and the process running it
 * (checks.pid, and checks.pid_start: the process's start time from
 * /proc/PID/stat, so that a reused pid is not taken for the same process).
 */
int store_check_begin(struct store *store, int64_t *id, const struct check_record *record);

/*
 * Mark every 'running' check of this machine whose process is gone as
 * 'interrupted' (finished_at now), in one transaction; *count says how
 * many. Another machine's checks (a team's store) are that machine's to
 * mark. A process
 * is gone when no pid was recorded, kill(pid, 0) says there is no such
 * process, or /proc/PID/stat gives another start time. store_open calls
 * it, best effort: a check killed halfway (SIGKILL, a crash, a power cut)
 * keeps its results and shows as interrupted from the next run on.
 */
int store_mark_interrupted(struct store *store, size_t *count);

/* The diff a check stored, as its bytes ("" when it has none). */
int store_check_diff(struct buf *out, struct store *store, int64_t check_id);

/* A rule taking part in a check (check_threadlines): id, path, content, patterns. */
int store_rule_add(struct store *store, int64_t *id, int64_t check_id, const struct rule *rule);

/*
 * A rule's settled result and its findings, in one transaction. Sets each
 * finding's id.
 */
int store_result_put(struct store *store, int64_t check_id, struct rule_result *result);

/* One item of the context a part of a check's change carried (the context pack's), as stored. */
struct store_context_item {
	const char *kind;       /* "callers", "enclosing", "definition" */
	const char *symbol;
	const char *path;
	int64_t first_line, last_line, refs;
};

/* What part (from 1) of the check's change carried, in one transaction. */
int store_context_sent(struct store *store, int64_t check_id, int part, const struct store_context_item *items,
		       size_t n);
/* The check's rules, in one transaction: ids[i] for rules[i] (all 0 on failure). */
int store_rules_add(struct store *store, int64_t *ids, int64_t check_id, const struct rule *const *rules,
		    size_t count);
/*
 * A stored check's findings as its rules gave them (the ids a check shows;
 * not the report's merged ones), the most severe first: check *check_id of
 * the repository, or its latest when *check_id is 0 (set to the check
 * read). RL_ENOTFOUND names what is missing. Freed with findings_free.
 */
int store_check_findings(struct finding **out, size_t *count, int64_t *check_id, struct store *store,
			 const char *repo);

/*
 * The end of a check: its status (complete, partial, failed, cancelled),
 * duration, statistics, and the reduced report, whose merged findings are
 * stored too (with from_rules).
 */
int store_check_finish(struct store *store, int64_t check_id, const char *status,
		       long duration_ms, const struct check_stats *stats, struct report *report);

/* The timeout a check chose (timeout.h); a rule's (the longest of its requests) is kept with its result. */
int store_check_timeout(struct store *store, int64_t check_id, double base, double chosen, const char *reason);

/*
 * The LLM cache: an answer by key, or RL_ENOTFOUND, with what it billed
 * when it was asked (usage may be NULL; its cost is not kept, so it comes
 * back negative: the model table prices the tokens). An answer taken from
 * the cache bills nothing.
 */
int store_cache_fetch(struct store *store, const char *key, char **answer, struct usage *usage);
int store_cache_keep(struct store *store, const char *key, const char *provider,
		     const char *model, const char *answer, const struct usage *usage);

/*
 * What a server refused of a model by name (ask.h): param is "temperature",
 * "json_schema"...; get gives them comma-separated ("" when none).
 */
int store_refusal_put(struct store *store, const char *server, const char *model, const char *param);
int store_refusals_get(struct buf *out, struct store *store, const char *server, const char *model);

/* The repository's row (made on first sight); path is its working tree or git directory. */
int store_repo_id(struct store *store, int64_t *id, const char *path, const char *name);

#endif
