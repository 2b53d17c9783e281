/*
 * Tools a question offers (tools.h) over real HTTP against the fake
 * server, in both providers' shapes, whole and streamed: a model that
 * reads, searches and answers (the answer still under its schema); one
 * that never stops calling; hostile calls (hundreds at once, arguments
 * too long or not JSON, unknown tools, ids that repeat); a server that
 * refuses tools, remembered in the real store; the bounds; the result
 * cache; each turn's request beginning with the last's. The tools are
 * this test's own, over a directory of files: the fake server stands in
 * for the model only.
 */
#include "testlib.h"
#include "fakellm/fakellm.h"

#include "answer.h"
#include "ask.h"
#include "llm.h"
#include "schema.h"
#include "status.h"
#include "store.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER "{\"status\": \"compliant\", \"reasoning\": \"helper checks it\", \"file_references\": " \
	"[\"src/a.c\"], \"findings\": []}"

/* The same JSON value, however it is spaced (a forced tool's input is JSON text of the provider's own). */
static void assert_json_text(const char *got, const char *want)
{
	json_t *a = json_loads(got, 0, NULL), *b = json_loads(want, 0, NULL);

	if (!a || !b || !json_equal(a, b))
		fail_msg("'%s' is not the JSON of '%s'", got, want);
	json_decref(a);
	json_decref(b);
}

/* A rule's answer with a finding, as the answer's tool takes it. */
#define FINDING "{\"status\": \"attention\", \"reasoning\": \"helper returns 0 whatever\", " \
	"\"file_references\": [\"src/b.c\"], \"findings\": [{\"file\": \"src/b.c\", \"line\": 3, " \
	"\"end_line\": null, \"severity\": \"minor\", \"title\": \"helper always succeeds\", \"issue\": " \
	"\"it returns 0\", \"suggestion\": \"return the error\", \"verification\": {\"code_examined\": " \
	"\"return 0;\", \"line_range_examined\": [1, 4], \"verification_method\": \"read_file\", " \
	"\"checked_for_handling_elsewhere\": true, \"where_checked\": \"src/a.c\", \"is_impact_finding\": false}}]}"

static void clear_env(void)
{
	unsetenv("REVLINE_PROVIDER");
	unsetenv("REVLINE_BASE_URL");
	unsetenv("OPENAI_BASE_URL");
	unsetenv("REVLINE_MODEL");
	unsetenv("OPENAI_API_KEY");
	unsetenv("ANTHROPIC_API_KEY");
}

static int setup(void **state)
{
	(void)state;
	clear_env();
	setenv("HOME", "/nonexistent-revline-home", 1);
	unsetenv("XDG_CONFIG_HOME");
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR "/share", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return 0;
}

static void config_for(struct llm_config *c, const char *provider, const char *url)
{
	clear_env();
	setenv("REVLINE_PROVIDER", provider, 1);
	setenv(strcmp(provider, "anthropic") ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY", "test-key-123", 1);
	setenv("REVLINE_BASE_URL", url, 1);
	assert_int_equal(llm_config_load(c, NULL), 0);
}

/* --- this test's tools: read_file and search over a directory ----------- */

struct files {
	char *dir;
	int runs;
};

static int read_file(struct tool_output *out, struct files *fs, const json_t *args)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	json_int_t start = json_integer_value(json_object_get(args, "start"));
	json_int_t end = json_integer_value(json_object_get(args, "end"));
	struct buf text = BUF_INIT;
	const char *p;
	json_int_t line = 1;
	char *full;
	int error;

	if (!path || path[0] == '/' || strstr(path, "..")) {
		out->error = true;
		return buf_puts(&out->text, "path must be a relative path inside the repository");
	}
	if (asprintf(&full, "%s/%s", fs->dir, path) < 0)
		return RL_ENOMEM;
	error = buf_read_file(&text, full);
	free(full);
	if (error < 0) {
		out->error = true;
		buf_release(&text);
		return buf_printf(&out->text, "no such file: %s", path);
	}
	for (p = text.ptr; p && *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if ((!start || line >= start) && (!end || line <= end))
			buf_put(&out->text, p, n);
		p += n;
	}
	buf_release(&text);
	return 0;
}

static int search(struct tool_output *out, struct files *fs, const json_t *args)
{
	const char *pattern = json_string_value(json_object_get(args, "pattern"));
	const char *glob = json_string_value(json_object_get(args, "path_glob"));
	struct dirent *d;
	DIR *dir;
	char *path;

	if (!pattern || !*pattern) {
		out->error = true;
		return buf_puts(&out->text, "pattern is required");
	}
	if (asprintf(&path, "%s/src", fs->dir) < 0)
		return RL_ENOMEM;
	dir = opendir(path);
	free(path);
	while (dir && (d = readdir(dir))) {
		struct buf text = BUF_INIT;
		const char *p;
		int line = 1;

		if (d->d_name[0] == '.' || (glob && fnmatch(glob, d->d_name, 0)))
			continue;
		if (asprintf(&path, "%s/src/%s", fs->dir, d->d_name) < 0 || buf_read_file(&text, path) < 0) {
			free(path);
			buf_release(&text);
			continue;
		}
		free(path);
		for (p = text.ptr; p && *p; line++) {
			const char *nl = strchr(p, '\n');
			int n = nl ? (int)(nl - p) : (int)strlen(p);

			if (memmem(p, (size_t)n, pattern, strlen(pattern)))
				buf_printf(&out->text, "src/%s:%d: %.*s\n", d->d_name, line, n, p);
			p += n + (nl ? 1 : 0);
		}
		buf_release(&text);
	}
	if (dir)
		closedir(dir);
	return out->text.len ? 0 : buf_puts(&out->text, "no match");
}

