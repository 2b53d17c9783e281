/*
 * The store's schema, the migrations from one version to the next, and the
 * other SQL that is one backend's own, one section per backend.
 */
#include "store_schema.h"

/*
 * 7: a team's store, the same on both backends but for the integer type
 * (SQLite's INTEGER is 64-bit, as PostgreSQL's BIGINT). Records say who
 * wrote them (git's user.email) and on which machine (host: with the
 * repository's path, the clone); a repository knows its remote
 * (remote_url.h: credentials stripped, one form for ssh and https). Fix
 * detection claims a pair of checks before it runs, so that two clients
 * racing for it run it once; the runs already done claim theirs. What
 * `revline db migrate` copied maps a source's row to the target's, so
 * that copying again adds nothing and an interrupted copy goes on.
 */
#define SCHEMA_V7(INT) \
	"ALTER TABLE repos ADD COLUMN remote TEXT;\n" \
	"CREATE INDEX repos_remote ON repos (remote);\n" \
	"ALTER TABLE checks ADD COLUMN author TEXT;\n" \
	"ALTER TABLE checks ADD COLUMN host TEXT;\n" \
	"CREATE INDEX checks_author ON checks (author);\n" \
	"ALTER TABLE feedback ADD COLUMN author TEXT;\n" \
	"ALTER TABLE feedback ADD COLUMN host TEXT;\n" \
	"ALTER TABLE signal_fixes ADD COLUMN author TEXT;\n" \
	"ALTER TABLE signal_fixes ADD COLUMN host TEXT;\n" \
	"ALTER TABLE fix_detection_runs ADD COLUMN host TEXT;\n" \
	"CREATE TABLE fix_detection_claims (\n" \
	"	check_id " #INT " NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n" \
	"	previous_check_id " #INT " NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n" \
	"	run_id " #INT " REFERENCES fix_detection_runs(id) ON DELETE SET NULL,\n" \
	"	claimed_at " #INT " NOT NULL,\n" \
	"	PRIMARY KEY (check_id, previous_check_id)\n" \
	");\n" \
	"CREATE INDEX fix_detection_claims_previous ON fix_detection_claims (previous_check_id);\n" \
	"INSERT INTO fix_detection_claims (check_id, previous_check_id, run_id, claimed_at)\n" \
	"	SELECT check_id, previous_check_id, max(id), max(started_at) FROM fix_detection_runs\n" \
	"	WHERE status = 'done' AND previous_check_id IS NOT NULL GROUP BY check_id, previous_check_id;\n" \
	"CREATE TABLE migrated_rows (\n" \
	"	source TEXT NOT NULL,\n" \
	"	tbl TEXT NOT NULL,\n" \
	"	source_id " #INT " NOT NULL,\n" \
	"	target_id " #INT " NOT NULL,\n" \
	"	PRIMARY KEY (source, tbl, source_id)\n" \
	");\n"

/*
 * 8: the repository index's definitions (src/context/), a cache keyed by
 * what was indexed, a blob's content id, and by what indexed it (the
 * indexer: ctags's version and options and revline's own reading, by a
 * short key of them), so that a re-check reads only what changed and
 * another ctags indexes again. A blob is recorded even with no tag (its
 * state says why: binary, too large, generated, ctags failed on it), with
 * the filter of its words (a Bloom filter, src/context/words.h) that lets
 * a references search skip it. Tags are read back by a side's blobs and
 * by name.
 */
#define SCHEMA_V8(INT, BLOB, CLUSTERED) \
	"CREATE TABLE context_indexers (\n" \
	"	id TEXT PRIMARY KEY,\n" \
	"	identity TEXT NOT NULL,\n" \
	"	created_at " #INT " NOT NULL\n" \
	");\n" \
	"CREATE TABLE context_blobs (\n" \
	"	indexer TEXT NOT NULL REFERENCES context_indexers(id) ON DELETE CASCADE,\n" \
	"	blob TEXT NOT NULL,\n" \
	"	size " #INT " NOT NULL CHECK (size >= 0),\n" \
	"	state TEXT NOT NULL CHECK (state IN ('tagged', 'failed', 'binary', 'large', 'generated')),\n" \
	"	detail TEXT,\n" \
	"	tags " #INT " NOT NULL DEFAULT 0 CHECK (tags >= 0),\n" \
	"	words " #BLOB ",\n" \
	"	indexed_at " #INT " NOT NULL,\n" \
	"	PRIMARY KEY (indexer, blob)\n" \
	")" CLUSTERED ";\n" \
	"CREATE TABLE context_tags (\n" \
	"	indexer TEXT NOT NULL,\n" \
	"	blob TEXT NOT NULL,\n" \
	"	seq " #INT " NOT NULL CHECK (seq >= 0),\n" \
	"	name TEXT NOT NULL,\n" \
	"	kind TEXT NOT NULL,\n" \
	"	line " #INT " NOT NULL CHECK (line >= 1),\n" \
	"	end_line " #INT " CHECK (end_line >= line),\n" \
	"	scope TEXT NOT NULL DEFAULT '',\n" \
	"	signature TEXT NOT NULL DEFAULT '',\n" \
	"	language TEXT NOT NULL DEFAULT '',\n" \
	"	flags " #INT " NOT NULL DEFAULT 0,\n" \
	"	PRIMARY KEY (indexer, blob, seq),\n" \
	"	FOREIGN KEY (indexer, blob) REFERENCES context_blobs(indexer, blob) ON DELETE CASCADE\n" \
	")" CLUSTERED ";\n" \
	"CREATE INDEX context_tags_name ON context_tags (indexer, name);\n"

/*
 * 9: what each check showed its model of the repository besides the diff:
 * the context pack's items each part of the change carried (every rule
 * asked about the part was given them, unless its front matter said
 * context: none), what each rule was given (check_results.context: "pack",
 * "none", "pack, tools"), and the read-only tools' calls a rule's model
 * made (what it read: the tool, its arguments, the bytes returned, the
 * error the model got, the files and lines it was shown).
 */
#define SCHEMA_V9(INT) \
	"CREATE TABLE context_sent (\n" \
	"	check_id " #INT " NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n" \
	"	part " #INT " NOT NULL CHECK (part >= 1),\n" \
	"	seq " #INT " NOT NULL CHECK (seq >= 0),\n" \
	"	kind TEXT NOT NULL CHECK (kind IN ('callers', 'enclosing', 'definition')),\n" \
	"	symbol TEXT NOT NULL,\n" \
	"	path TEXT NOT NULL,\n" \
	"	first_line " #INT " NOT NULL,\n" \
	"	last_line " #INT " NOT NULL,\n" \
	"	refs " #INT " NOT NULL DEFAULT 0,\n" \
	"	PRIMARY KEY (check_id, part, seq)\n" \
	");\n" \
	"CREATE TABLE context_reads (\n" \
	"	check_threadline_id " #INT " NOT NULL REFERENCES check_threadlines(id) ON DELETE CASCADE,\n" \
	"	seq " #INT " NOT NULL CHECK (seq >= 0),\n" \
	"	turn " #INT " NOT NULL,\n" \
	"	tool TEXT NOT NULL,\n" \
	"	arguments TEXT,\n" \
	"	result_bytes " #INT " NOT NULL DEFAULT 0,\n" \
	"	error TEXT,\n" \
	"	shown TEXT,\n" \
	"	PRIMARY KEY (check_threadline_id, seq)\n" \
	");\n" \
	"ALTER TABLE check_results ADD COLUMN context TEXT;\n"

