/* JSON-RPC 2.0 over MCP's stdio transport: lines in, messages out. */
#include "mcp_rpc.h"

#include <stdlib.h>
#include <string.h>

/*
 * A piece of one line: kept, or dropped once the line is over the limit
 * (its first MCP_LINE_MAX bytes handed on, so that its id can be read).
 */
static int reader_piece(struct mcp_reader *r, const char *data, size_t len, mcp_line_fn *fn, void *ctx)
{
	if (r->skipping)
		return 0;
	if (r->line.len + len > MCP_LINE_MAX) {
		if (buf_put(&r->line, data, MCP_LINE_MAX - r->line.len) < 0)
			return -1;
		r->skipping = true;
		fn(ctx, r->line.ptr, r->line.len, true);
		buf_clear(&r->line);
		return 0;
	}
	return buf_put(&r->line, data, len);
}

static void reader_line(struct mcp_reader *r, mcp_line_fn *fn, void *ctx)
{
	size_t len = r->line.len;

	if (r->skipping) {
		r->skipping = false;
		return;
	}
	if (len && r->line.ptr[len - 1] == '\r')
		len--;
	if (len)
		fn(ctx, r->line.ptr, len, false);
	buf_clear(&r->line);
}

int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t len, mcp_line_fn *fn, void *ctx)
{
	const char *nl;

	while (len) {
		size_t piece;

		nl = memchr(data, '\n', len);
		piece = nl ? (size_t)(nl - data) : len;
		if (reader_piece(r, data, piece, fn, ctx) < 0)
			return -1;
		if (!nl)
			break;
		reader_line(r, fn, ctx);
		data += piece + 1;
		len -= piece + 1;
	}
	return 0;
}

void mcp_reader_release(struct mcp_reader *r)
{
	buf_release(&r->line);
	r->skipping = false;
}

json_t *mcp_line_parse(const char *line, size_t len)
{
	json_error_t error;

	return json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
}

/* --- the id of a line cut off ---------------------------------------------- */

/* The start of a line, read as far as it goes: a position in it. */
struct scan {
	const char *text;
	size_t len, at;
};

static bool scan_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void scan_blank(struct scan *s)
{
	while (s->at < s->len && scan_space(s->text[s->at]))
		s->at++;
}

/* A string from its opening quote to past its closing one; false when the start ends inside it. */
static bool scan_string(struct scan *s)
{
	for (s->at++; s->at < s->len; s->at++) {
		if (s->text[s->at] == '\\')
			s->at++;
		else if (s->text[s->at] == '"')
			break;
	}
	if (s->at >= s->len)
		return false;
	s->at++;
	return true;
}

/*
 * A number or a literal: up to what ends it; false when it is empty (a NUL
 * byte is no delimiter) or the start ends first (it may go on).
 */
static bool scan_scalar(struct scan *s)
{
	size_t from = s->at;

	while (s->at < s->len && s->text[s->at] && !scan_space(s->text[s->at]) &&
	       !strchr(",:[]{}\"", s->text[s->at]))
		s->at++;
	return s->at > from && s->at < s->len;
}