static int run_tool(struct tool_output *out, void *ctx, const char *name, const json_t *args, size_t max)
{
	struct files *fs = ctx;

	(void)max;      /* the request cycle cuts what is longer */
	fs->runs++;
	if (!strcmp(name, "read_file"))
		return read_file(out, fs, args);
	if (!strcmp(name, "search"))
		return search(out, fs, args);
	fail_msg("the request cycle ran a tool it does not offer: %s", name);
	return RL_ERROR;
}

static const struct ask_tool defs[] = {
	{ "read_file", "Read lines start to end (from 1, both included) of a file of the repository.",
	  "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, \"start\": {\"type\": "
	  "\"integer\"}, \"end\": {\"type\": \"integer\"}}, \"required\": [\"path\"]}" },
	{ "search", "The lines of the repository's files that contain pattern, in files matching path_glob.",
	  "{\"type\": \"object\", \"properties\": {\"pattern\": {\"type\": \"string\"}, \"path_glob\": "
	  "{\"type\": \"string\"}}, \"required\": [\"pattern\"]}" },
};

static void files_make(struct files *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->dir = test_tmpdir("tools");
	test_sh_ok(fs->dir, "mkdir -p src");
	test_write_str(fs->dir, "src/a.c", "#include \"b.h\"\nint main(void) { return helper(); }\n");
	test_write_str(fs->dir, "src/b.c", "int helper(void)\n{\n\treturn 0;\n}\n");
}

static void files_free(struct files *fs)
{
	test_rmtree(fs->dir);
	free(fs->dir);
}

static struct ask_tools tools_of(struct files *fs)
{
	struct ask_tools t = { defs, 2, run_tool, fs, NULL, { 0, 0, 0, 0 } };

	return t;
}

/* --- asking ---------------------------------------------------------------- */

struct run {
	struct fakellm f;
	struct llm_config c;
	struct asker *a;
	struct asker_options o;
	struct sched_options so;
	struct store *store;
	struct files fs;
	const char *tail;       /* the question's own part ("the rule") */
};

static void run_start(struct run *r, const char *provider, const char *script, bool stream)
{
	char url[96];

	memset(r, 0, sizeof(*r));
	fakellm_start(&r->f, script);
	snprintf(url, sizeof(url), "%s/v1", r->f.url);
	config_for(&r->c, provider, url);
	sched_options_init(&r->so);
	r->so.retries = 0;
	r->o.no_stream = !stream;
	r->o.warm = WARM_OFF;
	r->tail = "the rule";
	files_make(&r->fs);
}

static void run_asker(struct run *r)
{
	assert_int_equal(asker_new(&r->a, &r->c, &r->so, &r->o, r->store, NULL), 0);
}

static void run_stop(struct run *r)
{
	asker_free(r->a);
	llm_config_release(&r->c);
	fakellm_stop(&r->f);
	files_free(&r->fs);
}

/* Ask one question with tools and wait for it to settle; the ASK_PROGRESS of each tool turn are counted. */
static void ask_with(struct run *r, const char *model, const struct ask_tools *tools, struct ask_event *out,
		     int *progress_turns)
{
	struct ask_spec spec = { SCHEMA_MAP, model, NULL, "sys", "THE CHANGE", r->tail, 100, false, NULL };
	uint64_t id;

	assert_int_equal(ask_submit_tools(r->a, &id, &spec, tools), 0);
	test_ask_end(r->a, out, progress_turns);
	assert_int_equal(out->id, id);
}

/* The requests once each has ended (the server logs the end after the answer went out). */
static json_t *requests_ended(struct run *r)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	json_t *requests, *rec;
	size_t i;
	int tries;

	for (tries = 0;; tries++) {
		bool all = true;

		requests = fakellm_requests(&r->f);
		json_array_foreach(requests, i, rec)
			all = all && json_is_number(json_object_get(rec, "end"));
		if (all || tries == 300)
			return requests;
		json_decref(requests);
		nanosleep(&tick, NULL);
	}
}

static const char *str_at(json_t *v, const char *key)
{
	return json_string_value(json_object_get(v, key));
}

static json_t *body_at(json_t *requests, size_t i)
{
	return json_object_get(json_array_get(requests, i), "body");
}

static json_t *messages_at(json_t *requests, size_t i)
{
	return json_object_get(body_at(requests, i), "messages");
}