/*
 * 10: the benchmark (revline bench): the cases mined from a repository's
 * history (a fix reversed, and the lines a review should find, as JSON:
 * bench_case.h), the set of them in use (active), those the user
 * excluded; each run of them with one configuration, and each case's
 * outcome in a run (its check, the findings on the fix's lines, elsewhere
 * and unverified, what it billed, how long it took; per rule and
 * severity in detail, as JSON).
 */
#define SCHEMA_V10(INT, ID) \
	"CREATE TABLE bench_cases (\n" \
	"	" ID ",\n" \
	"	repo_id " #INT " NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n" \
	"	commit_oid TEXT NOT NULL,\n" \
	"	parent_oid TEXT NOT NULL,\n" \
	"	subject TEXT NOT NULL,\n" \
	"	why TEXT NOT NULL,\n" \
	"	committed_at " #INT " NOT NULL,\n" \
	"	lines " #INT " NOT NULL CHECK (lines >= 0),\n" \
	"	expected TEXT NOT NULL,\n" \
	"	active " #INT " NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),\n" \
	"	excluded " #INT " NOT NULL DEFAULT 0 CHECK (excluded IN (0, 1)),\n" \
	"	mined_with TEXT NOT NULL DEFAULT '',\n" \
	"	mined_at " #INT " NOT NULL,\n" \
	"	UNIQUE (repo_id, commit_oid)\n" \
	");\n" \
	"CREATE TABLE bench_runs (\n" \
	"	" ID ",\n" \
	"	repo_id " #INT " NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n" \
	"	config TEXT NOT NULL,\n" \
	"	provider TEXT,\n" \
	"	model TEXT,\n" \
	"	status TEXT NOT NULL CHECK (status IN ('running', 'done', 'cancelled', 'failed')),\n" \
	"	cases " #INT " NOT NULL CHECK (cases >= 0),\n" \
	"	tolerance " #INT " NOT NULL DEFAULT 3,\n" \
	"	started_at " #INT " NOT NULL,\n" \
	"	finished_at " #INT ",\n" \
	"	author TEXT,\n" \
	"	host TEXT\n" \
	");\n" \
	"CREATE INDEX bench_runs_repo ON bench_runs (repo_id, config);\n" \
	"CREATE TABLE bench_results (\n" \
	"	run_id " #INT " NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,\n" \
	"	case_id " #INT " NOT NULL REFERENCES bench_cases(id) ON DELETE CASCADE,\n" \
	"	check_id " #INT " REFERENCES checks(id) ON DELETE SET NULL,\n" \
	"	outcome TEXT NOT NULL CHECK (outcome IN ('caught', 'missed', 'error')),\n" \
	"	hits " #INT " NOT NULL DEFAULT 0,\n" \
	"	noise " #INT " NOT NULL DEFAULT 0,\n" \
	"	unverified " #INT " NOT NULL DEFAULT 0,\n" \
	"	tokens_in " #INT " NOT NULL DEFAULT 0,\n" \
	"	tokens_cached " #INT " NOT NULL DEFAULT 0,\n" \
	"	tokens_out " #INT " NOT NULL DEFAULT 0,\n" \
	"	cost_usd REAL CHECK (cost_usd >= 0),\n" \
	"	ms " #INT " NOT NULL DEFAULT 0,\n" \
	"	error TEXT,\n" \
	"	detail TEXT NOT NULL DEFAULT '{}',\n" \
	"	PRIMARY KEY (run_id, case_id)\n" \
	");\n"

/*
 * Version 11: what a lock file says of a package (deps.h): how the project
 * depends on it (direct, transitive, unknown), the direct dependency that
 * pulls a transitive one in, the lock file whose exact versions it has,
 * and what a bot's commit message claimed of it that the lock file does
 * not bear out; the analysis's claims that no file bears out (a JSON
 * array). The advisories' JSON says too which the bump brings.
 */
#define SCHEMA_V11 \
	"ALTER TABLE check_packages ADD COLUMN relation TEXT NOT NULL DEFAULT 'direct'\n" \
	"	CHECK (relation IN ('direct', 'transitive', 'unknown'));\n" \
	"ALTER TABLE check_packages ADD COLUMN via TEXT;\n" \
	"ALTER TABLE check_packages ADD COLUMN lock TEXT;\n" \
	"ALTER TABLE check_packages ADD COLUMN claimed TEXT;\n"

/* === SQLite ============================================================== */

/*
 * The schema, one script per version: sqlite_migrations[i] takes a database from
 * user_version i to i + 1. Later versions append a script. Foreign keys are
 * off while migrating, so that a script may rebuild a table (SQLite's
 * twelve-step procedure); each step's transaction ends with a foreign key
 * check.
 *
 * Not STRICT tables: STRICT needs SQLite 3.37, and the CHECKs below keep
 * the values that matter in shape on older libraries too. Times are unix
 * milliseconds. JSON columns hold compact JSON text.
 */
