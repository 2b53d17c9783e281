/* Violation-fix detection between consecutive checks. */
#include "queue.h"
#include "clock.h"
#include "fixdetect.h"
#include "store_violations.h"
#include "array.h"
#include "diff.h"
#include "prompt.h"
#include "status.h"

#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Each filtered diff in a prompt is cut here; the cut is said. */
#define DIFF_MAX (48 * 1024)

static const char *const outcome_names[] = {
#define OUTCOME_NAME(id, name) name,
	OUTCOME_LIST(OUTCOME_NAME)
#undef OUTCOME_NAME
};

const char *outcome_name(enum outcome outcome)
{
	return outcome_names[outcome];
}

struct fixdetect {
	struct store *store;
	struct fixdetect_options opts;
	int64_t check_id, previous_id, run_id;
	char *environment;
	char *workdir;          /* the repository's path, for rule files */
	int64_t created_ms, previous_ms;
	struct diff *diff, *previous_diff;
	struct violation *violations;
	size_t count, unsettled, fixed, errors, deterministic, calls;
	json_t *error_log;
	struct asker *asker;
	struct poll_member member;      /* takes the request cycle's events */
	struct queue events;     /* of struct fixdetect_event */
	int64_t started_ms;
	bool done;
	bool elsewhere;         /* once, and another client had the pair */
};

static void violation_release(struct violation *v)
{
	size_t i;

	free(v->rule_id);
	free(v->rule_path);
	free(v->rule_version);
	for (i = 0; i < v->nfiles; i++)
		free(v->files[i]);
	free(v->files);
	free(v->reasoning);
	free(v->fix_type);
	free(v->explanation);
	free(v->evidence);
	free(v->error);
	free(v->system);
	free(v->user);
}

static void violations_free(struct violation *violations, size_t count)
{
	size_t i;

	for (i = 0; violations && i < count; i++)
		violation_release(&violations[i]);
	free(violations);
}

int fixdetect_new(struct fixdetect **out, struct store *store, int64_t check_id,
		  const struct fixdetect_options *options)
{
	struct fixdetect *fd = calloc(1, sizeof(*fd));
	const struct queue events = QUEUE_INIT(struct fixdetect_event);

	*out = NULL;
	if (!fd || !(fd->error_log = json_array())) {
		free(fd);
		return error_nomem();
	}
	fd->store = store;
	fd->events = events;
	fd->check_id = check_id;
	fd->opts = *options;
	*out = fd;
	return 0;
}

static void run_abandon(struct fixdetect *fd);

void fixdetect_free(struct fixdetect *fd)
{
	if (!fd)
		return;
	if (fd->run_id && !fd->done)
		run_abandon(fd);
	poll_group_leave(&fd->member);
	asker_free(fd->asker);
	violations_free(fd->violations, fd->count);
	diff_free(fd->diff);
	diff_free(fd->previous_diff);
	json_decref(fd->error_log);
	free(fd->environment);
	free(fd->workdir);
	queue_release(&fd->events);
	free(fd);
}

static int event_push(struct fixdetect *fd, enum fixdetect_event_kind kind, size_t index)
{
	struct fixdetect_event *ev = queue_push(&fd->events);

	if (!ev)
		return error_nomem();
	*ev = (struct fixdetect_event){ kind, index };
	return 0;
}

bool fixdetect_next_event(struct fixdetect *fd, struct fixdetect_event *out)
{
	return queue_pop(&fd->events, out);
}

/* The check, its repository's path, and the previous consecutive check. */
static int load_checks(struct fixdetect *fd)
{
	struct check_pair pair;
	int error;

	if ((error = store_check_pair(&pair, fd->store, fd->check_id)) < 0)
		return error;
	fd->environment = pair.environment;
	fd->workdir = pair.workdir;
	fd->created_ms = pair.created_ms;
	fd->previous_id = pair.previous_id;
	fd->previous_ms = pair.previous_ms;
	free(pair.host);
	return 0;
}