static void strip_cache_control(json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;

	if (json_is_object(v)) {
		json_object_del(v, "cache_control");
		json_object_foreach(v, k, x)
			strip_cache_control(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			strip_cache_control(x);
	}
}

/*
 * Each request begins with the one before: the same system, tools and
 * (but for cache_control, which marks no content) the same messages
 * first, so that the prompt cache the last one wrote is read.
 */
static void assert_prefixes(json_t *requests)
{
	size_t i, j;

	for (i = 1; i < json_array_size(requests); i++) {
		json_t *before = json_deep_copy(messages_at(requests, i - 1));
		json_t *now = json_deep_copy(messages_at(requests, i));

		strip_cache_control(before);
		strip_cache_control(now);
		assert_true(json_array_size(now) > json_array_size(before));
		for (j = 0; j < json_array_size(before); j++)
			if (!json_equal(json_array_get(before, j), json_array_get(now, j)))
				fail_msg("request %zu's message %zu is not request %zu's", i + 1, j, i);
		assert_true(json_equal(json_object_get(body_at(requests, i), "tools"),
				       json_object_get(body_at(requests, i - 1), "tools")));
		assert_true(json_equal(json_object_get(body_at(requests, i), "system"),
				       json_object_get(body_at(requests, i - 1), "system")) ||
			    (!json_object_get(body_at(requests, i), "system") &&
			     !json_object_get(body_at(requests, i - 1), "system")));
		json_decref(before);
		json_decref(now);
	}
}

static size_t count_breakpoints(json_t *v)
{
	size_t i, n = 0;
	const char *k;
	json_t *x;

	if (json_is_object(v)) {
		n += json_object_get(v, "cache_control") != NULL;
		json_object_foreach(v, k, x)
			n += count_breakpoints(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			n += count_breakpoints(x);
	}
	return n;
}


/* --- a model that reads, searches and answers -------------------------- */

static void openai_reads(bool stream)
{
	/* Two calls at once (parallel), their arguments streamed five characters an event. */
	const char *script =
		"{\"stream\": true, \"rules\": [{\"match\": \"the rule\", \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.c\", \"start\": 2,"
		"   \"end\": 2}}, {\"name\": \"search\", \"arguments\": {\"pattern\": \"helper\", \"path_glob\": \"b*\"}}],"
		"  \"answer\": \"Let me look.\", \"chunk_chars\": 5},"
		" {\"answer\": " ANSWER ", \"chunk_chars\": 7}]}]}";
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests, *msgs, *call, *last_turn;
	int progress = 0;

	run_start(&r, "openai", script, stream);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_with(&r, "gpt-5-mini", &tools, &ev, &progress);
	assert_int_equal(ev.status, ASK_DONE);
	assert_string_equal(ev.text, ANSWER);
	assert_int_equal(ev.tools, ASK_TOOLS_OFFERED);
	assert_int_equal(ev.tool_turns, 1);
	assert_int_equal(progress, 1);
	assert_string_equal(ev.tools_stop, "");
	assert_int_equal(r.fs.runs, 2);
	/* Every call recorded: name, arguments as given, what it gave back. */
	assert_int_equal(ev.ntool_calls, 2);
	assert_string_equal(ev.tool_calls[0].name, "read_file");
	assert_string_equal(ev.tool_calls[0].arguments, "{\"path\": \"src/a.c\", \"start\": 2, \"end\": 2}");
	assert_int_equal(ev.tool_calls[0].result_bytes, strlen("int main(void) { return helper(); }\n"));
	assert_true(ev.tool_calls[0].ran && !ev.tool_calls[0].error);
	assert_int_equal(ev.tool_calls[0].turn, 1);
	assert_string_equal(ev.tool_calls[1].name, "search");
	assert_true(ev.usage.tokens_in > 0 && ev.usage.tokens_out > 0);
	assert_int_equal(ev.attempts, 2);
	ask_event_release(&ev);

	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 2);
	/* Offered as functions, the model free to call them, the answer still under its schema. */
	call = json_array_get(json_object_get(body_at(requests, 0), "tools"), 0);
	assert_string_equal(str_at(call, "type"), "function");
	assert_string_equal(str_at(json_object_get(call, "function"), "name"), "read_file");
	assert_string_equal(str_at(body_at(requests, 0), "tool_choice"), "auto");
	assert_string_equal(str_at(json_object_get(body_at(requests, 1), "response_format"), "type"), "json_schema");
	assert_string_equal(str_at(body_at(requests, 1), "tool_choice"), "auto");
	assert_string_equal(str_at(body_at(requests, 0), "prompt_cache_key"),
			    str_at(body_at(requests, 1), "prompt_cache_key"));
	assert_prefixes(requests);
	/* The second: the model's calls as it made them, then one tool message per call. */
	msgs = messages_at(requests, 1);
	assert_int_equal(json_array_size(msgs), 5);
	last_turn = json_array_get(msgs, 2);
	assert_string_equal(str_at(last_turn, "role"), "assistant");
	assert_string_equal(str_at(last_turn, "content"), "Let me look.");
	call = json_array_get(json_object_get(last_turn, "tool_calls"), 1);
	assert_string_equal(str_at(json_object_get(call, "function"), "arguments"),
			    "{\"pattern\": \"helper\", \"path_glob\": \"b*\"}");
	assert_string_equal(str_at(json_array_get(msgs, 3), "role"), "tool");
	assert_string_equal(str_at(json_array_get(msgs, 3), "tool_call_id"),
			    str_at(json_array_get(json_object_get(last_turn, "tool_calls"), 0), "id"));
	assert_string_equal(str_at(json_array_get(msgs, 3), "content"), "int main(void) { return helper(); }\n");
	assert_string_equal(str_at(json_array_get(msgs, 4), "content"), "src/b.c:1: int helper(void)\n");
	json_decref(requests);
	run_stop(&r);
}

static void test_openai_reads_and_answers(void **state)
{
	(void)state;
	openai_reads(true);
	openai_reads(false);
}

static void anthropic_reads(bool stream)
{
	/* Claude calls tools, then the answer's tool; input streamed four characters a delta. */
	const char *script =
		"{\"stream\": true, \"structured\": true, \"rules\": [{\"match\": \"the rule\", \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.c\"}}], \"chunk_chars\": 4},"
		" {\"tool_calls\": [{\"name\": \"search\", \"arguments\": {\"pattern\": \"helper\"}},"
		"   {\"name\": \"read_file\", \"arguments\": {\"path\": \"src/missing.c\"}}], \"answer\": \"And this.\"},"
		" {\"tool_calls\": [{\"name\": \"review_answer\", \"arguments\": " FINDING "}], \"chunk_chars\": 9}]}]}";
	struct rule rule = { .id = "errors", .name = "Errors reach the caller", .severity = SEV_MAJOR,
			     .category = "reliability" };
	struct ask_tools tools;
	struct ask_event ev;
	struct map_answer answer;
	struct run r;
	json_t *requests, *body, *msgs, *results, *tool;
	size_t i;

	run_start(&r, "anthropic", script, stream);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_with(&r, "claude-haiku-4-5", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_json_text(ev.text, FINDING);
	/* The answer is the rule's, as the check reads it. */
	assert_int_equal(answer_parse(&answer, ev.text, strlen(ev.text), &rule), 0);
	assert_int_equal(answer.status, RULE_ATTENTION);
	assert_int_equal(answer.nfindings, 1);
	assert_string_equal(answer.findings[0].file, "src/b.c");
	assert_int_equal(answer.findings[0].line, 3);
	answer_release(&answer);
	assert_int_equal(ev.tool_turns, 2);
	assert_int_equal(ev.ntool_calls, 3);
	assert_true(ev.tool_calls[2].ran && ev.tool_calls[2].error);
	assert_string_equal(ev.tool_calls[2].message, "no such file: src/missing.c");
	ask_event_release(&ev);

	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 3);
	body = body_at(requests, 0);
	/* The caller's tools, then the answer's; the model must call one of them. */
	assert_int_equal(json_array_size(json_object_get(body, "tools")), 3);
	tool = json_array_get(json_object_get(body, "tools"), 2);
	assert_string_equal(str_at(tool, "name"), "review_answer");
	assert_true(json_equal(json_object_get(tool, "input_schema"), (json_t *)schema_get(SCHEMA_MAP)));
	assert_non_null(json_object_get(json_array_get(json_object_get(body, "tools"), 0), "input_schema"));
	assert_string_equal(str_at(json_object_get(body, "tool_choice"), "type"), "any");
	assert_prefixes(requests);
	for (i = 0; i < 3; i++)
		assert_true(count_breakpoints(body_at(requests, i)) <= 4);
	/* The third: the model's content as it was, tool_result blocks, breakpoints at the last two. */
	msgs = messages_at(requests, 2);
	assert_int_equal(json_array_size(msgs), 5);
	assert_string_equal(str_at(json_array_get(json_object_get(json_array_get(msgs, 3), "content"), 0), "type"),
			    "text");
	assert_string_equal(str_at(json_array_get(json_object_get(json_array_get(msgs, 3), "content"), 1), "type"),
			    "tool_use");
	results = json_object_get(json_array_get(msgs, 4), "content");
	assert_int_equal(json_array_size(results), 2);
	assert_string_equal(str_at(json_array_get(results, 0), "type"), "tool_result");
	assert_string_equal(str_at(json_array_get(results, 0), "tool_use_id"),
			    str_at(json_array_get(json_object_get(json_array_get(msgs, 3), "content"), 1), "id"));
	assert_null(json_object_get(json_array_get(results, 0), "is_error"));
	assert_true(json_is_true(json_object_get(json_array_get(results, 1), "is_error")));
	assert_string_equal(str_at(json_array_get(results, 1), "content"), "no such file: src/missing.c");
	assert_non_null(json_object_get(json_array_get(results, 1), "cache_control"));
	assert_non_null(json_object_get(json_array_get(json_object_get(json_array_get(msgs, 2), "content"), 0),
					"cache_control"));
	assert_int_equal(count_breakpoints(body_at(requests, 2)), 3);
	json_decref(requests);
	run_stop(&r);
}

static void test_anthropic_reads_and_answers(void **state)
{
	(void)state;
	anthropic_reads(true);
	anthropic_reads(false);
}

/* --- a model that never stops -------------------------------------------- */

static void test_never_stops(void **state)
{
	const char *script =
		"{\"stream\": true, \"rules\": ["
		" {\"match\": \"gpt-4.1-mini\", \"turns\": [{\"tool_calls\": [{\"name\": \"read_file\", \"arguments\":"
		"   {\"path\": \"src/b.c\"}}]}], \"final\": {\"answer\": " ANSWER "}},"
		" {\"match\": \"gpt-4.1-nano\", \"turns\": [{\"tool_calls\": [{\"name\": \"read_file\", \"arguments\":"
		"   {\"path\": \"src/b.c\"}}], \"ignore_tool_choice\": true}]}]}";
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests, *msgs;

	(void)state;
	run_start(&r, "openai", script, true);
	tools = tools_of(&r.fs);
	tools.limits.turns = 3;
	run_asker(&r);
	/* Three turns, then told to answer with no tool to call: it answers. */
	ask_with(&r, "gpt-4.1-mini", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_string_equal(ev.text, ANSWER);
	assert_int_equal(ev.tool_turns, 3);
	assert_int_equal(ev.ntool_calls, 3);
	assert_string_equal(ev.tools_stop, "the limit of 3 tool turns");
	ask_event_release(&ev);
	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 4);
	assert_string_equal(str_at(body_at(requests, 2), "tool_choice"), "auto");
	assert_string_equal(str_at(body_at(requests, 3), "tool_choice"), "none");
	msgs = messages_at(requests, 3);
	assert_string_equal(str_at(json_array_get(msgs, json_array_size(msgs) - 1), "role"), "user");
	assert_non_null(strstr(str_at(json_array_get(msgs, json_array_size(msgs) - 1), "content"),
			       "the limit of 3 tool turns was reached"));
	assert_prefixes(requests);
	json_decref(requests);

	/* A server that lets it call tools still: the question ends, naming the bound. */
	ask_with(&r, "gpt-4.1-nano", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_ERROR);
	assert_string_equal(ev.error, "the model still called tools after the limit of 3 tool turns was reached "
			    "(3 tool turns, 3 calls): it gave no answer");
	assert_int_equal(ev.ntool_calls, 3);
	ask_event_release(&ev);
	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 8);
	json_decref(requests);
	run_stop(&r);
}

