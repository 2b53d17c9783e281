/* JSON-RPC 2.0 over MCP's stdio transport: lines in, messages out. */
#include "mcp_rpc.h"

#include <stdlib.h>
#include <string.h>

/*
 * A piece of one line: kept, or once the line is over the limit dropped
 * (its id read from every piece of it).
 */
static int reader_piece(struct mcp_reader *r, const char *data, size_t len)
{
	if (!r->skipping && r->line.len + len > MCP_LINE_MAX) {
		r->skipping = true;
		mcp_idscan_release(&r->dropped);
		mcp_idscan_feed(&r->dropped, r->line.ptr, r->line.len);
		buf_clear(&r->line);
	}
	if (r->skipping) {
		mcp_idscan_feed(&r->dropped, data, len);
		return 0;
	}
	return buf_put(&r->line, data, len);
}

static void reader_line(struct mcp_reader *r, mcp_line_fn *fn, void *ctx)
{
	size_t len = r->line.len;

	if (r->skipping) {
		fn(ctx, NULL, 0, &r->dropped);
		mcp_idscan_release(&r->dropped);
		r->skipping = false;
		return;
	}
	if (len && r->line.ptr[len - 1] == '\r')
		len--;
	if (len)
		fn(ctx, r->line.ptr, len, NULL);
	buf_clear(&r->line);
}

int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t len, mcp_line_fn *fn, void *ctx)
{
	const char *nl;

	while (len) {
		size_t piece;

		nl = memchr(data, '\n', len);
		piece = nl ? (size_t)(nl - data) : len;
		if (reader_piece(r, data, piece) < 0)
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
	mcp_idscan_release(&r->dropped);
	r->skipping = false;
}

json_t *mcp_line_parse(const char *line, size_t len)
{
	json_error_t error;

	return json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
}

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