static int load_diff(struct fixdetect *fd, int64_t check, struct diff **out)
{
	struct buf text = BUF_INIT;
	int error;

	if (!(error = store_check_diff(&text, fd->store, check)))
		error = diff_from_text(out, text.ptr ? text.ptr : "", text.len);
	buf_release(&text);
	return error;
}

/* The previous check's violations, each taking what the store read. */
static int load_violations(struct fixdetect *fd)
{
	struct stored_violation *stored = NULL;
	size_t i, n = 0;
	int error;

	if ((error = store_violations_of_check(&stored, &n, fd->store, fd->previous_id)) < 0)
		return error;
	if (n && !(fd->violations = calloc(n, sizeof(*fd->violations)))) {
		stored_violations_free(stored, n);
		return error_nomem();
	}
	for (i = 0; i < n; i++) {
		struct violation *v = &fd->violations[i];

		v->threadline_row = stored[i].threadline_row;
		v->rule_id = stored[i].rule_id;
		v->rule_path = stored[i].rule_path;
		v->rule_version = stored[i].rule_version;
		v->reasoning = stored[i].reasoning;
		v->files = stored[i].files;
		v->nfiles = stored[i].nfiles;
	}
	/* The strings are the violations' now; only the array goes. */
	free(stored);
	fd->count = fd->unsettled = n;
	return 0;
}

/* Whether the rule's file is gone from where the check read it. */
static bool rule_file_gone(const struct fixdetect *fd, const char *path)
{
	struct buf full = BUF_INIT;
	struct stat st;
	bool gone;

	if (path[0] == '/' || !fd->workdir)
		buf_puts(&full, path);
	else
		buf_printf(&full, "%s/%s", fd->workdir, path);
	gone = stat(full.ptr, &st) != 0;
	buf_release(&full);
	return gone;
}

/* Whether every fingerprint of the previous findings is among the current ones. */
static bool all_present(const struct strings *previous, const struct strings *current)
{
	size_t i;

	if (!previous->count)
		return false;
	for (i = 0; i < previous->count; i++)
		if (!strings_has(current, previous->items[i]))
			return false;
	return true;
}

/* Record a fix (or replace the one a previous run found for this violation). */
static int fix_put(struct fixdetect *fd, struct violation *v)
{
	const struct fix_record fix = {
		.violation_check = fd->previous_id, .fix_check = fd->check_id,
		.threadline_row = v->threadline_row, .rule_id = v->rule_id, .rule_path = v->rule_path,
		.rule_version = v->rule_version, .files = v->files, .nfiles = v->nfiles,
		.fix_type = v->fix_type, .explanation = v->explanation, .evidence = v->evidence,
		.method = v->method, .seconds = fixdetect_seconds(fd),
	};

	return store_fix_put(&v->fix_id, fd->store, &fix);
}

/* A violation found not fixed loses the fix an earlier run may have stored. */
static int fix_drop(struct fixdetect *fd, const struct violation *v)
{
	return store_fix_drop(fd->store, fd->check_id, v->threadline_row);
}

static void log_error(struct fixdetect *fd, const struct violation *v, const char *message)
{
	struct buf text = BUF_INIT;

	buf_printf(&text, "%s: %s", v ? v->rule_id : "fix detection", message);
	json_array_append_new(fd->error_log, json_string(text.ptr));
	buf_release(&text);
}

static void settle(struct fixdetect *fd, size_t index, enum outcome outcome)
{
	struct violation *v = &fd->violations[index];

	v->outcome = outcome;
	if (outcome == OUTCOME_FIXED && fix_put(fd, v) < 0) {
		v->outcome = OUTCOME_FAILED;
		free(v->error);
		v->error = strdup(error_message());
	} else if (outcome == OUTCOME_NOT_FIXED && fix_drop(fd, v) < 0) {
		log_error(fd, v, error_message());
	}
	if (v->outcome == OUTCOME_FIXED)
		fd->fixed++;
	if (v->outcome == OUTCOME_FAILED) {
		fd->errors++;
		log_error(fd, v, v->error ? v->error : "failed");
	}
	fd->unsettled--;
	event_push(fd, FIXDETECT_SETTLED, index);
}