static const char *const sqlite_migrations[] = {
	/* 1: the check history of the violation-fix seed, and the LLM cache. */
	"CREATE TABLE repos (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	path TEXT NOT NULL UNIQUE,\n"
	"	name TEXT NOT NULL,\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	/* AUTOINCREMENT: ids never come back after a delete, so id orders checks. */
	"CREATE TABLE checks (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	branch TEXT NOT NULL,\n"
	"	environment TEXT NOT NULL DEFAULT 'local',\n"
	"	base_label TEXT,\n"
	"	base_oid TEXT,\n"
	"	head_label TEXT,\n"
	"	head_oid TEXT,\n"
	"	target TEXT,\n"
	"	status TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (status IN ('running', 'complete', 'partial', 'failed', 'cancelled')),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	finished_at INTEGER,\n"
	"	duration_ms INTEGER CHECK (duration_ms >= 0),\n"
	"	rule_count INTEGER NOT NULL DEFAULT 0 CHECK (rule_count >= 0),\n"
	"	finding_count INTEGER NOT NULL DEFAULT 0 CHECK (finding_count >= 0),\n"
	"	summary TEXT,\n"
	"	overall_severity TEXT\n"
	"		CHECK (overall_severity IN ('clean', 'minor-issues', 'needs-work', 'critical')),\n"
	"	must_fix TEXT NOT NULL DEFAULT '[]' CHECK (json_type(must_fix) = 'array'),\n"
	"	synthesized INTEGER CHECK (synthesized IN (0, 1)),\n"
	"	fallback_reason TEXT,\n"
	"	requests INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),\n"
	"	cache_hits INTEGER NOT NULL DEFAULT 0 CHECK (cache_hits >= 0),\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	CHECK ((status = 'running') = (finished_at IS NULL))\n"
	");\n"
	/* The previous consecutive check: same repo, branch and environment, ordered by (created_at, id). */
	"CREATE INDEX checks_consecutive ON checks (repo_id, branch, environment, created_at);\n"
	"CREATE TABLE check_diffs (\n"
	"	check_id INTEGER PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	diff BLOB NOT NULL,\n"
	"	files INTEGER NOT NULL DEFAULT 0 CHECK (files >= 0),\n"
	"	additions INTEGER NOT NULL DEFAULT 0 CHECK (additions >= 0),\n"
	"	deletions INTEGER NOT NULL DEFAULT 0 CHECK (deletions >= 0)\n"
	");\n"
	"CREATE TABLE check_threadlines (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	threadline_id TEXT NOT NULL,\n"
	"	threadline_file_path TEXT NOT NULL,\n"
	"	threadline_version TEXT,\n"
	"	threadline_content TEXT NOT NULL,\n"
	"	threadline_patterns TEXT NOT NULL DEFAULT '[]'\n"
	"		CHECK (json_type(threadline_patterns) = 'array'),\n"
	"	context_files TEXT NOT NULL DEFAULT '[]' CHECK (json_type(context_files) = 'array'),\n"
	"	kind TEXT NOT NULL CHECK (kind IN ('llm', 'local')),\n"
	"	model TEXT,\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	source TEXT,\n"
	"	UNIQUE (check_id, threadline_id)\n"
	");\n"
	"CREATE TABLE check_results (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_threadline_id INTEGER NOT NULL UNIQUE\n"
	"		REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	status TEXT NOT NULL CHECK (status IN ('compliant', 'attention', 'not_relevant',\n"
	"		'error', 'timeout', 'skipped')),\n"
	"	reasoning TEXT,\n"
	"	file_references TEXT NOT NULL DEFAULT '[]'\n"
	"		CHECK (json_type(file_references) = 'array'),\n"
	"	error TEXT,\n"
	"	cached INTEGER NOT NULL DEFAULT 0 CHECK (cached IN (0, 1)),\n"
	"	attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),\n"
	"	duration_ms INTEGER NOT NULL DEFAULT 0 CHECK (duration_ms >= 0),\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	chunks INTEGER NOT NULL DEFAULT 0 CHECK (chunks >= 0),\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	/* A rule's own finding has its check_threadline; the report's merged one (reduced) has none. */
	"CREATE TABLE findings (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	check_threadline_id INTEGER REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	rule_id TEXT,\n"
	"	file TEXT,\n"
	"	line INTEGER NOT NULL DEFAULT 0 CHECK (line >= 0),\n"
	"	end_line INTEGER NOT NULL DEFAULT 0 CHECK (end_line >= 0),\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	category TEXT,\n"
	"	title TEXT,\n"
	"	issue TEXT,\n"
	"	suggestion TEXT,\n"
	"	evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_type(evidence) = 'object'),\n"
	"	verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),\n"
	"	verify_note TEXT,\n"
	"	fingerprint TEXT,\n"
	"	suppressed INTEGER NOT NULL DEFAULT 0 CHECK (suppressed IN (0, 1)),\n"
	"	from_rules TEXT NOT NULL DEFAULT '[]' CHECK (json_type(from_rules) = 'array'),\n"
	"	reduced INTEGER NOT NULL DEFAULT 0 CHECK (reduced IN (0, 1)),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	CHECK ((reduced = 1) = (check_threadline_id IS NULL))\n"
	");\n"
	"CREATE INDEX findings_fingerprint ON findings (fingerprint);\n"
	"CREATE INDEX findings_check ON findings (check_id);\n"
	"CREATE INDEX findings_rule ON findings (rule_id);\n"
	/* For the cascade from check_threadlines and a rule's findings. */
	"CREATE INDEX findings_threadline ON findings (check_threadline_id);\n"
	"CREATE TABLE llm_cache (\n"
	"	key TEXT PRIMARY KEY,\n"
	"	provider TEXT NOT NULL,\n"
	"	model TEXT NOT NULL,\n"
	"	answer TEXT NOT NULL,\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	last_used_at INTEGER NOT NULL,\n"
	"	hits INTEGER NOT NULL DEFAULT 0 CHECK (hits >= 0)\n"
	");\n"
	/* For evicting the least recently used answers. */
	"CREATE INDEX llm_cache_last_used ON llm_cache (last_used_at);\n",
	/*
	 * 2: history. A check remembers the process that ran it, so that the
	 * next run can tell a check killed halfway ('interrupted') from one that
	 * is still running; feedback on findings and fixes, with a full-text
	 * index for retrieval; and fix detection's results and runs. The checks
	 * table is rebuilt (SQLite cannot change a CHECK), with foreign keys off.
	 */
	"CREATE TABLE checks_v2 (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	branch TEXT NOT NULL,\n"
	"	environment TEXT NOT NULL DEFAULT 'local',\n"
	"	base_label TEXT,\n"
	"	base_oid TEXT,\n"
	"	head_label TEXT,\n"
	"	head_oid TEXT,\n"
	"	target TEXT,\n"
	"	status TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (status IN ('running', 'complete', 'partial', 'failed', 'cancelled', 'interrupted')),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	finished_at INTEGER,\n"
	"	duration_ms INTEGER CHECK (duration_ms >= 0),\n"
	"	rule_count INTEGER NOT NULL DEFAULT 0 CHECK (rule_count >= 0),\n"
	"	finding_count INTEGER NOT NULL DEFAULT 0 CHECK (finding_count >= 0),\n"
	"	summary TEXT,\n"
	"	overall_severity TEXT\n"
	"		CHECK (overall_severity IN ('clean', 'minor-issues', 'needs-work', 'critical')),\n"
	"	must_fix TEXT NOT NULL DEFAULT '[]' CHECK (json_type(must_fix) = 'array'),\n"
	"	synthesized INTEGER CHECK (synthesized IN (0, 1)),\n"
	"	fallback_reason TEXT,\n"
	"	requests INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),\n"
	"	cache_hits INTEGER NOT NULL DEFAULT 0 CHECK (cache_hits >= 0),\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	pid INTEGER,\n"
	"	pid_start INTEGER,\n"
	"	CHECK ((status = 'running') = (finished_at IS NULL))\n"
	");\n"
	"INSERT INTO checks_v2 (id, repo_id, branch, environment, base_label, base_oid, head_label,\n"
	"	head_oid, target, status, created_at, finished_at, duration_ms, rule_count, finding_count,\n"
	"	summary, overall_severity, must_fix, synthesized, fallback_reason, requests, cache_hits,\n"
	"	tokens_in, tokens_out)\n"
	"SELECT id, repo_id, branch, environment, base_label, base_oid, head_label, head_oid, target,\n"
	"	status, created_at, finished_at, duration_ms, rule_count, finding_count, summary,\n"
	"	overall_severity, must_fix, synthesized, fallback_reason, requests, cache_hits, tokens_in,\n"
	"	tokens_out FROM checks;\n"
	/* The id sequence goes with the table, so that ids of deleted checks stay unused. */
	"INSERT INTO sqlite_sequence (name, seq) SELECT 'checks_v2', 0 WHERE NOT EXISTS\n"
	"	(SELECT 1 FROM sqlite_sequence WHERE name = 'checks_v2');\n"
	"UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence\n"
	"	WHERE name = 'checks'), 0)) WHERE name = 'checks_v2';\n"
	"DROP TABLE checks;\n"
	"ALTER TABLE checks_v2 RENAME TO checks;\n"
	"CREATE INDEX checks_consecutive ON checks (repo_id, branch, environment, created_at);\n"
	"CREATE TABLE violation_fixes (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	violation_check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	fix_check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	violation_threadline_id INTEGER NOT NULL REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	threadline_id TEXT NOT NULL,\n"
	"	threadline_file_path TEXT NOT NULL,\n"
	"	threadline_version TEXT,\n"
	"	file_references TEXT NOT NULL DEFAULT '[]' CHECK (json_type(file_references) = 'array'),\n"
	"	fix_type TEXT NOT NULL\n"
	"		CHECK (fix_type IN ('CODE_CHANGE', 'THREADLINE_CHANGED', 'THREADLINE_DELETED')),\n"
	"	explanation TEXT NOT NULL,\n"
	"	evidence TEXT CHECK (evidence IS NULL OR json_valid(evidence)),\n"
	"	time_between_checks_seconds INTEGER,\n"
	"	detection_method TEXT NOT NULL DEFAULT 'llm_analysis'\n"
	"		CHECK (detection_method IN ('llm_analysis', 'deterministic')),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	UNIQUE (fix_check_id, violation_threadline_id)\n"
	");\n"
	"CREATE INDEX violation_fixes_violation_check ON violation_fixes (violation_check_id);\n"
	"CREATE INDEX violation_fixes_threadline ON violation_fixes (threadline_id);\n"
	"CREATE INDEX violation_fixes_fix_type ON violation_fixes (fix_type);\n"
	"CREATE INDEX violation_fixes_time_between ON violation_fixes (time_between_checks_seconds);\n"
	"CREATE TABLE fix_detection_runs (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	previous_check_id INTEGER REFERENCES checks(id) ON DELETE SET NULL,\n"
	"	status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),\n"
	"	violations INTEGER NOT NULL DEFAULT 0 CHECK (violations >= 0),\n"
	"	analysed INTEGER NOT NULL DEFAULT 0 CHECK (analysed >= 0),\n"
	"	detected INTEGER NOT NULL DEFAULT 0 CHECK (detected >= 0),\n"
	"	deterministic INTEGER NOT NULL DEFAULT 0 CHECK (deterministic >= 0),\n"
	"	llm_calls INTEGER NOT NULL DEFAULT 0 CHECK (llm_calls >= 0),\n"
	"	errors INTEGER NOT NULL DEFAULT 0 CHECK (errors >= 0),\n"
	"	error_log TEXT NOT NULL DEFAULT '[]' CHECK (json_type(error_log) = 'array'),\n"
	"	started_at INTEGER NOT NULL,\n"
	"	finished_at INTEGER,\n"
	"	duration_ms INTEGER CHECK (duration_ms >= 0),\n"
	"	pid INTEGER\n"
	");\n"
	"CREATE INDEX fix_detection_runs_check ON fix_detection_runs (check_id);\n"
	/* Feedback keeps copies of what it is about: findings come and go with their checks. */
	"CREATE TABLE feedback (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	finding_id INTEGER REFERENCES findings(id) ON DELETE SET NULL,\n"
	"	fix_id INTEGER REFERENCES violation_fixes(id) ON DELETE SET NULL,\n"
	"	repo_id INTEGER REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	kind TEXT NOT NULL\n"
	"		CHECK (kind IN ('false_positive', 'accept', 'reject', 'fix_correct', 'fix_incorrect')),\n"
	"	note TEXT,\n"
	"	rule_id TEXT,\n"
	"	fingerprint TEXT,\n"
	"	file TEXT,\n"
	"	title TEXT,\n"
	"	issue TEXT,\n"
	"	code TEXT,\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	"CREATE INDEX feedback_fingerprint ON feedback (fingerprint, created_at);\n"
	"CREATE INDEX feedback_rule ON feedback (rule_id, kind);\n"
	"CREATE INDEX feedback_fix ON feedback (fix_id);\n"
	/* Retrieval of past feedback by text (BM25); kept in step by triggers. */
	"CREATE VIRTUAL TABLE feedback_fts USING fts5(file, title, issue, code, note,\n"
	"	content = 'feedback', content_rowid = 'id', tokenize = \"unicode61 tokenchars '_'\");\n"
	"CREATE TRIGGER feedback_fts_insert AFTER INSERT ON feedback BEGIN\n"
	"	INSERT INTO feedback_fts (rowid, file, title, issue, code, note)\n"
	"	VALUES (new.id, new.file, new.title, new.issue, new.code, new.note);\n"
	"END;\n"
	"CREATE TRIGGER feedback_fts_delete AFTER DELETE ON feedback BEGIN\n"
	"	INSERT INTO feedback_fts (feedback_fts, rowid, file, title, issue, code, note)\n"
	"	VALUES ('delete', old.id, old.file, old.title, old.issue, old.code, old.note);\n"
	"END;\n"
	"CREATE TRIGGER feedback_fts_update AFTER UPDATE ON feedback BEGIN\n"
	"	INSERT INTO feedback_fts (feedback_fts, rowid, file, title, issue, code, note)\n"
	"	VALUES ('delete', old.id, old.file, old.title, old.issue, old.code, old.note);\n"
	"	INSERT INTO feedback_fts (rowid, file, title, issue, code, note)\n"
	"	VALUES (new.id, new.file, new.title, new.issue, new.code, new.note);\n"
	"END;\n",
	/* 3: linter signals, by the run or import that brought them, and fixes. */
	"CREATE TABLE signal_runs (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	tool TEXT NOT NULL,\n"
	"	format TEXT NOT NULL,\n"
	"	source TEXT NOT NULL CHECK (source IN ('import', 'run')),\n"
	"	origin TEXT,\n"
	"	signals INTEGER NOT NULL DEFAULT 0 CHECK (signals >= 0),\n"
	"	problems TEXT NOT NULL DEFAULT '[]' CHECK (json_type(problems) = 'array'),\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	"CREATE INDEX signal_runs_repo_tool ON signal_runs (repo_id, tool, id);\n"
	"CREATE TABLE signals (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	run_id INTEGER NOT NULL REFERENCES signal_runs(id) ON DELETE CASCADE,\n"
	"	tool TEXT NOT NULL,\n"
	"	code TEXT NOT NULL DEFAULT '',\n"
	"	message TEXT NOT NULL,\n"
	"	severity TEXT,\n"
	"	file TEXT NOT NULL,\n"
	"	line INTEGER NOT NULL DEFAULT 0 CHECK (line >= 0),\n"
	"	col INTEGER NOT NULL DEFAULT 0 CHECK (col >= 0),\n"
	"	end_line INTEGER NOT NULL DEFAULT 0 CHECK (end_line >= 0),\n"
	"	end_col INTEGER NOT NULL DEFAULT 0 CHECK (end_col >= 0),\n"
	"	url TEXT\n"
	");\n"
	"CREATE INDEX signals_run ON signals (run_id);\n"
	"CREATE INDEX signals_file ON signals (file, line);\n"
	/* A fix keeps the exact bytes it replaced and wrote (BLOBs), to be undone byte for byte. */
	"CREATE TABLE signal_fixes (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	signal_id INTEGER REFERENCES signals(id) ON DELETE SET NULL,\n"
	"	finding_id INTEGER REFERENCES findings(id) ON DELETE SET NULL,\n"
	"	tool TEXT,\n"
	"	code TEXT,\n"
	"	message TEXT,\n"
	"	file TEXT NOT NULL,\n"
	"	first_line INTEGER NOT NULL CHECK (first_line >= 1),\n"
	"	last_line INTEGER NOT NULL CHECK (last_line >= first_line),\n"
	"	window TEXT NOT NULL,\n"
	"	status TEXT NOT NULL CHECK (status IN ('asking', 'proposed', 'failed', 'applied',\n"
	"		'rejected', 'undone')),\n"
	"	error TEXT,\n"
	"	file_id TEXT NOT NULL,\n"
	"	byte_offset INTEGER CHECK (byte_offset >= 0),\n"
	"	before BLOB,\n"
	"	after BLOB,\n"
	"	file_id_after TEXT,\n"
	"	explanation TEXT,\n"
	"	preview TEXT,\n"
	"	model TEXT,\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0,\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0,\n"
	"	recheck TEXT CHECK (recheck IN ('gone', 'still_present', 'new_signals', 'not_run')),\n"
	"	recheck_detail TEXT,\n"
	"	created_at INTEGER NOT NULL,\n"
	"	proposed_at INTEGER,\n"
	"	applied_at INTEGER,\n"
	"	rejected_at INTEGER,\n"
	"	undone_at INTEGER\n"
	");\n"
	"CREATE INDEX signal_fixes_signal ON signal_fixes (signal_id);\n"
	"CREATE INDEX signal_fixes_finding ON signal_fixes (finding_id);\n"
	"CREATE INDEX signal_fixes_file ON signal_fixes (repo_id, file, id);\n",
	/* 4: a check's dependency analysis (one row) and its packages; the timeout it chose. */
	"ALTER TABLE checks ADD COLUMN timeout_base REAL;\n"
	"ALTER TABLE checks ADD COLUMN timeout_chosen REAL;\n"
	"ALTER TABLE checks ADD COLUMN timeout_reason TEXT;\n"
	"ALTER TABLE check_threadlines ADD COLUMN timeout_ms INTEGER;\n"
	"CREATE TABLE check_dependencies (\n"
	"	check_id INTEGER PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	ecosystems TEXT NOT NULL DEFAULT '[]' CHECK (json_type(ecosystems) = 'array'),\n"
	"	bot TEXT,\n"
	"	dependency_only INTEGER NOT NULL CHECK (dependency_only IN (0, 1)),\n"
	"	confidence TEXT NOT NULL CHECK (confidence IN ('high', 'medium', 'low')),\n"
	"	reason TEXT NOT NULL,\n"
	"	advisories_checked INTEGER NOT NULL DEFAULT 0 CHECK (advisories_checked >= 0),\n"
	"	advisories_error TEXT\n"
	");\n"
	"CREATE TABLE check_packages (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	ecosystem TEXT NOT NULL,\n"
	"	name TEXT NOT NULL,\n"
	"	manifest TEXT,\n"
	"	from_spec TEXT,\n"
	"	to_spec TEXT,\n"
	"	bump TEXT NOT NULL CHECK (bump IN ('patch', 'minor', 'major', 'added', 'removed', 'unknown')),\n"
	"	breaking INTEGER NOT NULL CHECK (breaking IN (0, 1)),\n"
	"	downgrade INTEGER NOT NULL CHECK (downgrade IN (0, 1)),\n"
	"	advisories TEXT NOT NULL DEFAULT '[]' CHECK (json_type(advisories) = 'array')\n"
	");\n"
	"CREATE INDEX check_packages_check ON check_packages (check_id);\n",
	/*
	 * 5: what requests billed beside tokens in and out (usage.h): input
	 * tokens read from the provider's prompt cache and written to it, and
	 * the cost estimated from the model table, NULL when not known (rows
	 * from before this version). A cached answer keeps the tokens it
	 * billed when it was asked.
	 */
	"ALTER TABLE checks ADD COLUMN tokens_cached INTEGER NOT NULL DEFAULT 0 CHECK (tokens_cached >= 0);\n"
	"ALTER TABLE checks ADD COLUMN tokens_cache_write INTEGER NOT NULL DEFAULT 0\n"
	"	CHECK (tokens_cache_write >= 0);\n"
	"ALTER TABLE checks ADD COLUMN cost_usd REAL CHECK (cost_usd >= 0);\n"
	"ALTER TABLE check_results ADD COLUMN tokens_cached INTEGER NOT NULL DEFAULT 0\n"
	"	CHECK (tokens_cached >= 0);\n"
	"ALTER TABLE check_results ADD COLUMN tokens_cache_write INTEGER NOT NULL DEFAULT 0\n"
	"	CHECK (tokens_cache_write >= 0);\n"
	"ALTER TABLE check_results ADD COLUMN cost_usd REAL CHECK (cost_usd >= 0);\n"
	"ALTER TABLE signal_fixes ADD COLUMN tokens_cached INTEGER NOT NULL DEFAULT 0\n"
	"	CHECK (tokens_cached >= 0);\n"
	"ALTER TABLE signal_fixes ADD COLUMN cost_usd REAL CHECK (cost_usd >= 0);\n"
	"ALTER TABLE llm_cache ADD COLUMN tokens_cached INTEGER NOT NULL DEFAULT 0 CHECK (tokens_cached >= 0);\n"
	"ALTER TABLE llm_cache ADD COLUMN tokens_cache_write INTEGER NOT NULL DEFAULT 0\n"
	"	CHECK (tokens_cache_write >= 0);\n",
	/* 6: what a server refused of a model (ask.h), so that the next run leaves it out at once. */
	"CREATE TABLE llm_refusals (\n"
	"	server TEXT NOT NULL,\n"
	"	model TEXT NOT NULL,\n"
	"	param TEXT NOT NULL,\n"
	"	refused_at INTEGER NOT NULL,\n"
	"	PRIMARY KEY (server, model, param)\n"
	");\n",
	/* 7: a team's store (SCHEMA_V7 above). */
	SCHEMA_V7(INTEGER),
	/* 8: the repository index (SCHEMA_V8 above); a blob's tags are stored together, in key order. */
	SCHEMA_V8(INTEGER, BLOB, " WITHOUT ROWID"),
	/* 9: what each check showed its model of the repository (SCHEMA_V9 above). */
	SCHEMA_V9(INTEGER),
	/* 10: the benchmark (SCHEMA_V10 above). */
	SCHEMA_V10(INTEGER, "id INTEGER PRIMARY KEY AUTOINCREMENT"),
	/* 11: a package's relation, via, lock file and claim; the claims (SCHEMA_V11 above). */
	SCHEMA_V11
	"ALTER TABLE check_dependencies ADD COLUMN claims TEXT NOT NULL DEFAULT '[]' CHECK (json_type(claims) = 'array');\n",
};

