/* LLM providers: settings, requests, answers, and JSON inside answers. */
#include "llm.h"
#include "sched.h"
#include "config.h"
#include "models.h"
#include "secret.h"
#include "status.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const provider_names[] = {
#define PROVIDER_NAME(id, name) name,
	PROVIDER_LIST(PROVIDER_NAME)
#undef PROVIDER_NAME
};

const char llm_setup_hint[] =
	"no LLM is configured: set OPENAI_API_KEY, or ANTHROPIC_API_KEY, or point "
	"REVLINE_BASE_URL at a local OpenAI-compatible server (Ollama: "
	"http://localhost:11434/v1, llama.cpp: http://localhost:8080/v1) and set REVLINE_MODEL";

const char *provider_name(enum provider provider)
{
	return (size_t)provider < sizeof(provider_names) / sizeof(provider_names[0]) ?
		provider_names[provider] : "unknown";
}

static bool provider_parse(enum provider *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(provider_names) / sizeof(provider_names[0]); i++)
		if (!strcasecmp(provider_names[i], name)) {
			*out = (enum provider)i;
			return true;
		}
	return false;
}

static char *env_copy(const char *name)
{
	const char *value = getenv(name);

	return value && *value ? strdup(value) : NULL;
}

/* The first line printed by revline.apiKeyCommand, without its newline. */
static int key_from_command(char **out, const char *command)
{
	struct buf text = BUF_INIT;
	char chunk[512];
	FILE *fp = popen(command, "r");
	size_t n;
	int status;

	*out = NULL;
	if (!fp)
		return error_set(RL_ECONFIG, "revline.apiKeyCommand could not be run");
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_put(&text, chunk, n);
	status = pclose(fp);
	if (status != 0 || !text.len) {
		buf_release(&text);
		return error_set(RL_ECONFIG, "revline.apiKeyCommand failed (%s); run it by hand to see why",
				 status != 0 ? "it exited with an error" : "it printed nothing");
	}
	text.len = strcspn(text.ptr, "\r\n");
	text.ptr[text.len] = '\0';
	*out = buf_detach(&text);
	return 0;
}

static void trim_slashes(char *url)
{
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		url[--n] = '\0';
}

static int choose_provider(struct llm_config *c, struct config *config)
{
	char *name = NULL;
	int error = 0;

	if (config_get(&name, config, "revline.provider") == 0) {
		if (!provider_parse(&c->provider, name))
			error = error_set(RL_ECONFIG, "unknown provider '%s' in REVLINE_PROVIDER or "
					  "revline.provider (use openai, anthropic or none)", name);
		free(name);
		return error;
	}
	if (getenv("ANTHROPIC_API_KEY") && *getenv("ANTHROPIC_API_KEY") &&
	    !(getenv("OPENAI_API_KEY") && *getenv("OPENAI_API_KEY")) && !c->base_url)
		c->provider = PROVIDER_ANTHROPIC;
	else if (c->base_url || (getenv("OPENAI_API_KEY") && *getenv("OPENAI_API_KEY")))
		c->provider = PROVIDER_OPENAI;
	else
		c->provider = PROVIDER_NONE;
	return 0;
}

static int load_key(struct llm_config *c, struct config *config)
{
	const char *env = c->provider == PROVIDER_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
	char *command = NULL;
	int error = 0;

	if ((c->api_key = env_copy(env))) {
		c->key_source = env;
	} else if (config_get(&command, config, "revline.apiKeyCommand") == 0) {
		error = key_from_command(&c->api_key, command);
		c->key_source = "revline.apiKeyCommand";
		free(command);
	}
	/* From here on, no message, answer, row or line can carry it. */
	if (!error && c->api_key)
		error = secret_add(c->api_key);
	return error;
}

static bool config_false(struct config *config, const char *key)
{
	char *value = NULL;
	bool off = false;

	if (config_get(&value, config, key) == 0)
		off = !strcasecmp(value, "false") || !strcmp(value, "0") || !strcasecmp(value, "no") ||
			!strcasecmp(value, "off");
	free(value);
	return off;
}