static void settle_with(struct fixdetect *fd, size_t index, enum outcome outcome,
			const char *fix_type, const char *explanation)
{
	struct violation *v = &fd->violations[index];

	v->method = "deterministic";
	fd->deterministic++;
	v->fix_type = fix_type ? strdup(fix_type) : NULL;
	v->explanation = strdup(explanation);
	settle(fd, index, outcome);
}

/* A rule's patterns as a JSON array, as the check stored them. */
static int patterns_text(struct buf *out, const struct strings *patterns)
{
	json_t *list = json_array();
	char *text;
	size_t i;
	int error;

	for (i = 0; list && i < patterns->count; i++)
		json_array_append_new(list, json_string(patterns->items[i]));
	text = list ? json_dumps(list, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	error = text ? buf_puts(out, text) : error_nomem();
	free(text);
	json_decref(list);
	return error;
}

/* A diff filtered by a rule's patterns, fenced, cut when huge. */
static int filtered_diff(struct buf *out, struct diff *diff, const struct strings *patterns)
{
	struct diff *filtered = NULL;
	struct buf text = BUF_INIT;
	int error;

	error = patterns->count ? diff_filter_patterns(&filtered, diff, (const char *const *)patterns->items,
						       patterns->count) : diff_print(&text, diff);
	if (!error && filtered)
		error = diff_print(&text, filtered);
	if (!error && !text.len) {
		error = buf_puts(out, "(no changes in the files these patterns match)");
	} else if (!error) {
		bool cut = text.len > DIFF_MAX;

		if (cut)
			text.len = DIFF_MAX;
		error = prompt_fence(out, "diff", text.ptr, text.len);
		if (!error && cut)
			error = buf_puts(out, "(the diff is cut here: it is too long to show whole)\n");
	}
	diff_free(filtered);
	buf_release(&text);
	return error;
}

/* The rule file's own diff in the current check, when it is there. */
static int rule_file_diff(struct buf *out, struct fixdetect *fd, const char *path)
{
	long index = path[0] == '/' ? -1 : diff_find_file(fd->diff, path);
	struct buf text = BUF_INIT;
	int error;

	if (index < 0)
		return buf_puts(out, "null (the threadline file was not changed in this diff)");
	if ((error = diff_file_print(&text, fd->diff, (size_t)index)) == 0)
		error = prompt_fence(out, "diff", text.ptr, text.len);
	buf_release(&text);
	return error;
}

static int content_text(struct buf *out, const char *content)
{
	if (!content)
		return buf_puts(out, "null (the threadline is not in the current check: deleted)");
	return prompt_fence(out, "markdown", content, strlen(content));
}

static int violation_prompt(struct fixdetect *fd, struct violation *v, const struct stored_rule *prev,
			    const struct stored_rule *cur)
{
	struct buf seconds = BUF_INIT, files = BUF_INIT, pprev = BUF_INIT, pcur = BUF_INIT,
		   cprev = BUF_INIT, ccur = BUF_INIT, dprev = BUF_INIT, dcur = BUF_INIT,
		   drule = BUF_INIT, sys = BUF_INIT, user = BUF_INIT;
	size_t i;
	int error;

	buf_printf(&seconds, "%ld", fixdetect_seconds(fd));
	for (i = 0; i < v->nfiles; i++)
		buf_printf(&files, "%s%s", i ? ", " : "", v->files[i]);
	if ((error = patterns_text(&pprev, &prev->patterns)) < 0 ||
	    (error = cur->present ? patterns_text(&pcur, &cur->patterns) : buf_puts(&pcur, "null")) < 0 ||
	    (error = content_text(&cprev, prev->content)) < 0 ||
	    (error = content_text(&ccur, cur->present ? cur->content : NULL)) < 0 ||
	    (error = filtered_diff(&dprev, fd->previous_diff, &prev->patterns)) < 0 ||
	    (error = filtered_diff(&dcur, fd->diff, cur->present ? &cur->patterns : &prev->patterns)) < 0 ||
	    (error = rule_file_diff(&drule, fd, v->rule_path)) < 0)
		goto done;
	{
		/* What comes from the repository or a past answer is data (prompt.h). */
		const struct prompt_var vars[] = {
			{ "context", fd->environment, NULL }, { "seconds", seconds.ptr, NULL },
			{ "threadline_id", v->rule_id, "the rule's id" },
			{ "threadline_file_path", v->rule_path, "the rule file's name" },
			{ "file_references", files.len ? files.ptr : "(none given)", "file names" },
			{ "reasoning", v->reasoning ? v->reasoning : "(none given)", "the violation as described" },
			{ "previous_patterns", pprev.ptr, "the rule's patterns" },
			{ "previous_content", cprev.ptr, "the rule file, then" },
			{ "previous_diff", dprev.ptr, "the previous change" },
			{ "current_patterns", pcur.ptr, "the rule's patterns" },
			{ "current_content", ccur.ptr, "the rule file, now" },
			{ "current_diff", dcur.ptr, "the current change" },
			{ "rule_file_diff", drule.ptr, "the rule file's changes" },
		};

		error = prompt_render(&sys, &user, "fixdetect", vars, sizeof(vars) / sizeof(vars[0]));
	}
	if (!error) {
		v->system = buf_detach(&sys);
		v->user = buf_detach(&user);
	}
done:
	buf_release(&seconds);
	buf_release(&files);
	buf_release(&pprev);
	buf_release(&pcur);
	buf_release(&cprev);
	buf_release(&ccur);
	buf_release(&dprev);
	buf_release(&dcur);
	buf_release(&drule);
	buf_release(&sys);
	buf_release(&user);
	return error;
}

static int submit(struct fixdetect *fd, struct violation *v)
{
	struct ask_spec spec = { SCHEMA_FIXDETECT, fd->opts.llm->model, NULL, v->system, NULL, v->user,
				 strlen(v->system) + strlen(v->user), fd->opts.no_cache, v };
	uint64_t id;

	return ask_submit(fd->asker, &id, &spec);
}

static const char *const fix_types[] = { "CODE_CHANGE", "THREADLINE_CHANGED", "THREADLINE_DELETED" };

/* The seed's answer: was_fixed, fix_type, explanation, evidence. */
static void judge(struct fixdetect *fd, size_t index, const char *text, size_t len)
{
	struct violation *v = &fd->violations[index];
	json_t *root = NULL, *fixed, *type, *explanation, *evidence;
	const char *t;
	size_t i;

	if (llm_extract_json(&root, text, len) < 0 || !json_is_object(root)) {
		v->error = strdup(root ? "the answer is not a JSON object" : error_message());
		goto failed;
	}
	fixed = json_object_get(root, "was_fixed");
	type = json_object_get(root, "fix_type");
	explanation = json_object_get(root, "explanation");
	evidence = json_object_get(root, "evidence");
	if (!json_is_boolean(fixed) || !json_is_string(explanation)) {
		v->error = strdup("the answer lacks \"was_fixed\" (true or false) or \"explanation\"");
		goto failed;
	}
	v->explanation = strdup(json_string_value(explanation));
	if (evidence && !json_is_null(evidence))
		v->evidence = json_dumps(evidence, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!json_is_true(fixed)) {
		json_decref(root);
		settle(fd, index, OUTCOME_NOT_FIXED);
		return;
	}
	t = json_string_value(type);
	for (i = 0; t && i < 3 && strcmp(t, fix_types[i]); i++)
		;
	if (!t || i == 3) {
		v->error = strdup("the answer says fixed but its \"fix_type\" is not CODE_CHANGE, "
				  "THREADLINE_CHANGED or THREADLINE_DELETED");
		goto failed;
	}
	v->fix_type = strdup(t);
	json_decref(root);
	settle(fd, index, OUTCOME_FIXED);
	return;
failed:
	json_decref(root);
	settle(fd, index, OUTCOME_FAILED);
}

static void ask(struct fixdetect *fd, size_t index, const struct stored_rule *prev,
		const struct stored_rule *cur)
{
	struct violation *v = &fd->violations[index];

	v->method = "llm_analysis";
	if (fd->opts.llm->provider == PROVIDER_NONE) {
		v->explanation = strdup(llm_setup_hint);
		settle(fd, index, OUTCOME_SKIPPED);
		return;
	}
	if (violation_prompt(fd, v, prev, cur) < 0) {
		v->error = strdup(error_message());
		settle(fd, index, OUTCOME_FAILED);
		return;
	}
	if (submit(fd, v) < 0) {
		v->error = strdup(error_message());
		settle(fd, index, OUTCOME_FAILED);
	}
}

/* What needs no call is decided here; the rest is asked. */
static int decide(struct fixdetect *fd, size_t index)
{
	struct violation *v = &fd->violations[index];
	struct stored_rule prev, cur;
	int error;

	if ((error = store_rule_in_check(&prev, fd->store, fd->previous_id, v->rule_id, v->rule_path)) < 0)
		return error;
	if ((error = store_rule_in_check(&cur, fd->store, fd->check_id, v->rule_id, v->rule_path)) < 0) {
		stored_rule_release(&prev);
		return error;
	}
	if (!cur.present && rule_file_gone(fd, v->rule_path))
		settle_with(fd, index, OUTCOME_FIXED, "THREADLINE_DELETED",
			    "The rule is not in this check and its file is gone: it was deleted, "
			    "so the violation is no longer enforced.");
	else if (!cur.present)
		settle_with(fd, index, OUTCOME_SKIPPED, NULL,
			    "The rule did not take part in this check (its file is still there).");
	else if (cur.status && (!strcmp(cur.status, "error") || !strcmp(cur.status, "timeout") ||
				!strcmp(cur.status, "skipped")))
		settle_with(fd, index, OUTCOME_SKIPPED, NULL,
			    "The rule could not be reviewed in this check, so nothing can be said.");
	else if (cur.status && !strcmp(cur.status, "attention") &&
		 all_present(&prev.fingerprints, &cur.fingerprints))
		settle_with(fd, index, OUTCOME_NOT_FIXED, NULL,
			    "The rule reports the same findings again.");
	else
		ask(fd, index, &prev, &cur);
	stored_rule_release(&prev);
	stored_rule_release(&cur);
	return 0;
}

static int run_begin(struct fixdetect *fd)
{
	int error = store_detection_begin(&fd->run_id, fd->store, fd->check_id, fd->previous_id, fd->opts.once);

	fd->elsewhere = !error && !fd->run_id;
	return error;
}

/* Best effort: the run's figures are for the record; a failure to keep them stops nothing. */
static void run_finish(struct fixdetect *fd)
{
	char *log = json_dumps(fd->error_log, JSON_COMPACT);
	const struct detection_figures figures = {
		.status = fd->errors && fd->errors == fd->calls && fd->calls ? "failed" : "done",
		.violations = fd->count, .analysed = fd->count - fd->unsettled, .detected = fd->fixed,
		.deterministic = fd->deterministic, .calls = fd->calls, .errors = fd->errors,
		.error_log = log, .started_ms = fd->started_ms,
	};

	store_detection_finish(fd->store, fd->run_id, &figures);
	free(log);
	fd->done = true;
	event_push(fd, FIXDETECT_DONE, 0);
}

/*
 * Stopped before the end (the TUI quit): the run failed, which gives up
 * its claim, so that the detector started in the background runs the
 * pair again. Best effort, as run_finish.
 */
static void run_abandon(struct fixdetect *fd)
{
	const struct detection_figures figures = {
		.status = "failed", .violations = fd->count, .analysed = fd->count - fd->unsettled,
		.detected = fd->fixed, .deterministic = fd->deterministic, .calls = fd->calls,
		.errors = fd->errors, .error_log = "[\"stopped before the end\"]", .started_ms = fd->started_ms,
	};

	store_detection_finish(fd->store, fd->run_id, &figures);
}

static void advance(struct fixdetect *fd)
{
	if (!fd->unsettled && !fd->done)
		run_finish(fd);
}

static int member_join(struct fixdetect *fd);

int fixdetect_start(struct fixdetect *fd)
{
	size_t i;
	int error;

	fd->started_ms = clock_wall_ms();
	if ((error = load_checks(fd)) < 0 || (error = run_begin(fd)) < 0)
		return error;
	if (fd->elsewhere) {
		fd->done = true;
		event_push(fd, FIXDETECT_DONE, 0);
		return 0;
	}
	if (!fd->previous_id) {
		advance(fd);
		return 0;
	}
	if ((error = load_diff(fd, fd->check_id, &fd->diff)) < 0 ||
	    (error = load_diff(fd, fd->previous_id, &fd->previous_diff)) < 0 ||
	    (error = load_violations(fd)) < 0 ||
	    (error = asker_new(&fd->asker, fd->opts.llm, &fd->opts.sched, &fd->opts.ask, fd->store,
				   fd->opts.group)) < 0 ||
	    (error = member_join(fd)) < 0)
		return error;
	for (i = 0; i < fd->count && !error; i++)
		error = decide(fd, i);
	advance(fd);
	return error;
}

static void on_event(struct fixdetect *fd, const struct ask_event *ev)
{
	struct violation *v = ev->user;

	if (ev->status == ASK_STARTED || ev->status == ASK_PROGRESS)
		return;
	v->attempts += ev->attempts;
	fd->calls += !ev->cached;
	if (ev->status == ASK_DONE) {
		judge(fd, (size_t)(v - fd->violations), ev->text, strlen(ev->text));
		return;
	}
	v->error = strdup(ev->error);
	settle(fd, (size_t)(v - fd->violations), OUTCOME_FAILED);
}

static int drain(struct fixdetect *fd, int error)
{
	struct ask_event ev;

	while (asker_next(fd->asker, &ev)) {
		on_event(fd, &ev);
		ask_event_release(&ev);
	}
	advance(fd);
	return error;
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct fixdetect *fd = ctx;

	(void)fds;
	(void)n;
	return fd->done ? 0 : drain(fd, 0);
}

static int member_timeout(void *ctx)
{
	struct fixdetect *fd = ctx;

	return fd->events.count ? 0 : -1;
}

/* After the request cycle, in its group: its answers are taken in the step that brought them. */
static int member_join(struct fixdetect *fd)
{
	fd->member.timeout = member_timeout;
	fd->member.step = member_step;
	fd->member.ctx = fd;
	return poll_group_join(sched_group(asker_sched(fd->asker)), &fd->member);
}

int fixdetect_wait(struct fixdetect *fd, int max_ms)
{
	if (!fd->asker || fd->done || fd->events.count)
		return 0;
	return poll_group_wait(sched_group(asker_sched(fd->asker)), max_ms);
}

bool fixdetect_done(const struct fixdetect *fd)
{
	return fd->done;
}

int64_t fixdetect_previous(const struct fixdetect *fd)
{
	return fd->previous_id;
}

long fixdetect_seconds(const struct fixdetect *fd)
{
	return fd->previous_id ? (long)((fd->created_ms - fd->previous_ms) / 1000) : 0;
}

size_t fixdetect_count(const struct fixdetect *fd)
{
	return fd->count;
}

const struct violation *fixdetect_violation(const struct fixdetect *fd, size_t index)
{
	return &fd->violations[index];
}

bool fixdetect_elsewhere(const struct fixdetect *fd)
{
	return fd->elsewhere;
}

int64_t fixdetect_run_id(const struct fixdetect *fd)
{
	return fd->run_id;
}

size_t fixdetect_fixed(const struct fixdetect *fd)
{
	return fd->fixed;
}

size_t fixdetect_errors(const struct fixdetect *fd)
{
	return fd->errors;
}
