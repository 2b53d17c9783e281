/* LLM providers: settings, requests, answers, and JSON inside answers. */
#include "llm.h"
#include "array.h"
#include "config.h"
#include "curl_lib.h"
#include "models.h"
#include "secret.h"
#include "status.h"

#include <ctype.h>
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

bool provider_parse(enum provider *out, const char *name)
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

static const char *default_url(enum provider provider)
{
	return provider == PROVIDER_ANTHROPIC ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1";
}

static const char *default_model(enum provider provider)
{
	return provider == PROVIDER_ANTHROPIC ? "claude-haiku-4-5" : "gpt-5-mini";
}

/* The key wiped and let go: it is not left in freed memory. */
static void key_forget(struct llm_config *c)
{
	volatile char *p = c->api_key;

	while (p && *p)
		*p++ = '\0';
	free(c->api_key);
	c->api_key = NULL;
	c->key_source = "none";
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
	long cap;
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
		c->base_url = strdup(default_url(c->provider));
	if (config_get(&c->model, config, "revline.model") != 0)
		c->model = strdup(default_model(c->provider));
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
	if ((error = config_get_integer(&cap, config, "revline.maxTokens", 256, 1000000)) == 0)
		c->max_tokens = cap;
	else if (error != RL_ENOTFOUND)
		goto fail;
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
	key_forget(c);
	memset(c, 0, sizeof(*c));
}

int llm_config_set(char **field, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return error_nomem();
	free(*field);
	*field = copy;
	return 0;
}

int llm_config_switch(struct llm_config *c, enum provider provider, const char *base_url, struct config *config)
{
	const char *model = default_model(provider);
	int error;

	if (provider == PROVIDER_NONE)
		return error_set(RL_EUSAGE, "provider none asks no model");
	if ((error = llm_config_set(&c->base_url, base_url ? base_url : default_url(provider))) < 0 ||
	    (error = llm_config_set(&c->model, model)) < 0 || (error = llm_config_set(&c->map_model, model)) < 0 ||
	    (error = llm_config_set(&c->reduce_model, model)) < 0)
		return error;
	trim_slashes(c->base_url);
	c->provider = provider;
	key_forget(c);
	return load_key(c, config);
}


int llm_call_header(struct llm_call *call, const char *fmt, const char *value)
{
	struct buf line = BUF_INIT;
	int error;

	if ((error = ARRAY_GROW(call->headers, call->headers_alloc, call->nheaders + 1)) < 0)
		return error;
	if ((error = buf_printf(&line, fmt, value)) < 0)
		return error;
	call->headers[call->nheaders++] = buf_detach(&line);
	return 0;
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
	if (curl_lib_load() < 0)
		return buf_puts(message, error_message()) ? RL_ENOMEM : error_status();
	if (!(curl = libcurl.easy_init()))
		return error_nomem();
	buf_printf(&url, "%s/models", c->base_url);
	if (c->api_key && c->provider == PROVIDER_ANTHROPIC)
		buf_printf(&auth, "x-api-key: %s", c->api_key);
	else if (c->api_key)
		buf_printf(&auth, "Authorization: Bearer %s", c->api_key);
	if (auth.len)
		headers = libcurl.slist_append(headers, auth.ptr);
	if (c->provider == PROVIDER_ANTHROPIC)
		headers = libcurl.slist_append(headers, "anthropic-version: 2023-06-01");
	libcurl.easy_setopt(curl, CURLOPT_URL, url.ptr);
	libcurl.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	libcurl.easy_setopt(curl, CURLOPT_TIMEOUT, timeout_s);
	libcurl.easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
	libcurl.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	libcurl.easy_setopt(curl, CURLOPT_USERAGENT, "revline/" REVLINE_VERSION);
	rc = libcurl.easy_perform(curl);
	libcurl.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	libcurl.easy_getinfo(curl, CURLINFO_TOTAL_TIME, &seconds);
	if (rc != CURLE_OK)
		buf_printf(message, "%s (%s)", libcurl.easy_strerror(rc), url.ptr);
	else
		buf_printf(message, "HTTP %ld in %.0f ms from %s", status, seconds * 1000, url.ptr);
	if (rc == CURLE_OK && status >= 200 && status < 300)
		error = 0;
	libcurl.slist_free_all(headers);
	libcurl.easy_cleanup(curl);
	/* The header held the key. */
	if (auth.ptr)
		memset(auth.ptr, 0, auth.len);
	buf_release(&auth);
	buf_release(&url);
	return error;
}