/* FTS5's BM25: lower is better. */
static const char sqlite_feedback_match[] =
	"SELECT rowid AS id, bm25(feedback_fts) AS score FROM feedback_fts WHERE feedback_fts MATCH :query";

/*
 * The tables but SQLite's own (sqlite_sequence) and the full-text index,
 * a virtual table, with the shadow tables it keeps its data in
 * (feedback_fts_data, ...). A column's kind from its declared type, as
 * SQLite's affinity rules read it.
 */
static const char sqlite_tables[] =
	"SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
	"AND m.sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND NOT EXISTS (SELECT 1 FROM sqlite_master v "
	"WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%' AND m.name LIKE v.name || '\\_%' ESCAPE '\\') "
	"ORDER BY m.name";
static const char sqlite_columns[] =
	"SELECT name, CASE WHEN upper(type) LIKE '%INT%' THEN 'int' "
	"WHEN upper(type) LIKE '%CHAR%' OR upper(type) LIKE '%CLOB%' OR upper(type) LIKE '%TEXT%' THEN 'text' "
	"WHEN upper(type) LIKE '%BLOB%' OR type = '' THEN 'blob' "
	"WHEN upper(type) LIKE '%REAL%' OR upper(type) LIKE '%FLOA%' OR upper(type) LIKE '%DOUB%' THEN 'real' "
	"ELSE 'text' END FROM pragma_table_info(:tbl) ORDER BY cid";