static int load_effort(struct llm_config *c, struct config *config)
{
	if (config_get(&c->reasoning_effort, config, "revline.reasoningEffort") != 0)
		return 0;
	if (models_effort_known(c->reasoning_effort))
		return 0;
	return error_set(RL_ECONFIG, "revline.reasoningEffort is '%.40s': use " MODELS_EFFORTS,
			 c->reasoning_effort);
}

int llm_config_load(struct llm_config *c, struct config *config)
{
	int error;

	memset(c, 0, sizeof(*c));
	c->key_source = "none";
	c->json_mode = true;
	c->max_tokens = 4096;
	if (config_get(&c->base_url, config, "revline.baseUrl") != 0)
		c->base_url = env_copy("OPENAI_BASE_URL");
	if ((error = choose_provider(c, config)) < 0)
		goto fail;
	if (c->provider == PROVIDER_NONE)
		return 0;
	if (!c->base_url)
		c->base_url = strdup(c->provider == PROVIDER_ANTHROPIC ? "https://api.anthropic.com/v1" :
				     "https://api.openai.com/v1");
	if (config_get(&c->model, config, "revline.model") != 0)
		c->model = strdup(c->provider == PROVIDER_ANTHROPIC ? "claude-haiku-4-5" : "gpt-5-mini");
	if (config_get(&c->map_model, config, "revline.mapModel") != 0)
		c->map_model = c->model ? strdup(c->model) : NULL;
	if (config_get(&c->reduce_model, config, "revline.reduceModel") != 0)
		c->reduce_model = c->model ? strdup(c->model) : NULL;
	if (!c->base_url || !c->model || !c->map_model || !c->reduce_model) {
		error = error_nomem();
		goto fail;
	}
	trim_slashes(c->base_url);
	c->json_mode = !config_false(config, "revline.jsonMode");
	if ((error = load_effort(c, config)) < 0 || (error = models_load(&c->models)) < 0 ||
	    (error = load_key(c, config)) < 0)
		goto fail;
	return 0;
fail:
	llm_config_release(c);
	return error;
}

void llm_config_release(struct llm_config *c)
{
	free(c->base_url);
	free(c->model);
	free(c->map_model);
	free(c->reduce_model);
	free(c->reasoning_effort);
	models_free(c->models);
	if (c->api_key) {
		/* Do not leave the key in freed memory. */
		volatile char *p = c->api_key;

		while (*p)
			*p++ = '\0';
		free(c->api_key);
	}
	memset(c, 0, sizeof(*c));
}

static int add_header(struct llm_call *call, const char *fmt, const char *value)
{
	char **headers = realloc(call->headers, (call->nheaders + 1) * sizeof(char *));
	struct buf line = BUF_INIT;

	if (!headers)
		return error_nomem();
	call->headers = headers;
	if (buf_printf(&line, fmt, value) < 0)
		return RL_ENOMEM;
	call->headers[call->nheaders++] = buf_detach(&line);
	return 0;
}

/* Set key to a new value; false when either could not be made (the body is then dropped). */
static bool body_set(json_t *body, const char *key, json_t *value)
{
	return value && json_object_set_new(body, key, value) == 0;
}

/*
 * The answer's cap. A reasoning model counts its hidden reasoning in it, so
 * one that takes an effort gets room for both, as OpenAI advises.
 */
static long output_cap(const struct llm_config *c, const struct model_info *info)
{
	return info->reasoning_effort && c->max_tokens < LLM_REASONING_CAP ? LLM_REASONING_CAP :
		c->max_tokens;
}

/* What the model's row allows: no temperature, the cap under its name, an effort. */
static json_t *body_tune(json_t *body, const struct llm_config *c, const struct model_info *info,
			 const char *effort)
{
	const char *cap = info->max_param == MODEL_MAX_COMPLETION_TOKENS ? "max_completion_tokens" :
		"max_tokens";

	if (!body)
		return NULL;
	if ((info->temperature && !body_set(body, "temperature", json_real(LLM_TEMPERATURE))) ||
	    !body_set(body, cap, json_integer(output_cap(c, info))) ||
	    (effort && info->reasoning_effort && !body_set(body, "reasoning_effort", json_string(effort)))) {
		json_decref(body);
		return NULL;
	}
	return body;
}