/* --- hostile calls --------------------------------------------------------- */

/* A turn of n calls of read_file, then the answer. */
static char *many_calls_script(int n)
{
	struct buf s = BUF_INIT;
	int i;

	buf_puts(&s, "{\"stream\": true, \"rules\": [{\"match\": \"the rule\", \"turns\": [{\"tool_calls\": [");
	for (i = 0; i < n; i++)
		buf_printf(&s, "%s{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/b.c\", \"start\": %d}}",
			   i ? ", " : "", i + 1);
	buf_puts(&s, "], \"chunk_chars\": 64}, {\"answer\": " ANSWER "}]}]}");
	return buf_detach(&s);
}

static void test_thousand_calls(void **state)
{
	char *script = many_calls_script(1000);
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests, *msgs;
	size_t i;

	(void)state;
	run_start(&r, "openai", script, true);
	free(script);
	tools = tools_of(&r.fs);
	tools.limits.calls = 4;
	run_asker(&r);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	/* 128 kept, 872 counted only; 4 run, the others answered with an error. */
	assert_int_equal(ev.ntool_calls, READING_CALLS_MAX);
	assert_int_equal(ev.tool_calls_dropped, 1000 - READING_CALLS_MAX);
	assert_int_equal(r.fs.runs, 4);
	assert_true(ev.tool_calls[3].ran && !ev.tool_calls[4].ran && ev.tool_calls[4].error);
	assert_string_equal(ev.tool_calls[4].message, "not run: at most 4 calls are run a turn; call it again in "
			    "the next turn if it is still needed");
	ask_event_release(&ev);
	requests = fakellm_requests(&r.f);
	msgs = messages_at(requests, 1);
	assert_int_equal(json_array_size(json_object_get(json_array_get(msgs, 2), "tool_calls")), READING_CALLS_MAX);
	assert_int_equal(json_array_size(msgs), 3 + READING_CALLS_MAX);
	/* Sent back as given when run, as {} when not: a hundred long calls are not repeated every turn. */
	assert_string_equal(str_at(json_object_get(json_array_get(json_object_get(json_array_get(msgs, 2),
										      "tool_calls"), 0), "function"),
				   "arguments"), "{\"path\": \"src/b.c\", \"start\": 1}");
	assert_string_equal(str_at(json_object_get(json_array_get(json_object_get(json_array_get(msgs, 2),
										      "tool_calls"), 4), "function"),
				   "arguments"), "{}");
	for (i = 3 + 4; i < json_array_size(msgs); i++)
		assert_non_null(strstr(str_at(json_array_get(msgs, i), "content"), "not run: at most 4 calls"));
	json_decref(requests);
	run_stop(&r);
}