const struct store_dialect store_dialect_sqlite = {
	.migrations = sqlite_migrations,
	.nmigrations = sizeof(sqlite_migrations) / sizeof(sqlite_migrations[0]),
	.feedback_match = sqlite_feedback_match,
	.tables = sqlite_tables,
	.columns = sqlite_columns,
};

/* === PostgreSQL ========================================================== */

/*
 * The same tables, columns and constraints as SQLite's latest version,
 * made at once (PostgreSQL came at version 6: no database of it is older).
 * Integers are BIGINT (SQLite's INTEGER is 64-bit), ids identity columns
 * that never give an id twice (as AUTOINCREMENT), BLOB is BYTEA, REAL is
 * DOUBLE PRECISION; the JSON columns stay compact JSON text, checked with
 * json_typeof. The version is the one row of revline_schema_version;
 * revline_data_version moves after each write (backend_pg.c). Feedback is
 * searched by the generated tsvector column search (the 'simple'
 * configuration: no stemming, no stop words, as FTS5's unicode61; every
 * run of characters other than letters, digits and '_' a separator) with
 * a GIN index.
 */
#define PG_ID "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
#define PG_JSON_ARRAY(col) col " TEXT NOT NULL DEFAULT '[]' CHECK (json_typeof(" col "::json) = 'array')"
#define PG_COUNT(col) col " BIGINT NOT NULL DEFAULT 0 CHECK (" col " >= 0)"
#define PG_FLAG(col) col " BIGINT NOT NULL DEFAULT 0 CHECK (" col " IN (0, 1))"