/* One value of any kind, nested ones by counting (no recursion, so no depth limit). */
static bool scan_value(struct scan *s)
{
	size_t depth = 0;

	do {
		char c;

		scan_blank(s);
		if (s->at >= s->len)
			return false;
		c = s->text[s->at];
		if (c == '"') {
			if (!scan_string(s))
				return false;
			continue;
		}
		if (!c || !strchr("{[}],:", c)) {
			if (!scan_scalar(s))
				return false;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (!depth)
			return false;   /* a closing bracket or a separator where a value goes */
		else if (c == '}' || c == ']')
			depth--;
		s->at++;
	} while (depth);
	return true;
}

/* A token of the start, text[from..to) (a string with its quotes, or a scalar), as JSON, or NULL. */
static json_t *token_json(const struct scan *s, size_t from, size_t to)
{
	json_error_t error;

	return json_loadb(s->text + from, to - from, JSON_DECODE_ANY, &error);
}

/* Whether the member name text[from..to) (with its quotes) is this one. */
static bool name_is(const struct scan *s, size_t from, size_t to, const char *name)
{
	json_t *decoded;
	bool same;

	if (!memchr(s->text + from, '\\', to - from))
		return to - from == strlen(name) + 2 && !memcmp(s->text + from + 1, name, strlen(name));
	decoded = token_json(s, from, to);
	same = json_is_string(decoded) && !strcmp(json_string_value(decoded), name);
	json_decref(decoded);
	return same;
}

/* The value of "id", when it is usable and whole in the start. */
static json_t *id_read(struct scan *s)
{
	size_t from;
	json_t *id;

	scan_blank(s);
	from = s->at;
	if (s->at >= s->len || !(s->text[s->at] == '"' ? scan_string(s) : scan_scalar(s)))
		return NULL;
	id = token_json(s, from, s->at);
	if (json_is_string(id) || json_is_integer(id))
		return id;
	json_decref(id);
	return NULL;
}

json_t *mcp_line_id(const char *start, size_t len)
{
	struct scan s = { start, len, 0 };
	size_t from, to;

	scan_blank(&s);
	if (s.at >= s.len || s.text[s.at++] != '{')
		return NULL;
	for (;;) {
		scan_blank(&s);
		from = s.at;
		if (s.at >= s.len || s.text[s.at] != '"' || !scan_string(&s))
			return NULL;
		to = s.at;
		if (name_is(&s, from, to, "result") || name_is(&s, from, to, "error"))
			return NULL;    /* a response: nothing waits for an answer */
		scan_blank(&s);
		if (s.at >= s.len || s.text[s.at++] != ':')
			return NULL;
		if (name_is(&s, from, to, "id"))
			return id_read(&s);
		if (!scan_value(&s))
			return NULL;
		scan_blank(&s);
		if (s.at >= s.len || s.text[s.at++] != ',')
			return NULL;
	}
}

/* --- messages ------------------------------------------------------------------ */

/* An id JSON-RPC allows and MCP keeps: a string or an integer (never null). */
static bool id_usable(const json_t *id)
{
	return id && (json_is_string(id) || json_is_integer(id));
}

static void invalid(struct mcp_message *out, const char *why)
{
	out->kind = MCP_INVALID;
	out->invalid = why;
	if (!id_usable(out->id))
		out->id = NULL;
}

void mcp_message_decode(struct mcp_message *out, json_t *item)
{
	json_t *version, *method, *params;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(item))
		return invalid(out, "a message is a JSON object");
	out->id = json_object_get(item, "id");
	version = json_object_get(item, "jsonrpc");
	if (!json_is_string(version) || strcmp(json_string_value(version), "2.0"))
		return invalid(out, "\"jsonrpc\" must be \"2.0\"");
	method = json_object_get(item, "method");
	if (!method) {
		if (!id_usable(out->id) || (!json_object_get(item, "result") && !json_object_get(item, "error")))
			return invalid(out, "a message needs a \"method\" (or, for a response, an id and a result or error)");
		out->kind = MCP_RESPONSE;
		return;
	}
	if (!json_is_string(method))
		return invalid(out, "\"method\" must be a string");
	if (out->id && !id_usable(out->id))
		return invalid(out, "\"id\" must be a string or an integer");
	params = json_object_get(item, "params");
	if (params && !json_is_object(params))
		return invalid(out, "\"params\" must be an object");
	out->method = json_string_value(method);
	out->params = params;
	out->kind = out->id ? MCP_REQUEST : MCP_NOTIFICATION;
}

json_t *mcp_response(json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result ? result : json_object());
}

json_t *mcp_error(json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error",
			 "code", code, "message", message);
}

json_t *mcp_notification(const char *method, json_t *params)
{
	return json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
			 params ? params : json_object());
}

int mcp_write(int fd, json_t *message)
{
	char *text;
	int rc = -1;

	if (!message)
		return -1;
	/* Compact JSON has no line break: strings carry theirs escaped. */
	text = json_dumps(message, JSON_COMPACT);
	json_decref(message);
	if (text) {
		size_t len = strlen(text);

		text[len] = '\n';
		rc = buf_write_fd(fd, text, len + 1);
		text[len] = '\0';
	}
	free(text);
	return rc;
}