static json_t *openai_body(const struct llm_config *c, const struct model_info *info, const char *model,
			   const char *system, const char *user, bool json_mode, const char *effort)
{
	json_t *body = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}]}", "model", model,
				 "messages", "role", "system", "content", system,
				 "role", "user", "content", user);

	/* The schema itself is not sent yet: a model that takes one takes JSON mode too. */
	if (body && json_mode && info->structured != MODEL_STRUCTURED_NONE &&
	    !body_set(body, "response_format", json_pack("{s:s}", "type", "json_object"))) {
		json_decref(body);
		return NULL;
	}
	return body_tune(body, c, info, effort);
}

/*
 * Anthropic has no reasoning_effort: its extended thinking is a token
 * budget that also forbids temperature, which revline does not ask for.
 */
static json_t *anthropic_body(const struct llm_config *c, const struct model_info *info,
			      const char *model, const char *system, const char *user)
{
	return body_tune(json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "model", model, "system", system,
				   "messages", "role", "user", "content", user), c, info, NULL);
}

int llm_call_build(struct llm_call *out, const struct llm_config *c, const char *model,
		   const char *system, const char *user, bool json_mode, const char *effort)
{
	bool anthropic = c->provider == PROVIDER_ANTHROPIC;
	const struct model_info *info;
	json_t *body;
	struct buf url = BUF_INIT;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (c->provider == PROVIDER_NONE)
		return error_set(RL_ECONFIG, "%s", llm_setup_hint);
	models_lookup(&info, c->models, provider_name(c->provider), model);
	body = anthropic ? anthropic_body(c, info, model, system, user) :
		openai_body(c, info, model, system, user, json_mode && c->json_mode,
			    effort ? effort : c->reasoning_effort);
	if (!body || !(out->body = json_dumps(body, JSON_COMPACT))) {
		json_decref(body);
		return error_set(RL_ERROR, "cannot build the request (is the prompt valid UTF-8?)");
	}
	json_decref(body);
	out->body_len = strlen(out->body);
	if ((error = buf_printf(&url, "%s/%s", c->base_url, anthropic ? "messages" : "chat/completions")) < 0)
		goto fail;
	out->url = buf_detach(&url);
	if ((error = add_header(out, "Content-Type: %s", "application/json")) < 0)
		goto fail;
	if (anthropic) {
		if ((error = add_header(out, "anthropic-version: %s", "2023-06-01")) < 0 ||
		    (c->api_key && (error = add_header(out, "x-api-key: %s", c->api_key)) < 0))
			goto fail;
	} else if (c->api_key && (error = add_header(out, "Authorization: Bearer %s", c->api_key)) < 0) {
		goto fail;
	}
	return 0;
fail:
	llm_call_release(out);
	return error;
}

void llm_call_release(struct llm_call *call)
{
	size_t i;

	for (i = 0; i < call->nheaders; i++) {
		volatile char *p = call->headers[i];

		while (*p)
			*p++ = '\0';
		free(call->headers[i]);
	}
	free(call->headers);
	free(call->url);
	free(call->body);
	memset(call, 0, sizeof(*call));
}

/* The first bytes of a text, for an error message. */
static void quote_start(char *out, size_t size, const char *text, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 2 < size && i < 100; i++)
		out[n++] = (text[i] == '\n' || text[i] == '\r' || text[i] == '\t') ? ' ' : text[i];
	out[n] = '\0';
	if (i < len && n + 4 < size)
		strcat(out, "...");
}