static const char pg_create[] =
	"CREATE TABLE revline_schema_version (\n"
	"	id BIGINT PRIMARY KEY CHECK (id = 1),\n"
	"	version BIGINT NOT NULL\n"
	");\n"
	"CREATE SEQUENCE revline_data_version;\n"
	"CREATE TABLE repos (\n"
	"	" PG_ID ",\n"
	"	path TEXT NOT NULL UNIQUE,\n"
	"	name TEXT NOT NULL,\n"
	"	created_at BIGINT NOT NULL\n"
	");\n"
	"CREATE TABLE checks (\n"
	"	" PG_ID ",\n"
	"	repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	branch TEXT NOT NULL,\n"
	"	environment TEXT NOT NULL DEFAULT 'local',\n"
	"	base_label TEXT,\n"
	"	base_oid TEXT,\n"
	"	head_label TEXT,\n"
	"	head_oid TEXT,\n"
	"	target TEXT,\n"
	"	status TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (status IN ('running', 'complete', 'partial', 'failed', 'cancelled', 'interrupted')),\n"
	"	created_at BIGINT NOT NULL,\n"
	"	finished_at BIGINT,\n"
	"	duration_ms BIGINT CHECK (duration_ms >= 0),\n"
	"	" PG_COUNT("rule_count") ",\n"
	"	" PG_COUNT("finding_count") ",\n"
	"	summary TEXT,\n"
	"	overall_severity TEXT\n"
	"		CHECK (overall_severity IN ('clean', 'minor-issues', 'needs-work', 'critical')),\n"
	"	" PG_JSON_ARRAY("must_fix") ",\n"
	"	synthesized BIGINT CHECK (synthesized IN (0, 1)),\n"
	"	fallback_reason TEXT,\n"
	"	" PG_COUNT("requests") ",\n"
	"	" PG_COUNT("cache_hits") ",\n"
	"	" PG_COUNT("tokens_in") ",\n"
	"	" PG_COUNT("tokens_out") ",\n"
	"	pid BIGINT,\n"
	"	pid_start BIGINT,\n"
	"	timeout_base DOUBLE PRECISION,\n"
	"	timeout_chosen DOUBLE PRECISION,\n"
	"	timeout_reason TEXT,\n"
	"	" PG_COUNT("tokens_cached") ",\n"
	"	" PG_COUNT("tokens_cache_write") ",\n"
	"	cost_usd DOUBLE PRECISION CHECK (cost_usd >= 0),\n"
	"	CHECK ((status = 'running') = (finished_at IS NULL))\n"
	");\n"
	"CREATE INDEX checks_consecutive ON checks (repo_id, branch, environment, created_at);\n"
	"CREATE TABLE check_diffs (\n"
	"	check_id BIGINT PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	diff BYTEA NOT NULL,\n"
	"	" PG_COUNT("files") ",\n"
	"	" PG_COUNT("additions") ",\n"
	"	" PG_COUNT("deletions") "\n"
	");\n"
	"CREATE TABLE check_threadlines (\n"
	"	" PG_ID ",\n"
	"	check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	threadline_id TEXT NOT NULL,\n"
	"	threadline_file_path TEXT NOT NULL,\n"
	"	threadline_version TEXT,\n"
	"	threadline_content TEXT NOT NULL,\n"
	"	" PG_JSON_ARRAY("threadline_patterns") ",\n"
	"	" PG_JSON_ARRAY("context_files") ",\n"
	"	kind TEXT NOT NULL CHECK (kind IN ('llm', 'local')),\n"
	"	model TEXT,\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	source TEXT,\n"
	"	timeout_ms BIGINT,\n"
	"	UNIQUE (check_id, threadline_id)\n"
	");\n"
	"CREATE TABLE check_results (\n"
	"	" PG_ID ",\n"
	"	check_threadline_id BIGINT NOT NULL UNIQUE\n"
	"		REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	status TEXT NOT NULL CHECK (status IN ('compliant', 'attention', 'not_relevant',\n"
	"		'error', 'timeout', 'skipped')),\n"
	"	reasoning TEXT,\n"
	"	" PG_JSON_ARRAY("file_references") ",\n"
	"	error TEXT,\n"
	"	" PG_FLAG("cached") ",\n"
	"	" PG_COUNT("attempts") ",\n"
	"	" PG_COUNT("duration_ms") ",\n"
	"	" PG_COUNT("tokens_in") ",\n"
	"	" PG_COUNT("tokens_out") ",\n"
	"	" PG_COUNT("chunks") ",\n"
	"	created_at BIGINT NOT NULL,\n"
	"	" PG_COUNT("tokens_cached") ",\n"
	"	" PG_COUNT("tokens_cache_write") ",\n"
	"	cost_usd DOUBLE PRECISION CHECK (cost_usd >= 0)\n"
	");\n"
	"CREATE TABLE findings (\n"
	"	" PG_ID ",\n"
	"	check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	check_threadline_id BIGINT REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	rule_id TEXT,\n"
	"	file TEXT,\n"
	"	" PG_COUNT("line") ",\n"
	"	" PG_COUNT("end_line") ",\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	category TEXT,\n"
	"	title TEXT,\n"
	"	issue TEXT,\n"
	"	suggestion TEXT,\n"
	"	evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_typeof(evidence::json) = 'object'),\n"
	"	" PG_FLAG("verified") ",\n"
	"	verify_note TEXT,\n"
	"	fingerprint TEXT,\n"
	"	" PG_FLAG("suppressed") ",\n"
	"	" PG_JSON_ARRAY("from_rules") ",\n"
	"	" PG_FLAG("reduced") ",\n"
	"	created_at BIGINT NOT NULL,\n"
	"	CHECK ((reduced = 1) = (check_threadline_id IS NULL))\n"
	");\n"
	"CREATE INDEX findings_fingerprint ON findings (fingerprint);\n"
	"CREATE INDEX findings_check ON findings (check_id);\n"
	"CREATE INDEX findings_rule ON findings (rule_id);\n"
	"CREATE INDEX findings_threadline ON findings (check_threadline_id);\n"
	"CREATE TABLE llm_cache (\n"
	"	key TEXT PRIMARY KEY,\n"
	"	provider TEXT NOT NULL,\n"
	"	model TEXT NOT NULL,\n"
	"	answer TEXT NOT NULL,\n"
	"	" PG_COUNT("tokens_in") ",\n"
	"	" PG_COUNT("tokens_out") ",\n"
	"	created_at BIGINT NOT NULL,\n"
	"	last_used_at BIGINT NOT NULL,\n"
	"	" PG_COUNT("hits") ",\n"
	"	" PG_COUNT("tokens_cached") ",\n"
	"	" PG_COUNT("tokens_cache_write") "\n"
	");\n"
	"CREATE INDEX llm_cache_last_used ON llm_cache (last_used_at);\n"
	"CREATE TABLE violation_fixes (\n"
	"	" PG_ID ",\n"
	"	violation_check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	fix_check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	violation_threadline_id BIGINT NOT NULL REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	threadline_id TEXT NOT NULL,\n"
	"	threadline_file_path TEXT NOT NULL,\n"
	"	threadline_version TEXT,\n"
	"	" PG_JSON_ARRAY("file_references") ",\n"
	"	fix_type TEXT NOT NULL\n"
	"		CHECK (fix_type IN ('CODE_CHANGE', 'THREADLINE_CHANGED', 'THREADLINE_DELETED')),\n"
	"	explanation TEXT NOT NULL,\n"
	"	evidence TEXT CHECK (evidence IS NULL OR evidence::json IS NOT NULL),\n"
	"	time_between_checks_seconds BIGINT,\n"
	"	detection_method TEXT NOT NULL DEFAULT 'llm_analysis'\n"
	"		CHECK (detection_method IN ('llm_analysis', 'deterministic')),\n"
	"	created_at BIGINT NOT NULL,\n"
	"	UNIQUE (fix_check_id, violation_threadline_id)\n"
	");\n"
	"CREATE INDEX violation_fixes_violation_check ON violation_fixes (violation_check_id);\n"
	"CREATE INDEX violation_fixes_threadline ON violation_fixes (threadline_id);\n"
	"CREATE INDEX violation_fixes_fix_type ON violation_fixes (fix_type);\n"
	"CREATE INDEX violation_fixes_time_between ON violation_fixes (time_between_checks_seconds);\n"
	"CREATE TABLE fix_detection_runs (\n"
	"	" PG_ID ",\n"
	"	check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	previous_check_id BIGINT REFERENCES checks(id) ON DELETE SET NULL,\n"
	"	status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),\n"
	"	" PG_COUNT("violations") ",\n"
	"	" PG_COUNT("analysed") ",\n"
	"	" PG_COUNT("detected") ",\n"
	"	" PG_COUNT("deterministic") ",\n"
	"	" PG_COUNT("llm_calls") ",\n"
	"	" PG_COUNT("errors") ",\n"
	"	" PG_JSON_ARRAY("error_log") ",\n"
	"	started_at BIGINT NOT NULL,\n"
	"	finished_at BIGINT,\n"
	"	duration_ms BIGINT CHECK (duration_ms >= 0),\n"
	"	pid BIGINT\n"
	");\n"
	"CREATE INDEX fix_detection_runs_check ON fix_detection_runs (check_id);\n"
	"CREATE TABLE feedback (\n"
	"	" PG_ID ",\n"
	"	finding_id BIGINT REFERENCES findings(id) ON DELETE SET NULL,\n"
	"	fix_id BIGINT REFERENCES violation_fixes(id) ON DELETE SET NULL,\n"
	"	repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	kind TEXT NOT NULL\n"
	"		CHECK (kind IN ('false_positive', 'accept', 'reject', 'fix_correct', 'fix_incorrect')),\n"
	"	note TEXT,\n"
	"	rule_id TEXT,\n"
	"	fingerprint TEXT,\n"
	"	file TEXT,\n"
	"	title TEXT,\n"
	"	issue TEXT,\n"
	"	code TEXT,\n"
	"	created_at BIGINT NOT NULL,\n"
	"	search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(\n"
	"		coalesce(file, '') || ' ' || coalesce(title, '') || ' ' || coalesce(issue, '') || ' ' ||\n"
	"		coalesce(code, '') || ' ' || coalesce(note, ''), '[^[:alnum:]_]+', ' ', 'g'))) STORED\n"
	");\n"
	"CREATE INDEX feedback_fingerprint ON feedback (fingerprint, created_at);\n"
	"CREATE INDEX feedback_rule ON feedback (rule_id, kind);\n"
	"CREATE INDEX feedback_fix ON feedback (fix_id);\n"
	"CREATE INDEX feedback_search ON feedback USING GIN (search);\n"
	"CREATE TABLE signal_runs (\n"
	"	" PG_ID ",\n"
	"	repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	tool TEXT NOT NULL,\n"
	"	format TEXT NOT NULL,\n"
	"	source TEXT NOT NULL CHECK (source IN ('import', 'run')),\n"
	"	origin TEXT,\n"
	"	" PG_COUNT("signals") ",\n"
	"	" PG_JSON_ARRAY("problems") ",\n"
	"	created_at BIGINT NOT NULL\n"
	");\n"
	"CREATE INDEX signal_runs_repo_tool ON signal_runs (repo_id, tool, id);\n"
	"CREATE TABLE signals (\n"
	"	" PG_ID ",\n"
	"	run_id BIGINT NOT NULL REFERENCES signal_runs(id) ON DELETE CASCADE,\n"
	"	tool TEXT NOT NULL,\n"
	"	code TEXT NOT NULL DEFAULT '',\n"
	"	message TEXT NOT NULL,\n"
	"	severity TEXT,\n"
	"	file TEXT NOT NULL,\n"
	"	" PG_COUNT("line") ",\n"
	"	" PG_COUNT("col") ",\n"
	"	" PG_COUNT("end_line") ",\n"
	"	" PG_COUNT("end_col") ",\n"
	"	url TEXT\n"
	");\n"
	"CREATE INDEX signals_run ON signals (run_id);\n"
	"CREATE INDEX signals_file ON signals (file, line);\n"
	"CREATE TABLE signal_fixes (\n"
	"	" PG_ID ",\n"
	"	repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	signal_id BIGINT REFERENCES signals(id) ON DELETE SET NULL,\n"
	"	finding_id BIGINT REFERENCES findings(id) ON DELETE SET NULL,\n"
	"	tool TEXT,\n"
	"	code TEXT,\n"
	"	message TEXT,\n"
	"	file TEXT NOT NULL,\n"
	"	first_line BIGINT NOT NULL CHECK (first_line >= 1),\n"
	"	last_line BIGINT NOT NULL CHECK (last_line >= first_line),\n"
	"	\"window\" TEXT NOT NULL,\n"
	"	status TEXT NOT NULL CHECK (status IN ('asking', 'proposed', 'failed', 'applied',\n"
	"		'rejected', 'undone')),\n"
	"	error TEXT,\n"
	"	file_id TEXT NOT NULL,\n"
	"	byte_offset BIGINT CHECK (byte_offset >= 0),\n"
	"	before BYTEA,\n"
	"	after BYTEA,\n"
	"	file_id_after TEXT,\n"
	"	explanation TEXT,\n"
	"	preview TEXT,\n"
	"	model TEXT,\n"
	"	tokens_in BIGINT NOT NULL DEFAULT 0,\n"
	"	tokens_out BIGINT NOT NULL DEFAULT 0,\n"
	"	recheck TEXT CHECK (recheck IN ('gone', 'still_present', 'new_signals', 'not_run')),\n"
	"	recheck_detail TEXT,\n"
	"	created_at BIGINT NOT NULL,\n"
	"	proposed_at BIGINT,\n"
	"	applied_at BIGINT,\n"
	"	rejected_at BIGINT,\n"
	"	undone_at BIGINT,\n"
	"	" PG_COUNT("tokens_cached") ",\n"
	"	cost_usd DOUBLE PRECISION CHECK (cost_usd >= 0)\n"
	");\n"
	"CREATE INDEX signal_fixes_signal ON signal_fixes (signal_id);\n"
	"CREATE INDEX signal_fixes_finding ON signal_fixes (finding_id);\n"
	"CREATE INDEX signal_fixes_file ON signal_fixes (repo_id, file, id);\n"
	"CREATE TABLE check_dependencies (\n"
	"	check_id BIGINT PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	" PG_JSON_ARRAY("ecosystems") ",\n"
	"	bot TEXT,\n"
	"	dependency_only BIGINT NOT NULL CHECK (dependency_only IN (0, 1)),\n"
	"	confidence TEXT NOT NULL CHECK (confidence IN ('high', 'medium', 'low')),\n"
	"	reason TEXT NOT NULL,\n"
	"	" PG_COUNT("advisories_checked") ",\n"
	"	advisories_error TEXT\n"
	");\n"
	"CREATE TABLE check_packages (\n"
	"	" PG_ID ",\n"
	"	check_id BIGINT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	ecosystem TEXT NOT NULL,\n"
	"	name TEXT NOT NULL,\n"
	"	manifest TEXT,\n"
	"	from_spec TEXT,\n"
	"	to_spec TEXT,\n"
	"	bump TEXT NOT NULL CHECK (bump IN ('patch', 'minor', 'major', 'added', 'removed', 'unknown')),\n"
	"	breaking BIGINT NOT NULL CHECK (breaking IN (0, 1)),\n"
	"	downgrade BIGINT NOT NULL CHECK (downgrade IN (0, 1)),\n"
	"	" PG_JSON_ARRAY("advisories") "\n"
	");\n"
	"CREATE INDEX check_packages_check ON check_packages (check_id);\n"
	"CREATE TABLE llm_refusals (\n"
	"	server TEXT NOT NULL,\n"
	"	model TEXT NOT NULL,\n"
	"	param TEXT NOT NULL,\n"
	"	refused_at BIGINT NOT NULL,\n"
	"	PRIMARY KEY (server, model, param)\n"
	");\n";