static void test_bad_calls(void **state)
{
	/* Unknown tool, arguments not JSON, an array, too long; an id twice; then the answer. */
	struct buf script = BUF_INIT, huge = BUF_INIT;
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests, *msgs, *calls;
	size_t i;

	(void)state;
	for (i = 0; i < 70000; i++)
		buf_putc(&huge, 'x');
	buf_printf(&script,
		   "{\"stream\": true, \"rules\": ["
		   " {\"match\": \"the rule\", \"match_tool_result\": \"no such tool\", \"answer\": " ANSWER "},"
		   " {\"match\": \"the rule\", \"tool_calls\": ["
		   "  {\"name\": \"delete_file\", \"arguments\": {\"path\": \"src/a.c\"}},"
		   "  {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \"},"
		   "  {\"name\": \"read_file\", \"arguments\": \"[1, 2]\"},"
		   "  {\"name\": \"search\", \"arguments\": {\"pattern\": \"%s\"}},"
		   "  {\"name\": \"read_file\", \"id\": \"call_same\", \"arguments\": {\"path\": \"src/a.c\", \"end\": 1}},"
		   "  {\"name\": \"read_file\", \"id\": \"call_same\", \"arguments\": {\"path\": \"src/b.c\", \"end\": 1}},"
		   "  {\"name\": \"read_file\", \"arguments\": {\"path\": \"../../etc/passwd\"}}],"
		   "  \"chunk_chars\": 1000}]}", huge.ptr);
	run_start(&r, "openai", script.ptr, true);
	buf_release(&script);
	buf_release(&huge);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	/* The second request matched a rule on the tool result it carried: the model saw the errors. */
	assert_int_equal(ev.status, ASK_DONE);
	assert_string_equal(ev.text, ANSWER);
	assert_int_equal(ev.ntool_calls, 7);
	assert_string_equal(ev.tool_calls[0].message, "no such tool: not run");
	assert_false(ev.tool_calls[0].ran);
	assert_non_null(strstr(ev.tool_calls[1].message, "its arguments are not JSON ("));
	assert_string_equal(ev.tool_calls[1].arguments, "{\"path\": ");
	assert_string_equal(ev.tool_calls[2].message, "its arguments are not a JSON object: not run");
	assert_string_equal(ev.tool_calls[3].message, "its arguments are longer than 65536 bytes: not run");
	assert_int_equal(strlen(ev.tool_calls[3].arguments), TOOLS_ARGS_SHOWN);
	assert_true(ev.tool_calls[4].ran && ev.tool_calls[5].ran && !ev.tool_calls[5].error);
	/* The tool's own error (a path outside): run, and the model told. */
	assert_true(ev.tool_calls[6].ran && ev.tool_calls[6].error);
	assert_int_equal(r.fs.runs, 3);
	ask_event_release(&ev);

	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 2);
	msgs = messages_at(requests, 1);
	calls = json_object_get(json_array_get(msgs, 2), "tool_calls");
	/* Sent back as given when JSON, as {} when not; each id once. */
	assert_string_equal(str_at(json_object_get(json_array_get(calls, 1), "function"), "arguments"), "{}");
	assert_string_equal(str_at(json_object_get(json_array_get(calls, 3), "function"), "arguments"), "{}");
	assert_string_equal(str_at(json_array_get(calls, 4), "id"), "call_same");
	assert_string_equal(str_at(json_array_get(calls, 5), "id"), "revline_call_1_6");
	assert_string_equal(str_at(json_array_get(msgs, 8), "tool_call_id"), "revline_call_1_6");
	assert_string_equal(str_at(json_array_get(msgs, 8), "content"), "int helper(void)\n");
	assert_true(json_integer_value(json_object_get(json_array_get(requests, 1), "body_bytes")) < 20000);
	json_decref(requests);
	run_stop(&r);
}