static json_int_t usage_value(json_t *usage, const char *key)
{
	json_t *v = json_object_get(usage, key);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

static const char *reply_text(json_t *root, enum provider provider)
{
	json_t *content;
	size_t i;

	if (provider == PROVIDER_ANTHROPIC) {
		content = json_object_get(root, "content");
		for (i = 0; json_is_array(content) && i < json_array_size(content); i++) {
			json_t *part = json_array_get(content, i);

			if (json_is_string(json_object_get(part, "text")))
				return json_string_value(json_object_get(part, "text"));
		}
		return NULL;
	}
	content = json_object_get(json_object_get(json_array_get(json_object_get(root, "choices"), 0),
						  "message"), "content");
	return json_is_string(content) ? json_string_value(content) : NULL;
}

/*
 * The start of a server's body, for a message: from the body with the key
 * taken out first, so that the cut cannot leave a part of it.
 */
static void quote_body(char *out, size_t size, const char *body, size_t len)
{
	struct buf clean = BUF_INIT;

	if (buf_put(&clean, body, len) < 0) {
		snprintf(out, size, "(out of memory)");
		return;
	}
	secret_redact(&clean);
	quote_start(out, size, clean.ptr, clean.len);
	buf_release(&clean);
}

/* The answer's text, with the key the server may have echoed taken out. */
static int reply_text_copy(char **out, const char *text)
{
	struct buf copy = BUF_INIT;

	*out = NULL;
	if (buf_puts(&copy, text) < 0)
		return RL_ENOMEM;
	secret_redact(&copy);
	*out = buf_detach(&copy);
	return *out ? 0 : error_nomem();
}

int llm_reply_parse(struct llm_reply *out, enum provider provider, const char *body, size_t len)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, 0, &jerr), *usage;
	const char *text;
	char start[128];
	int error;

	memset(out, 0, sizeof(*out));
	if (!root) {
		quote_body(start, sizeof(start), body, len);
		return error_set(RL_EPARSE, "the server's answer is not JSON: \"%s\"", start);
	}
	if (!(text = reply_text(root, provider))) {
		json_decref(root);
		quote_body(start, sizeof(start), body, len);
		return error_set(RL_EPARSE, "the server's answer has no %s: \"%s\"",
				 provider == PROVIDER_ANTHROPIC ? "content text" : "choices[0].message.content",
				 start);
	}
	usage = json_object_get(root, "usage");
	out->tokens_in = (long)(provider == PROVIDER_ANTHROPIC ? usage_value(usage, "input_tokens") :
				usage_value(usage, "prompt_tokens"));
	out->tokens_out = (long)(provider == PROVIDER_ANTHROPIC ? usage_value(usage, "output_tokens") :
				 usage_value(usage, "completion_tokens"));
	error = reply_text_copy(&out->text, text);
	json_decref(root);
	return error;
}

void llm_reply_release(struct llm_reply *reply)
{
	free(reply->text);
	memset(reply, 0, sizeof(*reply));
}

static bool contains_icase(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; s && *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

bool llm_rejects_json_mode(long http_status, const char *body)
{
	return http_status >= 400 && http_status < 500 && body &&
		(contains_icase(body, "response_format") || contains_icase(body, "json_object") ||
		 contains_icase(body, "json mode"));
}

void llm_error_text(struct buf *out, long http_status, const char *body, size_t len)
{
	json_t *root = body ? json_loadb(body, len, 0, NULL) : NULL;
	json_t *err = json_object_get(root, "error"), *msg;
	char start[128];

	msg = json_is_object(err) ? json_object_get(err, "message") : err;
	if (!json_is_string(msg))
		msg = json_object_get(root, "message");
	if (json_is_string(msg)) {
		buf_printf(out, "HTTP %ld: %s", http_status, json_string_value(msg));
	} else {
		quote_body(start, sizeof(start), body ? body : "", body ? len : 0);
		buf_printf(out, "HTTP %ld%s%s", http_status, *start ? ": " : "", start);
	}
	json_decref(root);
	/* Servers that refuse a key like to quote it back. */
	secret_redact(out);
}

/* A value parsed from text[start..end), if it is an object or an array. */
static json_t *try_parse(const char *text, size_t len)
{
	json_t *value = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, NULL);

	if (value && !json_is_object(value) && !json_is_array(value)) {
		json_decref(value);
		value = NULL;
	}
	return value;
}

/* The contents of the first ``` fence (```json or plain) that parse. */
static json_t *from_fences(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while ((p = memmem(p, (size_t)(end - p), "```", 3))) {
		const char *body = memchr(p, '\n', (size_t)(end - p)), *close;
		json_t *value;

		if (!body)
			return NULL;
		body++;
		close = memmem(body, (size_t)(end - body), "```", 3);
		if (!close)
			close = end;
		if ((value = try_parse(body, (size_t)(close - body))))
			return value;
		p = close + (close < end ? 3 : 0);
		if (close == end)
			break;
	}
	return NULL;
}