/* Versions 1 to 6 are made at once by pg_create; later versions append a script here. */
static const char *const pg_migrations[] = {
	NULL, NULL, NULL, NULL, NULL, NULL,
	/* 7: as SQLite's 7. */
	SCHEMA_V7(BIGINT),
	/* 8: as SQLite's 8. */
	SCHEMA_V8(BIGINT, BYTEA, ""),
	/* 9: as SQLite's 9. */
	SCHEMA_V9(BIGINT),
	/* 10: as SQLite's 10. */
	SCHEMA_V10(BIGINT, PG_ID),
	/* 11: as SQLite's 11. */
	SCHEMA_V11
	"ALTER TABLE check_dependencies ADD COLUMN " PG_JSON_ARRAY("claims") ";\n",
};

/*
 * The rows whose text has any of the query's terms ("a" OR "b", as
 * feedback_query writes it), the query's words split as the column's are;
 * the score -ts_rank, so that lower is better as with bm25(). A query that
 * is not terms (quoted, or words of letters, digits and '_') separated by
 * spaces or OR is refused as FTS5 refuses what it cannot read: cast to a
 * tsquery with an unclosed '(' it fails as the statement runs, and the
 * backend runs a statement marked refusable under a savepoint, so that
 * the transaction goes on (backend_pg.c).
 */