/* --- bounds ---------------------------------------------------------------- */

static void test_bytes_bound(void **state)
{
	const char *script =
		"{\"stream\": true, \"rules\": [{\"match\": \"the rule\", \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/big.c\"}}]}],"
		" \"final\": {\"answer\": " ANSWER "}}]}";
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests, *msgs;
	struct buf big = BUF_INIT;
	int i;

	(void)state;
	run_start(&r, "openai", script, false);
	for (i = 0; i < 100; i++)
		buf_printf(&big, "line %03d: é and more text\n", i);
	test_write_str(r.fs.dir, "src/big.c", big.ptr);
	buf_release(&big);
	tools = tools_of(&r.fs);
	tools.limits.result_max = 300;
	tools.limits.bytes_max = 500;
	run_asker(&r);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	/* 300 bytes, then the 200 left; then told to answer. */
	assert_int_equal(ev.ntool_calls, 2);
	assert_int_equal(ev.tool_calls[0].result_bytes, 300);
	assert_int_equal(ev.tool_calls[1].result_bytes, 200);
	assert_string_equal(ev.tools_stop, "the limit of 500 bytes of tool results");
	ask_event_release(&ev);
	requests = fakellm_requests(&r.f);
	assert_int_equal(json_array_size(requests), 3);
	msgs = messages_at(requests, 2);
	assert_non_null(strstr(str_at(json_array_get(msgs, 3), "content"),
			       "\n[cut: the result is longer than 300 bytes]"));
	assert_int_equal(strlen(str_at(json_array_get(msgs, 3), "content")), 300);
	assert_string_equal(str_at(body_at(requests, 2), "tool_choice"), "none");
	json_decref(requests);
	run_stop(&r);
}

static void test_deadline_bound(void **state)
{
	/* Each turn takes 1.5 s; with 4 s to go, the second would not leave time to answer. */
	const char *script =
		"{\"rules\": [{\"match\": \"the rule\", \"latency_ms\": 1500, \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/b.c\"}}]}],"
		" \"final\": {\"answer\": " ANSWER "}}]}";
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;

	(void)state;
	run_start(&r, "openai", script, false);
	r.so.deadline = 4.0;
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_int_equal(ev.tool_turns, 1);
	assert_non_null(strstr(ev.tools_stop, "the check's deadline ("));
	ask_event_release(&ev);
	run_stop(&r);
}

/* --- servers that refuse tools ---------------------------------------- */