/* The most places in prose where a JSON value is looked for, per kind of bracket. */
#define JSON_STARTS 32

int llm_extract_json(json_t **out, const char *text, size_t len)
{
	const char *p;
	char start[128];
	size_t skip = 0;
	int tries;

	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if ((*out = try_parse(text + skip, len - skip)) || (*out = from_fences(text, len)))
		return 0;
	/*
	 * Prose around the JSON: try each '{' (then each '[') from the left,
	 * the first JSON_STARTS of each. Each try may read to the end (and
	 * 2,048 levels deep), so trying them all made "[[[[..." of 70 KB cost
	 * half a minute; prose has a few brackets before its JSON, not dozens.
	 */
	for (p = text, tries = 0; tries < JSON_STARTS && (p = memchr(p, '{', (size_t)(text + len - p))); p++, tries++)
		if ((*out = try_parse(p, (size_t)(text + len - p))))
			return 0;
	for (p = text, tries = 0; tries < JSON_STARTS && (p = memchr(p, '[', (size_t)(text + len - p))); p++, tries++)
		if ((*out = try_parse(p, (size_t)(text + len - p))))
			return 0;
	quote_start(start, sizeof(start), text, len);
	return error_set(RL_EPARSE, "the answer holds no JSON object: \"%s\"", start);
}

long llm_tokens(size_t bytes)
{
	return (long)((bytes + 3) / 4);
}

static size_t discard(char *data, size_t size, size_t n, void *ctx)
{
	(void)data;
	(void)ctx;
	return size * n;
}

int llm_ping(struct buf *message, const struct llm_config *c, long timeout_s)
{
	struct curl_slist *headers = NULL;
	struct buf url = BUF_INIT, auth = BUF_INIT;
	CURL *curl;
	CURLcode rc;
	long status = 0;
	double seconds = 0;
	int error = RL_ERROR;

	if (c->provider == PROVIDER_NONE)
		return buf_puts(message, "no provider") ? RL_ENOMEM : RL_ECONFIG;
	if (!(curl = curl_easy_init()))
		return error_nomem();
	buf_printf(&url, "%s/models", c->base_url);
	if (c->api_key && c->provider == PROVIDER_ANTHROPIC)
		buf_printf(&auth, "x-api-key: %s", c->api_key);
	else if (c->api_key)
		buf_printf(&auth, "Authorization: Bearer %s", c->api_key);
	if (auth.len)
		headers = curl_slist_append(headers, auth.ptr);
	if (c->provider == PROVIDER_ANTHROPIC)
		headers = curl_slist_append(headers, "anthropic-version: 2023-06-01");
	curl_easy_setopt(curl, CURLOPT_URL, url.ptr);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "revline/" REVLINE_VERSION);
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME, &seconds);
	if (rc != CURLE_OK)
		buf_printf(message, "%s (%s)", curl_easy_strerror(rc), url.ptr);
	else
		buf_printf(message, "HTTP %ld in %.0f ms from %s", status, seconds * 1000, url.ptr);
	if (rc == CURLE_OK && status >= 200 && status < 300)
		error = 0;
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	/* The header held the key. */
	if (auth.ptr)
		memset(auth.ptr, 0, auth.len);
	buf_release(&auth);
	buf_release(&url);
	return error;
}

int llm_submit(struct sched *sched, const struct llm_config *config, const char *model,
	       const char *system, const char *user, bool json_mode, const char *effort, size_t weight,
	       void *ctx)
{
	struct sched_request req = { 0 };
	struct llm_call call;
	uint64_t task;
	int error;

	if ((error = llm_call_build(&call, config, model, system, user, json_mode, effort)) < 0)
		return error;
	req.url = call.url;
	req.headers = (const char *const *)call.headers;
	req.nheaders = call.nheaders;
	req.body = call.body;
	req.body_len = call.body_len;
	req.weight = weight;
	error = sched_add(sched, &task, &req, ctx);
	llm_call_release(&call);
	return error;
}