#define PG_QUERY "CAST(:query AS TEXT)"
#define PG_TERM "(\"[^\"]*\"|[[:alnum:]_]+)"
static const char pg_feedback_match[] =
	"/* refusable */ SELECT fb.id, -ts_rank(fb.search, w.q) AS score FROM feedback fb, "
	"(SELECT CASE WHEN " PG_QUERY " ~ '^[[:space:]]*" PG_TERM "([[:space:]]+(OR[[:space:]]+)?" PG_TERM
	")*[[:space:]]*$' THEN websearch_to_tsquery('simple'::regconfig, regexp_replace(" PG_QUERY ", "
	"'[^[:alnum:]_\"]+', ' ', 'g')) ELSE CAST(" PG_QUERY " || ' (' AS tsquery) END AS q) w "
	"WHERE fb.search @@ w.q";

/* The tables of the schema revline uses (the search_path's first); a generated column (feedback.search) is not written. */
static const char pg_tables[] =
	"SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
	"AND table_type = 'BASE TABLE' ORDER BY table_name";
static const char pg_columns[] =
	"SELECT column_name, CASE WHEN data_type IN ('bigint', 'integer', 'smallint', 'boolean') THEN 'int' "
	"WHEN data_type IN ('double precision', 'real', 'numeric') THEN 'real' "
	"WHEN data_type = 'bytea' THEN 'blob' ELSE 'text' END FROM information_schema.columns "
	"WHERE table_schema = current_schema() AND table_name = CAST(:tbl AS TEXT) AND is_generated = 'NEVER' "
	"ORDER BY ordinal_position";

const struct store_dialect store_dialect_pg = {
	.migrations = pg_migrations,
	.nmigrations = sizeof(pg_migrations) / sizeof(pg_migrations[0]),
	.create = pg_create,
	.create_version = 6,
	.feedback_match = pg_feedback_match,
	.tables = pg_tables,
	.columns = pg_columns,
};