static void refused_by(const char *model, const char *words, bool remembered_too)
{
	struct buf script = BUF_INIT;
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests;
	char *dir = test_tmpdir("toolstore"), *db;
	struct buf names = BUF_INIT;

	buf_printf(&script, "{\"model_rules\": [{\"models\": \"%s\", \"refuse\": [\"tools\"], \"tools_refusal\": "
		   "\"%s\"}], \"rules\": [{\"match\": \"the rule\", \"answer\": " ANSWER "}]}", model, words);
	run_start(&r, "openai", script.ptr, true);
	buf_release(&script);
	assert_true(asprintf(&db, "%s/revline.db", dir) > 0);
	assert_int_equal(store_open(&r.store, db), 0);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_with(&r, model, &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_string_equal(ev.text, ANSWER);
	assert_int_equal(ev.tools, ASK_TOOLS_REFUSED);
	assert_int_equal(ev.attempts, 2);
	ask_event_release(&ev);
	requests = requests_ended(&r);
	assert_int_equal(json_array_size(requests), 2);
	assert_string_equal(str_at(json_array_get(requests, 0), "refused"), "tools");
	assert_non_null(json_object_get(body_at(requests, 0), "tools"));
	assert_null(json_object_get(body_at(requests, 1), "tools"));
	assert_null(json_object_get(body_at(requests, 1), "tool_choice"));
	/* Still under the answer's schema. */
	assert_non_null(json_object_get(body_at(requests, 1), "response_format"));
	json_decref(requests);
	/* In the store, for the server and the model. */
	assert_int_equal(store_refusals_get(&names, r.store, r.c.base_url, model), 0);
	assert_non_null(strstr(names.ptr, "tools"));
	buf_release(&names);

	if (remembered_too) {
		/* A later run (a new asker on the same store) asks without tools at once. */
		asker_free(r.a);
		run_asker(&r);
		r.tail = "the rule, another question";
		ask_with(&r, model, &tools, &ev, NULL);
		assert_int_equal(ev.status, ASK_DONE);
		assert_int_equal(ev.tools, ASK_TOOLS_REFUSED);
		assert_int_equal(ev.attempts, 1);
		ask_event_release(&ev);
		requests = fakellm_requests(&r.f);
		assert_int_equal(json_array_size(requests), 3);
		assert_null(json_object_get(body_at(requests, 2), "tools"));
		json_decref(requests);
	}
	asker_free(r.a);
	r.a = NULL;
	store_close(r.store);
	run_stop(&r);
	test_rmtree(dir);
	free(dir);
	free(db);
}

static void test_refused(void **state)
{
	(void)state;
	refused_by("qwen2.5-coder:7b", "ollama", true);
	refused_by("llama3.1-8b", "vllm", false);
	refused_by("gpt-4.1-mini", "openai", false);
}

/* --- the prompt cache across turns ----------------------------------------- */

/* Ask with a shared part of 24,000 characters (6,000 tokens to the fake). */
static void ask_long(struct run *r, const char *model, const struct ask_tools *tools, struct ask_event *out)
{
	struct buf shared = BUF_INIT;
	struct ask_spec spec = { SCHEMA_MAP, model, NULL, "sys", NULL, "the rule", 24000, false, NULL };
	uint64_t id;
	int i;

	for (i = 0; shared.len <= 24000; i++)
		buf_printf(&shared, "line %03d of the change, the same for every rule: +x\n", i % 1000);
	shared.len = 24000;
	shared.ptr[24000] = '\0';
	spec.shared = shared.ptr;
	assert_int_equal(ask_submit_tools(r->a, &id, &spec, tools), 0);
	buf_release(&shared);
	test_ask_end(r->a, out, NULL);
}

static json_int_t usage_at(json_t *requests, size_t i, const char *key)
{
	json_t *usage = json_object_get(json_array_get(requests, i), "usage");

	if (!strcmp(key, "cached_tokens"))
		usage = json_object_get(usage, "prompt_tokens_details");
	return json_integer_value(json_object_get(usage, key));
}

static void test_cache_warm_across_turns(void **state)
{
	const char *turns =
		"\"rules\": [{\"match\": \"the rule\", \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.c\"}}]},"
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/b.c\"}}]},"
		" {\"answer\": " ANSWER "%s}]}]";
	const char *by_tool = ", \"tool_calls\": [{\"name\": \"review_answer\", \"arguments\": " ANSWER "}]";
	char script[2048], rules[1024];
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests;

	(void)state;
	/* Anthropic: the first request writes the shared part; each later one reads the last one's end. */
	snprintf(rules, sizeof(rules), turns, by_tool);
	snprintf(script, sizeof(script), "{\"structured\": true, \"cache\": \"anthropic\", %s}", rules);
	run_start(&r, "anthropic", script, false);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_long(&r, "claude-sonnet-4-5", &tools, &ev);
	assert_int_equal(ev.status, ASK_DONE);
	/* Billed: the shared part read twice, the first turn's end once. */
	assert_true(ev.usage.tokens_cached >= 2 * 6000);
	ask_event_release(&ev);
	requests = requests_ended(&r);
	assert_int_equal(json_array_size(requests), 3);
	assert_int_equal(usage_at(requests, 0, "cache_read_input_tokens"), 0);
	assert_true(usage_at(requests, 0, "cache_creation_input_tokens") >= 6000);
	assert_true(usage_at(requests, 1, "cache_read_input_tokens") >= 6000);
	assert_true(usage_at(requests, 1, "cache_creation_input_tokens") > 0);
	assert_true(usage_at(requests, 2, "cache_read_input_tokens") > usage_at(requests, 1, "cache_read_input_tokens"));
	json_decref(requests);
	run_stop(&r);

	/* OpenAI: the same prompt_cache_key; each request's prefix is the last one's prompt. */
	snprintf(rules, sizeof(rules), turns, "");
	snprintf(script, sizeof(script), "{\"cache\": \"openai\", %s}", rules);
	run_start(&r, "openai", script, false);
	tools = tools_of(&r.fs);
	run_asker(&r);
	ask_long(&r, "gpt-5-mini", &tools, &ev);
	assert_int_equal(ev.status, ASK_DONE);
	ask_event_release(&ev);
	requests = requests_ended(&r);
	assert_int_equal(usage_at(requests, 0, "cached_tokens"), 0);
	assert_true(usage_at(requests, 1, "cached_tokens") >= usage_at(requests, 0, "prompt_tokens") - 128);
	assert_true(usage_at(requests, 2, "cached_tokens") >= usage_at(requests, 1, "prompt_tokens") - 128);
	json_decref(requests);
	run_stop(&r);
}

/* --- the result cache, models that take none, sets that are wrong ------ */

static int requests_count(struct run *r)
{
	json_t *requests = fakellm_requests(&r->f);
	int n = (int)json_array_size(requests);

	json_decref(requests);
	return n;
}

static void test_cache(void **state)
{
	const char *script =
		"{\"rules\": [{\"match\": \"the rule\", \"turns\": ["
		" {\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/b.c\"}}]},"
		" {\"answer\": " ANSWER "}]}]}";
	char *dir = test_tmpdir("toolcache"), *db;
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;

	(void)state;
	run_start(&r, "openai", script, false);
	assert_true(asprintf(&db, "%s/revline.db", dir) > 0);
	assert_int_equal(store_open(&r.store, db), 0);
	tools = tools_of(&r.fs);
	run_asker(&r);
	/* Without a state, an answer that read files is never kept. */
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_false(ev.cached);
	ask_event_release(&ev);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_false(ev.cached);
	ask_event_release(&ev);
	assert_int_equal(requests_count(&r), 4);
	/* With one, the same files give the answer back; other files ask again. */
	tools.state = "tree 1111";
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_false(ev.cached);
	ask_event_release(&ev);
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_true(ev.cached);
	assert_string_equal(ev.text, ANSWER);
	ask_event_release(&ev);
	assert_int_equal(requests_count(&r), 6);
	tools.state = "tree 2222";
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_false(ev.cached);
	ask_event_release(&ev);
	/* Other bounds, another answer. */
	tools.limits.turns = 2;
	ask_with(&r, "gpt-5-mini", &tools, &ev, NULL);
	assert_false(ev.cached);
	ask_event_release(&ev);
	assert_int_equal(requests_count(&r), 10);
	asker_free(r.a);
	r.a = NULL;
	store_close(r.store);
	run_stop(&r);
	test_rmtree(dir);
	free(dir);
	free(db);
}

static void test_not_taken(void **state)
{
	const char *script = "{\"rules\": [{\"match\": \"the rule\", \"answer\": " ANSWER "}]}";
	struct ask_tools tools;
	struct ask_event ev;
	struct run r;
	json_t *requests;

	(void)state;
	run_start(&r, "openai", script, true);
	tools = tools_of(&r.fs);
	run_asker(&r);
	/* An Ollama tag the table does not say takes tools. */
	ask_with(&r, "mistral:7b", &tools, &ev, NULL);
	assert_int_equal(ev.status, ASK_DONE);
	assert_int_equal(ev.tools, ASK_TOOLS_NOT_TAKEN);
	assert_int_equal(ev.ntool_calls, 0);
	ask_event_release(&ev);
	requests = fakellm_requests(&r.f);
	assert_null(json_object_get(body_at(requests, 0), "tools"));
	json_decref(requests);
	run_stop(&r);
}

static void test_bad_sets(void **state)
{
	struct ask_tool two[] = { defs[0], defs[0] };
	struct ask_tool named[] = { { "review_answer", "x", "{\"type\": \"object\"}" } };
	struct ask_tool bad_name[] = { { "read file", "x", "{\"type\": \"object\"}" } };
	struct ask_tool bad_schema[] = { { "read_file", "x", "{\"type\": " } };
	struct ask_tool not_object[] = { { "read_file", "x", "[1]" } };
	struct ask_spec spec = { SCHEMA_MAP, "gpt-5-mini", NULL, "sys", NULL, "the rule", 10, false, NULL };
	struct ask_tools tools = { two, 2, run_tool, NULL, NULL, { 0, 0, 0, 0 } };
	struct llm_call call;
	struct llm_config c;

	(void)state;
	config_for(&c, "openai", "http://127.0.0.1:9/v1");
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	assert_string_equal(error_message(), "two tools are named 'read_file'");
	tools.tools = named;
	tools.ntools = 1;
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	assert_string_equal(error_message(), "tool 'review_answer' has the name of the answer's tool");
	tools.tools = bad_name;
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "tool 1: its name 'read file' is not 1 to 64 letters"));
	tools.tools = bad_schema;
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "tool 'read_file': its parameters are not JSON"));
	tools.tools = not_object;
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	tools.run = NULL;
	assert_int_equal(ask_call_build_tools(&call, &c, NULL, &spec, &tools), RL_EUSAGE);
	llm_config_release(&c);
}

/* --- tool calls read from answers, whole and streamed ------------------- */

static void test_reading_calls(void **state)
{
	/* OpenAI: two calls whose pieces interleave, an escape cut between pieces. */
	const char *openai =
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\","
		"\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\","
		"\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"{\\\"pattern\"}}]}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
		"{\"arguments\":\"{\\\"path\\\": \\\"a\\\\\"}}]}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":"
		"{\"arguments\":\"\\\": \\\"x\\\"}\"}}]}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
		"{\"arguments\":\"u00e9.c\\\"}\"}}]}}]}\n\n"
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
		"data: [DONE]\n\n";
	const char *anthropic =
		"event: content_block_start\n"
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Looking.\"}}\n\n"
		"event: content_block_start\n"
		"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\","
		"\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
		"\"partial_json\":\"\"}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
		"\"partial_json\":\"{\\\"path\\\": \\\"src/\"}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
		"\"partial_json\":\"a.c\\\"}\"}}\n\n"
		"event: content_block_start\n"
		"data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\","
		"\"id\":\"toolu_2\",\"name\":\"search\",\"input\":{}}}\n\n"
		"event: message_delta\n"
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n";
	const char *whole =
		"{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"read_file\","
		"\"input\":{\"path\":\"b.c\"}}],\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":3}}";
	struct reading r;

	(void)state;
	assert_int_equal(reading_read(&r, &provider_openai, openai, strlen(openai)), 0);
	assert_int_equal(r.ncalls, 2);
	assert_string_equal(r.calls[0].id, "call_a");
	assert_string_equal(r.calls[0].name, "read_file");
	assert_string_equal(r.calls[0].arguments.ptr, "{\"path\": \"a\\u00e9.c\"}");
	assert_string_equal(r.calls[1].name, "search");
	assert_string_equal(r.calls[1].arguments.ptr, "{\"pattern\": \"x\"}");
	assert_int_equal(r.text.len, 0);
	reading_release(&r);

	assert_int_equal(reading_read(&r, &provider_anthropic, anthropic, strlen(anthropic)), 0);
	assert_string_equal(r.text.ptr, "Looking.");
	assert_int_equal(r.ncalls, 2);
	assert_string_equal(r.calls[0].id, "toolu_1");
	assert_string_equal(r.calls[0].arguments.ptr, "{\"path\": \"src/a.c\"}");
	/* A call with no input streamed: no arguments (taken as {}). */
	assert_string_equal(r.calls[1].name, "search");
	assert_int_equal(r.calls[1].arguments.len, 0);
	assert_int_equal(r.usage.tokens_out, 9);
	reading_release(&r);

	assert_int_equal(reading_read(&r, &provider_anthropic, whole, strlen(whole)), 0);
	assert_int_equal(r.ncalls, 1);
	assert_string_equal(r.calls[0].arguments.ptr, "{\"path\":\"b.c\"}");
	reading_release(&r);
	/* Without tools offered, a call is the forced answer tool's: its input is the answer. */
	assert_int_equal(ask_read_body(&r, &provider_anthropic, whole, strlen(whole)), 0);
	assert_string_equal(r.text.ptr, "{\"path\":\"b.c\"}");
	reading_release(&r);
	assert_string_equal(ask_tools_use_name(ASK_TOOLS_REFUSED), "refused");
	assert_string_equal(ask_tools_use_name(ASK_TOOLS_NOT_TAKEN), "not taken");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openai_reads_and_answers),
		cmocka_unit_test(test_anthropic_reads_and_answers),
		cmocka_unit_test(test_never_stops),
		cmocka_unit_test(test_thousand_calls),
		cmocka_unit_test(test_bad_calls),
		cmocka_unit_test(test_bytes_bound),
		cmocka_unit_test(test_deadline_bound),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cache_warm_across_turns),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_not_taken),
		cmocka_unit_test(test_bad_sets),
		cmocka_unit_test(test_reading_calls),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
